import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

/// A demo of one's own (issue 50): `unitool demo serve` is found only by the commands of the same
/// user and state directory, through its rendezvous file, never by a well-known port; and the
/// demo's state is changed from the command line (`demo post-grade`, `record-absence`, `reset`),
/// whether or not a demo is serving. The real executable, since processes finding each other
/// through files is the point.
@Suite("demo serve is found only by its own user and state; demo post-grade, record-absence and reset")
struct DemoServeTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    /// What `-v` logs when a command uses a served demo.
    static let usedServed = "using the demo university that 'unitool demo serve' runs at"

    /// Starts `unitool demo serve` in `sandbox` and waits until it prints its address, which it
    /// does once its rendezvous file is written.
    static func serve(in sandbox: Sandbox, extra: [String: String] = [:]) async throws -> (RPCClientProcess, URL) {
        let server = try await RPCClientProcess.start(
            command: "demo", arguments: ["serve"], environment: sandbox.environment.merging(extra) { $1 })
        let deadline = Date().addingTimeInterval(30)
        var address = ""
        while address.isEmpty, !server.stderr.contains("error"), Date() < deadline {
            address = server.stdout.split(separator: "\n").first.map(String.init) ?? ""
            if address.isEmpty { try await Task.sleep(for: .milliseconds(20)) }
        }
        let url = try #require(URL(string: address), "demo serve printed no address: \(server.stderr)")
        return (server, url)
    }

    /// The rendezvous files in a sandbox's runtime folder.
    func rendezvousFiles(_ sandbox: Sandbox) -> [URL] {
        let folder = sandbox.root.appendingPathComponent("runtime/unitool")
        return ((try? FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)) ?? [])
            .filter { $0.lastPathComponent.hasPrefix("demo-serve-") }
    }

    @Test(
        "a command of the same HOME uses demo serve; a second HOME's does not, even sharing XDG_RUNTIME_DIR; the file goes when serve stops"
    )
    func ownDemoOnly() async throws {
        let other = try Sandbox()
        try other.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        defer {
            sandbox.remove()
            other.remove()
        }
        let (server, address) = try await Self.serve(in: sandbox)
        defer { server.terminate() }
        #expect(address.host == "127.0.0.1" && address.port != 28080, "\(address)")
        let files = rendezvousFiles(sandbox)
        #expect(files.count == 1, "\(files)")
        if let file = files.first {
            let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        }

        let own = try await sandbox.run(["-v", "--portal", "demo", "news", "--json"])
        #expect(own.exitCode == 0 && own.stderr.contains("\(Self.usedServed) \(address.absoluteString)"), "\(own)")

        let second = try await other.run(["-v", "--portal", "demo", "news", "--json"])
        #expect(second.exitCode == 0 && !second.stderr.contains(Self.usedServed), "\(second)")
        // The same runtime folder, another state directory: the file is named after the state, so not found.
        let sharing = try await other.run(
            ["-v", "--portal", "demo", "news", "--json"], extra: ["XDG_RUNTIME_DIR": sandbox.root.appendingPathComponent("runtime").path])
        #expect(sharing.exitCode == 0 && !sharing.stderr.contains(Self.usedServed), "\(sharing)")

        // A second serve of the same state is refused in words; of another state, it starts.
        let again = try await sandbox.run(["demo", "serve"])
        #expect(again.exitCode == 64 && again.stderr.contains("already serves"), "\(again)")

        server.terminate()
        #expect(await server.waitForExit() != nil, "demo serve stops on SIGTERM")
        #expect(rendezvousFiles(sandbox).isEmpty, "demo serve removes its file when it stops")
    }

    @Test("demo serve --port on a port another program holds is refused in words, exit 64, and leaves no rendezvous file")
    func portTaken() async throws {
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning { other in
            let port = try #require(other.baseURL.port)
            let outcome = try await sandbox.run(["demo", "serve", "--port", String(port)])
            #expect(outcome.exitCode == 64 && outcome.stderr.contains("cannot listen on port \(port)"), "\(outcome)")
            #expect(rendezvousFiles(sandbox).isEmpty)
        }
    }

    /// Writes a rendezvous file into the sandbox's runtime folder, as `demo serve` would, with
    /// what a test wants in it.
    func plant(_ rendezvous: DemoRendezvous, mode: Int = 0o600, folderMode: Int = 0o700) throws -> URL {
        let stateFile = sandbox.root.appendingPathComponent("state/unitool/demo.json")
        let location = DemoRendezvous.location(
            stateFile: stateFile, environment: ["XDG_RUNTIME_DIR": sandbox.root.appendingPathComponent("runtime").path])
        try rendezvous.publish(at: location)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: location.path)
        try FileManager.default.setAttributes([.posixPermissions: folderMode], ofItemAtPath: location.deletingLastPathComponent().path)
        return location
    }

    var stateFilePath: String { sandbox.root.appendingPathComponent("state/unitool/demo.json").standardizedFileURL.path }

    @Test("a stale rendezvous file (its process gone, or nothing listening) is ignored and removed; the command starts its own demo")
    func staleFile() async throws {
        defer { sandbox.remove() }
        let port = try InteropPeer.unusedPort()
        for rendezvous in [
            DemoRendezvous(port: port, pid: Int32.max - 1, stateFile: stateFilePath),
            DemoRendezvous(port: port, pid: getpid(), stateFile: stateFilePath),
        ] {
            let location = try plant(rendezvous)
            let outcome = try await sandbox.run(["-v", "--portal", "demo", "news", "--json"])
            #expect(outcome.exitCode == 0 && !outcome.stderr.contains(Self.usedServed), "\(outcome)")
            #expect(outcome.stderr.contains("removed a stale demo rendezvous file"), "\(outcome)")
            #expect(!FileManager.default.fileExists(atPath: location.path), "the stale file is gone")
        }
    }

    @Test("a planted file pointing at someone else's server, or open to others, is not used")
    func plantedFile() async throws {
        defer { sandbox.remove() }
        // Someone else's server: a demo that does not hold the file's key, alive and listening.
        try await DemoUniversity.withRunning { foreign in
            let port = try #require(foreign.baseURL.port)
            let location = try plant(DemoRendezvous(port: port, pid: getpid(), stateFile: stateFilePath))
            let outcome = try await sandbox.run(["-v", "--portal", "demo", "news", "--json"])
            #expect(outcome.exitCode == 0 && !outcome.stderr.contains(Self.usedServed), "\(outcome)")
            #expect(outcome.stderr.contains("is not this demo"), "\(outcome)")
            #expect(await foreign.requests.allSatisfy { $0.path.hasPrefix(DemoRendezvous.proofPath) }, "only the proof was asked of it")

            // Our own server's file, but readable by others, or in a folder others may write: refused.
            let (server, address) = try await Self.serve(in: sandbox)
            defer { server.terminate() }
            let served = try #require(rendezvousFiles(sandbox).first)
            for (mode, folderMode) in [(0o644, 0o700), (0o600, 0o777)] {
                try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: served.path)
                try FileManager.default.setAttributes(
                    [.posixPermissions: folderMode], ofItemAtPath: served.deletingLastPathComponent().path)
                let refused = try await sandbox.run(["-v", "--portal", "demo", "news", "--json"])
                #expect(refused.exitCode == 0 && !refused.stderr.contains(Self.usedServed), "\(mode) \(folderMode): \(refused)")
                #expect(refused.stderr.contains("ignored a demo rendezvous file"), "\(refused)")
            }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: served.path)
            try FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: served.deletingLastPathComponent().path)
            let trusted = try await sandbox.run(["-v", "--portal", "demo", "news", "--json"])
            #expect(trusted.stderr.contains("\(Self.usedServed) \(address.absoluteString)"), "\(trusted)")
            #expect(served == location, "serve replaced the planted file with its own")
        }
    }

    /// The grade of `code` in `grades --term 2026-fall --json`.
    func grade(_ code: String, extra: [String: String] = [:]) async throws -> String? {
        let outcome = try await sandbox.run(["--portal", "demo", "grades", "--term", "2026-fall", "--json"], extra: extra)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(outcome.stdout.utf8)) as? [[String: Any]], "\(outcome)")
        return rows.first { $0["code"] as? String == code }?["grade"] as? String
    }

    @Test("demo post-grade shows in --portal demo grades, with and without demo serve running; demo reset restores the start")
    func postGradeAndReset() async throws {
        defer { sandbox.remove() }
        #expect(try await grade("HUN-250") == nil, "HUN-250 has no grade at the start")
        let posted = try await sandbox.run(["demo", "post-grade", "alice", "2026-fall", "HUN-250", "B", "--json"])
        #expect(posted.exitCode == 0, "\(posted)")
        let answer = try #require(try JSONSerialization.jsonObject(with: Data(posted.stdout.utf8)) as? [String: Any], "\(posted)")
        #expect(answer["course"] as? String == "Magyar irodalom a XX. században" && answer["points"] as? Double == 3.0, "\(answer)")
        #expect(try await grade("HUN-250") == "B", "the command's own demo shows the grade")

        // A running demo sees a change made while it serves, at its next request.
        let (server, _) = try await Self.serve(in: sandbox)
        defer { server.terminate() }
        #expect(try await grade("HUN-250") == "B")
        #expect(try await sandbox.run(["demo", "post-grade", "alice", "2026-fall", "CS-340", "A-"]).exitCode == 0)
        let served = try await sandbox.run(["-v", "--portal", "demo", "grades", "--term", "2026-fall"])
        #expect(served.stderr.contains(Self.usedServed), "\(served)")
        #expect(try await grade("CS-340") == "A-", "demo serve shows a grade posted while it runs")

        let absence = try await sandbox.run(["demo", "record-absence", "alice", "CS-320"])
        #expect(absence.exitCode == 0 && absence.stdout.contains("0 absences left"), "\(absence)")

        let reset = try await sandbox.run(["demo", "reset"])
        #expect(reset.exitCode == 0, "\(reset)")
        let afterReset = (try await grade("HUN-250"), try await grade("CS-340"))
        #expect(afterReset.0 == nil && afterReset.1 == nil, "reset restores the start, in the served demo")
        server.terminate()
        _ = await server.waitForExit()
        #expect(try await grade("HUN-250") == nil, "and in a command's own")
    }

    @Test("WATCH.md's walk-through: a grade posted with demo post-grade makes watch grades fire, naming the course and the grade")
    func watchFires() async throws {
        defer { sandbox.remove() }
        let watch = ["--portal", "demo", "watch", "grades", "--term", "current"]
        let baseline = try await sandbox.run(watch)
        #expect(baseline.exitCode == 0 && baseline.stdout.isEmpty, "the first run is the baseline: \(baseline)")
        #expect(try await sandbox.run(["demo", "post-grade", "alice", "2026-fall", "HUN-250", "B"]).exitCode == 0)
        let fired = try await sandbox.run(watch)
        #expect(fired.exitCode == 0, "\(fired)")
        let event = try #require(
            try JSONSerialization.jsonObject(with: Data((fired.stdout.split(separator: "\n").first ?? "").utf8)) as? [String: Any],
            "\(fired)")
        #expect(event["event"] as? String == "changed" && event["key"] as? String == "2026-fall/HUN-250", "\(event)")
        let summary = event["summary"] as? String ?? ""
        #expect(summary.contains("Magyar irodalom a XX. században") && summary.contains("B"), "\(summary)")
    }

    @Test("demo post-grade and record-absence name what the demo lacks, exit 53, with what it has; a bad value is a usage error")
    func unknownNames() async throws {
        defer { sandbox.remove() }
        let cases: [([String], String, String)] = [
            (["post-grade", "bob", "2026-fall", "CS-320", "A"], "no user 'bob'", "alice, bence"),
            (["post-grade", "alice", "2030-fall", "CS-320", "A"], "no term '2030-fall'", "2026-fall"),
            (["post-grade", "alice", "2026-fall", "PHY-101", "A"], "no course 'PHY-101' in 2026-fall", "HUN-250"),
            (["record-absence", "alice", "PHY-101"], "no attendance list for 'PHY-101'", "CS-320"),
        ]
        for (arguments, message, known) in cases {
            let outcome = try await sandbox.run(["demo"] + arguments)
            #expect(outcome.exitCode == 53, "\(arguments): \(outcome)")
            #expect(outcome.stderr.contains(message) && outcome.stderr.contains(known), "\(outcome)")
        }
        let badDate = try await sandbox.run(["demo", "post-grade", "alice", "2026-fall", "CS-340", "A", "--date", "2026-13-40"])
        #expect(badDate.exitCode == 64 && badDate.stderr.contains("--date"), "\(badDate)")
        #expect(!FileManager.default.fileExists(atPath: stateFilePath), "nothing was written")
    }
}
