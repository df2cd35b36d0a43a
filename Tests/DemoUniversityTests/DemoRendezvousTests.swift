import Foundation
import Testing

@testable import DemoUniversity

/// The rendezvous file's check as a value: what a command believes of a file it finds, from its
/// bytes and what the file system says about it, with no file and no server.
@Suite("demo serve's rendezvous file: where it is, and when it is believed")
struct DemoRendezvousTests {
    let user: UInt32 = 1000
    let state = "/home/ada/.local/state/unitool/demo.json"
    var good: DemoRendezvous { DemoRendezvous(port: 40123, pid: 4242, stateFile: state, key: String(repeating: "ab", count: 32)) }
    let facts = DemoRendezvous.FileFacts(
        owner: 1000, mode: 0o600, isRegularFile: true, folderOwner: 1000, folderMode: 0o700, folderIsDirectory: true)

    func judge(_ rendezvous: DemoRendezvous? = nil, bytes: Data? = nil, facts: DemoRendezvous.FileFacts? = nil) throws
        -> DemoRendezvous.Verdict
    {
        let contents = try bytes ?? JSONEncoder().encode(rendezvous ?? good)
        return DemoRendezvous.judge(contents: contents, facts: facts ?? self.facts, user: user, stateFile: state)
    }

    @Test("the user's own file, 0600 in a 0700 folder, naming this state file, is a candidate")
    func own() throws {
        #expect(try judge() == .candidate(good))
    }

    @Test("a file or folder of another user, open to others, or not a plain file is refused and left alone")
    func refused() throws {
        var cases: [(String, DemoRendezvous.FileFacts)] = []
        var facts = self.facts
        facts.owner = 1001
        cases.append(("another user's file", facts))
        facts = self.facts
        facts.mode = 0o644
        cases.append(("a file others may read (and so learn the key)", facts))
        facts = self.facts
        facts.mode = 0o620
        cases.append(("a file its group may write", facts))
        facts = self.facts
        facts.isRegularFile = false
        cases.append(("a FIFO or device", facts))
        facts = self.facts
        facts.folderOwner = 1001
        cases.append(("a folder another user owns (a planted /tmp/unitool)", facts))
        facts = self.facts
        facts.folderMode = 0o1777
        cases.append(("a folder everyone may write", facts))
        facts = self.facts
        facts.folderIsDirectory = false
        cases.append(("a symlink in the folder's place", facts))
        for (name, facts) in cases {
            guard case .refused = try judge(facts: facts) else {
                Issue.record("\(name) was not refused")
                continue
            }
        }
    }

    @Test("an unreadable file, another state file's, an old format or a malformed key is stale: ignored and removed")
    func stale() throws {
        var other = good
        other.stateFile = "/home/ada/other/unitool/demo.json"
        var old = good
        old.version = 0
        var shortKey = good
        shortKey.key = "abc"
        var noPort = good
        noPort.port = 0
        for verdict in [
            try judge(bytes: Data("{not json".utf8)), try judge(other), try judge(old), try judge(shortKey), try judge(noPort),
        ] {
            guard case .stale = verdict else {
                Issue.record("\(verdict) is not stale")
                continue
            }
        }
    }

