import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

@testable import BrowserDriver

/// The driver against Debian's Chromium, headless: the protocol over the pipe, no port, and
/// nothing left behind.
@Suite(
    "Chromium over --remote-debugging-pipe", .serialized,
    .enabled(if: Needs.check(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium")))
struct ChromiumTests {
    static func options(in folder: URL) -> BrowserOptions {
        BrowserOptions(executable: "/usr/bin/chromium", headless: true, profilesFolder: folder)
    }

    /// The processes of the browser: its process group, and any process naming its profile.
    static func processes(of browser: Chromium) -> [pid_t] {
        let marker = Array(browser.profile.path.utf8)
        return ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { entry in
            guard let pid = pid_t(entry) else { return nil }
            let stat = (try? String(contentsOfFile: "/proc/\(entry)/stat", encoding: .utf8)) ?? ""
            // After the command's closing parenthesis: state, parent, process group.
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            let group = fields.count > 2 ? pid_t(fields[2]) : nil
            // A process killed a moment ago that its new parent has not reaped yet is gone.
            if fields.first == "Z" { return nil }
            let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline").map(Array.init) ?? []
            return group == browser.processID || commandLine.firstRange(of: marker) != nil ? pid : nil
        }
    }

    /// The process ids that listen on a TCP port, as `ss -ltnp` shows them.
    /// Run on a thread of its own: the test's demo serves the browser from the same small pool
    /// of threads that an awaited call must not block.
    static func listeners() async throws -> Set<pid_t> {
        let outcome = try await UniToolProcess.run(URL(fileURLWithPath: "/usr/bin/ss"), ["-ltnpH"])
        let pattern = #/pid=(\d+)/#
        return Set(outcome.stdout.matches(of: pattern).compactMap { pid_t($0.1) })
    }

    @Test("a visit to the demo reads its login page; the browser listens on no port; afterwards no process and no profile remain")
    func visit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let seen = Locked<(loginForm: Bool, listening: Set<pid_t>, processes: [pid_t])>((false, [], []))
        let kept = Locked<Chromium?>(nil)
        try await DemoUniversity.withRunning { demo in
            try await Chromium.withBrowser(Self.options(in: folder)) { browser in
                kept.mutex.withLock { $0 = browser }
                let visit = BrowserVisit(start: demo.baseURL.appendingPathComponent("home"), hook: nil, timeLimit: .seconds(300))
                _ = try await visit.run(in: browser) { tab, wake in
                    // A page as soon as it has loaded its form: a wake can come while it loads.
                    guard wake != .closed, let page = try await tab.snapshot(), page.url.contains("/idp/"),
                        page.markup.contains("name=\"j_username\"")
                    else { return false }
                    let processes = Self.processes(of: browser)
                    let listening = try await Self.listeners()
                    seen.mutex.withLock { $0 = (page.markup.contains("name=\"j_username\""), listening, processes) }
                    return true
                }
            }
        }
        let (loginForm, listening, processes) = seen.value
        #expect(loginForm, "the tab shows the IdP's user ID form")
        #expect(!processes.isEmpty)
        #expect(listening.isDisjoint(with: processes), "a browser process listens on a TCP port: \(listening.intersection(processes))")
        let browser = try #require(kept.value)
        #expect(!FileManager.default.fileExists(atPath: browser.profile.path), "the profile is removed")
        // SIGKILL is delivered at once, but a process takes a moment to end.
        #expect(await eventually { Self.processes(of: browser).isEmpty }, "no process of the browser is left")
    }

    @Test("the test hook runs in the page, and its call ends the visit")
    func hook() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let said = Locked<String?>(nil)
        try await DemoUniversity.withRunning { demo in
            try await Chromium.withBrowser(Self.options(in: folder)) { browser in
                let hook = #"if (window.top === window) addEventListener("load", () => unitoolHook("done " + document.title));"#
                let visit = BrowserVisit(start: demo.baseURL.appendingPathComponent("terms"), hook: hook, timeLimit: .seconds(300))
                _ = try await visit.run(in: browser) { _, wake in
                    guard case .hook(let text) = wake else { return false }
                    said.mutex.withLock { $0 = text }
                    return true
                }
            }
        }
        #expect(said.value?.hasPrefix("done ") == true, "\(String(describing: said.value))")
    }
}
