import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// `AtomicFile` promises that a reader sees the old content or the new, never half of it, even
/// if unitool is killed midway. Here the real executable writes a large file through it (a
/// trace with a 12 MB page in it) and is killed with SIGKILL the moment the write shows on disk.
@Suite("Atomic writes: a unitool killed while writing leaves the old file whole", .timeLimit(.minutes(3)))
struct AtomicWriteTests {
    let sandbox: Sandbox

    init() throws {
        sandbox = try Sandbox()
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
    }

    /// What one run of unitool came to.
    enum Ending: Equatable {
        /// It finished by itself.
        case finished
        /// It was killed after the write began (a new file beside the target, or the target
        /// itself changed).
        case killed
    }

    /// Starts `unitool --trace <trace> ... grades` and, if `killing`, kills it with SIGKILL as soon
    /// as something new shows in the trace's folder: a temporary file appears, or the target's
    /// size, inode or time changes. Waits on a thread of its own, never on Swift's pool, on
    /// which the demo in this process answers.
    func run(writing trace: URL, demo: DemoUniversity, killing: Bool) async throws -> Ending {
        let environment = ProcessInfo.processInfo.environment.merging(sandbox.environment) { $1 }.merging([
            "UNITOOL_DEMO_URL": demo.baseURL.absoluteString, "NO_COLOR": "1",
        ]) { $1 }
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        let process = Process()
                        process.executableURL = UniToolProcess.executable
                        process.arguments = ["--trace", trace.path, "--trace-bodies", "--portal", "demo", "grades"]
                        process.environment = environment
                        process.standardOutput = FileHandle.nullDevice
                        process.standardError = FileHandle.nullDevice
                        let before = Self.look(at: trace)
                        try process.run()
                        let deadline = Date().addingTimeInterval(90)
                        var ending = Ending.finished
                        while killing && process.isRunning && Date() < deadline {
                            // Something new: a temporary file, or the target changed. (A stale
                            // copy swept away is no sign of the write.)
                            if !Self.look(at: trace).isSubset(of: before) {
                                kill(process.processIdentifier, SIGKILL)
                                ending = .killed
                                break
                            }
                            usleep(100)
                        }
                        _ = UniToolProcess.exitStatus(of: process, timeout: 90)
                        return ending
                    })
            }
        }
    }

    /// The names in the trace's folder, and the target's size, inode and modification time.
    static func look(at trace: URL) -> Set<String> {
        let folder = trace.deletingLastPathComponent()
        var names = Set((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
        var status = stat()
        if stat(trace.path, &status) == 0 {
            names.insert("size \(status.st_size) inode \(status.st_ino) time \(status.st_mtim.tv_sec).\(status.st_mtim.tv_nsec)")
        }
        return names
    }

    /// Whether `data` is a whole trace: JSON with the page that the run fetched.
    static func isWholeTrace(_ data: Data) -> Bool {
        guard let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let log = document["log"] as? [String: Any], let entries = log["entries"] as? [[String: Any]]
        else { return false }
        return entries.contains { entry in
            let response = entry["response"] as? [String: Any]
            let content = response?["content"] as? [String: Any]
            return ((content?["text"] as? String)?.utf8.count ?? 0) > 12_000_000 - 100
        }
    }

    @Test(
        "killed with SIGKILL while writing a 12 MB trace, over and over: the file is the old one or a new one, whole; the copies left are swept"
    )
    func killedMidWrite() async throws {
        // Data pages of 12 MB, which the trace keeps whole (--trace-bodies).
        let demo = try await DemoUniversity.start(faults: try DemoFaults(parsing: "huge-page=12"))
        let result = await Result {
            let folder = sandbox.root.appendingPathComponent("traces")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let trace = folder.appendingPathComponent("run.har")
            #expect(try await run(writing: trace, demo: demo, killing: false) == .finished)
            var previous = try Data(contentsOf: trace)
            #expect(Self.isWholeTrace(previous), "the first run wrote a whole trace")

            // Kill runs until two were killed before their rename; a run whose rename came first
            // left a new whole file, which is the other allowed outcome.
            var killedBeforeRename = 0
            var attempts = 0
            while killedBeforeRename < 2 && attempts < 8 {
                attempts += 1
                let ending = try await run(writing: trace, demo: demo, killing: true)
                let now = try Data(contentsOf: trace)
                if now == previous {
                    if ending == .killed { killedBeforeRename += 1 }
                } else {
                    #expect(
                        Self.isWholeTrace(now), "after run \(attempts) (\(ending)) the trace is neither the old file nor a whole new one")
                    previous = now
                }
                // What a killed write leaves is a hidden temporary copy, never the target's name.
                for name in try FileManager.default.contentsOfDirectory(atPath: folder.path) where name != "run.har" {
                    #expect(
                        name.hasPrefix(".run.har.") && name.hasSuffix(".tmp"),
                        "\(name) was left beside the trace, where it could be read as it")
                }
            }
            #expect(killedBeforeRename >= 1, "in \(attempts) runs no kill came between the write and the rename")

            // The next write sweeps the copies that killed processes left behind.
            #expect(try await run(writing: trace, demo: demo, killing: false) == .finished)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["run.har"])
            #expect(Self.isWholeTrace(try Data(contentsOf: trace)))
        }
        await demo.stop()
        sandbox.remove()
        try result.get()
    }
}