    @Test("the file is under XDG_RUNTIME_DIR/unitool, else beside the state; named by the state file, so two HOMEs differ")
    func location() {
        let stateFile = URL(fileURLWithPath: state)
        let runtime = DemoRendezvous.location(stateFile: stateFile, environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(runtime.path.hasPrefix("/run/user/1000/unitool/demo-serve-") && runtime.pathExtension == "json")
        let fallback = DemoRendezvous.location(stateFile: stateFile, environment: [:])
        #expect(fallback.deletingLastPathComponent().path == "/home/ada/.local/state/unitool")
        #expect(fallback.lastPathComponent == runtime.lastPathComponent)
        let relative = DemoRendezvous.location(stateFile: stateFile, environment: ["XDG_RUNTIME_DIR": "run"])
        #expect(relative == fallback, "a relative XDG_RUNTIME_DIR is ignored, as the specification says")
        let otherHome = DemoRendezvous.location(
            stateFile: URL(fileURLWithPath: "/tmp/second-home/state/unitool/demo.json"), environment: ["XDG_RUNTIME_DIR": "/run/user/1000"])
        #expect(otherHome != runtime)
    }

    @Test("the proof depends on the key, the nonce and the state file; a new key is 64 random hex digits")
    func proof() {
        let nonce = "00ff"
        var otherKey = good
        otherKey.key = String(repeating: "cd", count: 32)
        var otherState = good
        otherState.stateFile = "/elsewhere/demo.json"
        #expect(good.proof(nonce: nonce) == good.proof(nonce: nonce))
        #expect(good.proof(nonce: nonce) != good.proof(nonce: "00fe"))
        #expect(good.proof(nonce: nonce) != otherKey.proof(nonce: nonce))
        #expect(good.proof(nonce: nonce) != otherState.proof(nonce: nonce))
        let key = DemoRendezvous.newKey()
        #expect(key.count == 64 && key.allSatisfy(\.isHexDigit) && key != DemoRendezvous.newKey())
    }

    @Test("a served demo with a key proves it to a probe; one without, or with another key, does not")
    func probe() async throws {
        let stateFile = "/tmp/unitool-rendezvous-test/demo.json"
        let rendezvous = DemoRendezvous(port: 0, stateFile: stateFile)
        let demo = try await DemoUniversity.start(rendezvous: rendezvous)
        let port = try #require(demo.baseURL.port)
        var found = rendezvous
        found.port = port
        // A generous limit: the suite's other tests load the machine, and a slow answer is not the point.
        #expect(found.probe(within: .seconds(30)) == .proven)
        var impostor = DemoRendezvous(port: port, stateFile: stateFile)
        impostor.port = port
        #expect(impostor.probe(within: .seconds(30)) == .notProven("a wrong proof"), "a file with another key is not proven by this server")
        await demo.stop()
        // A stopped demo is never believed. (Whether its port refuses at once, or a loaded machine
        // still accepts on it for a moment, or another test has it by now, is the kernel's.)
        #expect(found.probe() != .proven)
        try await DemoUniversity.withRunning { keyless in
            let other = DemoRendezvous(port: try #require(keyless.baseURL.port), stateFile: stateFile)
            #expect(other.probe() != .proven, "a demo without a key proves nothing")
        }
    }
}

/// The demo's memory shared through `demo.json`, and the changes the command line makes to it.
@Suite("demo.json: changes from the command line, seen by a running demo")
struct DemoStateFileTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-demo-state-\(UUID().uuidString)")
    var file: URL { folder.appendingPathComponent("demo.json") }

    @Test("a running demo's state sees a grade posted and an absence recorded by another writer, and a reset")
    func sharedMemory() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let state = DemoState(termsVersion: "2026-09", stateFile: file)
        let alice = try #require(DemoData.user(named: "alice"))
        await state.renew(user: "alice", barcode: "31000103")
        let posted = try DemoStateFile(file).postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B")
        #expect(posted.points == 3.0 && posted.course == "Magyar irodalom a XX. században")
        let shown = await state.withPostedGrades(alice).grades["2026-fall"]?.first { $0.code == "HUN-250" }
        #expect(shown?.grade == "B")
        #expect(await state.renewalsDone(user: "alice", barcode: "31000103") == 1, "the other writer kept the demo's renewal")
        let absence = try DemoStateFile(file).recordAbsence(user: "alice", code: "CS-320")
        #expect(absence.left == 0)
        #expect(await state.absences(user: "alice", code: "CS-320").count == 1)
        try DemoStateFile(file).reset()
        #expect(await state.withPostedGrades(alice).grades["2026-fall"]?.first { $0.code == "HUN-250" }?.grade == nil)
        #expect(await state.renewalsDone(user: "alice", barcode: "31000103") == 0)
    }

    @Test("a demo whose file cannot be written keeps its own changes for as long as it runs; post-grade fails")
    func unwritable() async throws {
        // Below /dev/null, no folder can be made, whoever runs the test (root included).
        let file = URL(fileURLWithPath: "/dev/null/unitool/demo.json")
        let state = DemoState(termsVersion: "2026-09", stateFile: file)
        await state.renew(user: "alice", barcode: "31000103")
        await state.renew(user: "alice", barcode: "31000103")
        #expect(await state.renewalsDone(user: "alice", barcode: "31000103") == 2)
        #expect(throws: DemoChangeError.self) {
            try DemoStateFile(file).postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B")
        }
    }

    @Test("a demo.json that is not the demo's memory is never written over: a change fails, and the file stays as it was")
    func corruptFileIsKept() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let garbage = Data("{ not the demo's memory".utf8)
        try garbage.write(to: file)
        let error = #expect(throws: DemoChangeError.self) {
            try DemoStateFile(file).postGrade(user: "alice", term: "2026-fall", code: "HUN-250", grade: "B")
        }
        #expect(error?.description.contains("demo reset") == true, "\(String(describing: error))")
        // A running demo goes on in memory, and leaves the file alone too.
        let state = DemoState(termsVersion: "2026-09", stateFile: file)
        await state.renew(user: "alice", barcode: "31000103")
        #expect(await state.renewalsDone(user: "alice", barcode: "31000103") == 1)
        #expect(try Data(contentsOf: file) == garbage)
    }

    @Test("unknown users, terms and courses are named, with what the demo has; nothing is written")
    func unknown() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = DemoStateFile(file)
        #expect(throws: DemoChangeError.unknownUser("bob", known: DemoData.users.map(\.username))) {
            try store.postGrade(user: "bob", term: "2026-fall", code: "CS-320", grade: "A")
        }
        #expect(throws: DemoChangeError.unknownTerm("2030-fall", user: "alice", known: ["2025-fall", "2026-fall", "2026-spring"])) {
            try store.postGrade(user: "alice", term: "2030-fall", code: "CS-320", grade: "A")
        }
        #expect(throws: DemoChangeError.self) { try store.recordAbsence(user: "alice", code: "PHY-101") }
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test("every course's credits come from one table: the grades page and the syllabus agree (CS-320 had 5 and 2)")
    func creditsAgree() {
        for user in DemoData.users {
            for grade in user.grades.values.joined() {
                #expect(DemoData.credits[grade.code] != nil, "\(grade.code) has no credits")
            }
        }
        for syllabus in DemoStudentLife.syllabi {
            #expect(DemoData.credits[syllabus.code] != nil, "\(syllabus.code) has no credits")
        }
        let graded = DemoData.users[0].grades["2026-fall"]?.first { $0.code == "CS-320" }?.credits
        let listed = DemoStudentLife.syllabi.first { $0.code == "CS-320" }?.credits
        #expect(graded == 5 && listed == 5)
    }
}
