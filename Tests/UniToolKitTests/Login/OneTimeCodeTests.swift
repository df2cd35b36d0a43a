import Foundation
import OneTimeCode
import Synchronization
import Testing

@testable import UniToolKit

@Suite("One-time codes: never the same code twice")
struct OneTimeCodeTests {
    @Test("the current step, unless it or a later one was used; then the next, after a wait")
    func schedule() {
        let now = Date(timeIntervalSince1970: 1_000_010)  // 20 s into step 33333 of 30 s; 33334 begins in 10 s
        #expect(OneTimeCodeSchedule.step(now: now, period: 30, lastUsedStep: nil) == (33333, 0))
        #expect(OneTimeCodeSchedule.step(now: now, period: 30, lastUsedStep: 33332) == (33333, 0))
        let (step, wait) = OneTimeCodeSchedule.step(now: now, period: 30, lastUsedStep: 33333)
        #expect(step == 33334)
        #expect(abs(wait - 10) < 0.001)
        // A step recorded in the future (a clock set back) waits past it, never reuses.
        #expect(OneTimeCodeSchedule.step(now: now, period: 30, lastUsedStep: 33335).step == 33336)
    }

    @Test("a code from outside is not sent again within the window")
    func maySend() {
        let sent = Date(timeIntervalSince1970: 5_000)
        let last = OneTimeCodeLedger.Entry(step: nil, digest: "d1", sentAt: sent)
        #expect(!OneTimeCodeSchedule.maySend(digest: "d1", last: last, now: sent.addingTimeInterval(20)))
        #expect(OneTimeCodeSchedule.maySend(digest: "d2", last: last, now: sent.addingTimeInterval(1)))
        #expect(OneTimeCodeSchedule.maySend(digest: "d1", last: last, now: sent.addingTimeInterval(61)))
        #expect(OneTimeCodeSchedule.maySend(digest: "d1", last: nil, now: sent))
    }

    @Test("codes from a stored secret: consecutive logins in one window wait for the next step; the ledger keeps no code")
    func storedSecretNeverRepeats() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("otp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let clock = Mutex(Date(timeIntervalSince1970: 1_000_000))
        let waits = Mutex<[TimeInterval]>([])
        let generator = TOTP(secret: Array("12345678901234567890".utf8), period: 30)
        var source = OneTimeCodeSource(
            portal: "demo", user: "yuki", storedGenerator: { generator },
            ledger: OneTimeCodeLedger(portal: "demo", user: "yuki", store: SessionStore(directory: folder)))
        source.now = { clock.withLock { $0 } }
        source.sleep = { seconds in
            waits.withLock { $0.append(seconds) }
            clock.withLock { $0 = $0.addingTimeInterval(seconds) }
        }
        let codes = try (0..<3).map { _ in try source.code().reveal() }
        #expect(Set(codes).count == 3)
        #expect(codes[0] == generator.code(at: Date(timeIntervalSince1970: 1_000_000)))
        #expect(waits.withLock { $0 }.count == 2)
        let ledger = try String(contentsOf: folder.appendingPathComponent("demo/yuki.otp.json"), encoding: .utf8)
        #expect(!codes.contains { ledger.contains($0) })
        // A second process (a new source, the same ledger) also moves on.
        var other = source
        other.ledger = OneTimeCodeLedger(portal: "demo", user: "yuki", store: SessionStore(directory: folder))
        #expect(!codes.contains(try other.code().reveal()))
    }

    @Test("a command that repeats the last code is asked again; no source at all is mfa_required")
    func commandAndMissing() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("otp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let answers = Mutex(["111111", "111111", "222222"])
        var source = OneTimeCodeSource(
            portal: "demo", user: "bence", storedGenerator: { nil },
            command: { Secret(answers.withLock { $0.removeFirst() }) },
            ledger: OneTimeCodeLedger(portal: "demo", user: "bence", store: SessionStore(directory: folder)))
        source.sleep = { _ in }
        #expect(try source.code().reveal() == "111111")
        #expect(try source.code().reveal() == "222222")

        let none = OneTimeCodeSource(portal: "demo", user: "bence", storedGenerator: { nil }, ledger: nil)
        #expect {
            try none.code()
        } throws: { error in
            (error as? UniToolError)?.kind == .mfaRequired && "\(error)".contains("UNITOOL_TOTP_COMMAND")
        }
    }

    @Test("a code asked for again moments after one was sent says that the portal started the login over")
    func promptAgainSaysWhy() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("otp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let questions = Mutex<[String]>([])
        let answers = Mutex(["123456", "654321", "777777"])
        var source = OneTimeCodeSource(
            portal: "demo", user: "yuki", storedGenerator: { nil },
            prompt: { question in
                questions.withLock { $0.append(question) }
                return answers.withLock { $0.removeFirst() }
            },
            ledger: OneTimeCodeLedger(portal: "demo", user: "yuki", store: SessionStore(directory: folder)))
        let clock = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        source.now = { clock.withLock { $0 } }
        #expect(try source.code().reveal() == "123456")
        #expect(try source.code().reveal() == "654321")
        clock.withLock { $0 += 600 }
        #expect(try source.code().reveal() == "777777")
        let asked = questions.withLock { $0 }
        #expect(asked[0].hasPrefix("One-time code for yuki"))
        #expect(asked[1].contains("started the login over"), "\(asked)")
        #expect(asked[2].hasPrefix("One-time code for yuki"), "ten minutes later it is a new login: \(asked)")
    }

    @Test("a TOTP secret refused for a moved portal is the answer: no command and no prompt stand in for it")
    func refusedSecretIsFinal() throws {
        let asked = Mutex(0)
        let source = OneTimeCodeSource(
            portal: "demo", user: "yuki",
            storedGenerator: { throw UniToolError(.credentialsMissing, "stored for other origins") },
            command: {
                asked.withLock { $0 += 1 }
                return Secret("123456")
            },
            prompt: { _ in
                asked.withLock { $0 += 1 }
                return "123456"
            }, ledger: nil)
        #expect {
            _ = try source.code()
        } throws: { ($0 as? UniToolError)?.kind == .credentialsMissing }
        #expect(asked.withLock { $0 } == 0)
        // A keyring that cannot be reached is no refusal: the command serves.
        let outage = OneTimeCodeSource(
            portal: "demo", user: "yuki", storedGenerator: { throw UniToolError(.keyringUnavailable, "no bus") },
            command: { Secret("654321") }, ledger: nil)
        #expect(try outage.code().reveal() == "654321")
    }
}
