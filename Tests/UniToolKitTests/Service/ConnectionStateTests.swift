import Foundation
import Testing

@testable import UniToolKit

/// The connection's session bookkeeping on its own: what is saved after which login, and when
/// another process's session counts as newer.
@Suite("Connection state: which jar is saved, and when")
struct ConnectionStateTests {
    func jar(_ value: String) -> CookieJar {
        var jar = CookieJar()
        // One moment for every jar: a cookie's creation time is part of it.
        jar.store(
            setCookieHeaders: ["sid=\(value); Path=/"], from: URL(string: "https://portal.example.edu/")!,
            now: Date(timeIntervalSince1970: 1_800_000_000))
        return jar
    }

    func stamp(of text: String) throws -> FileStamp {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-stamp-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: file) }
        try text.write(to: file, atomically: false, encoding: .utf8)
        return try #require(FileStamp(of: file))
    }

    @Test("a jar as on disk is not written again; a changed one is, once")
    func unchangedNotWritten() {
        var state = ConnectionState(startedEmpty: false, savedJar: jar("a"), diskStamp: nil)
        #expect(state.jarToSave(current: jar("a")) == nil)
        #expect(state.jarToSave(current: jar("b")) == jar("b"))
        state.onDisk(jar("b"), stamp: nil)
        #expect(state.jarToSave(current: jar("b")) == nil)
    }

    @Test("after a failed login the jar from before it is what is saved; a later success saves its own")
    func failedLoginKeepsTheJarBefore() {
        var state = ConnectionState(startedEmpty: false, savedJar: nil, diskStamp: nil)
        state.loginFailed(jarBefore: jar("before"))
        state.loginFailed(jarBefore: jar("half-way"))
        #expect(state.jarToSave(current: jar("half-way")) == jar("before"), "the first failure's jar, not a half-finished one")
        state.loginSucceeded()
        #expect(state.jarToSave(current: jar("new")) == jar("new"))
    }

    @Test("a connection that started empty saves nothing until a login finishes, and never takes another process's session")
    func startedEmpty() throws {
        var state = ConnectionState(startedEmpty: true, savedJar: nil, diskStamp: nil)
        #expect(state.jarToSave(current: jar("wrong-password-attempt")) == nil)
        #expect(!state.isNewer(try stamp(of: "x")))
        state.loginSucceeded()
        #expect(state.jarToSave(current: jar("proved")) == jar("proved"))
    }

    @Test("another process's save is newer until it is adopted")
    func anotherProcess() throws {
        let mine = try stamp(of: "mine")
        let theirs = try stamp(of: "theirs, longer")
        var state = ConnectionState(startedEmpty: false, savedJar: jar("mine"), diskStamp: mine)
        #expect(!state.isNewer(mine) && !state.isNewer(nil))
        #expect(state.isNewer(theirs))
        state.onDisk(jar("theirs"), stamp: theirs)
        #expect(!state.isNewer(theirs) && state.jarToSave(current: jar("theirs")) == nil)
    }
}
