import Foundation

/// A real browser recording a login, for the tests of `recipes new --from-har`: Debian's
/// chromium (`/usr/bin/chromium`) driven by Playwright from PyPI (in the interop venv,
/// Scripts/interop-venv.sh), through Scripts/record-login.py, which plays the person.
public enum BrowserRecorder {
    public static let browser = "/usr/bin/chromium"

    /// Whether chromium and Playwright are here.
    public static var isInstalled: Bool {
        let venv = URL(fileURLWithPath: InteropPython.path).deletingLastPathComponent().deletingLastPathComponent()
        let lib = venv.appendingPathComponent("lib")
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []
        let playwright = versions.contains {
            FileManager.default.fileExists(atPath: lib.appendingPathComponent("\($0)/site-packages/playwright").path)
        }
        return FileManager.default.isExecutableFile(atPath: browser) && playwright
    }

    /// False only when they are missing and the run asked to skip interop tests
    /// (`UNITOOL_SKIP_INTEROP=1`); otherwise a missing browser fails the tests that need it.
    public static var isAvailableOrRequired: Bool {
        Needs.check(isInstalled || ProcessInfo.processInfo.environment["UNITOOL_SKIP_INTEROP"] != "1", "chromium and Playwright")
    }

    /// What the person does after the login, in order: open an address, type into a field, press
    /// a link or a button (a CSS selector each).
    public enum Step: Sendable {
        case open(String)
        case fill(String, String)
        case click(String)
    }

    /// Records a login from `start` until `done` (a CSS selector) shows, then each of `then`,
    /// then each of `steps`, into the HAR file `to`. The password goes to the recorder on stdin.
    /// `wrong`: the password is a wrong one, and the recording ends when the login page comes
    /// back after it.
    public static func record(
        start: URL, user: String, password: String, done: String, then: [String] = [], steps: [Step] = [], clicks: [String] = [],
        totpSecret: String? = nil, totpPeriod: Int = 30, wrong: Bool = false, to har: URL, timeout: TimeInterval = 90
    ) async throws {
        // One browser at a time: a Chromium is several processes, and two recordings at once on
        // a machine of two cores left each one's first page load waiting past its limit. The
        // limit counts from the recording's own start, not from the wait for its turn.
        await browserSlot.acquire()
        do {
            try await recordNow(
                start: start, user: user, password: password, done: done, then: then, steps: steps, clicks: clicks,
                totpSecret: totpSecret, totpPeriod: totpPeriod, wrong: wrong, to: har, timeout: timeout)
        } catch {
            await browserSlot.release()
            throw error
        }
        await browserSlot.release()
    }

    /// Takes turns: the recordings of one test process, one after the other.
    private actor Turns {
        private var busy = false
        private var waiting: [CheckedContinuation<Void, Never>] = []

        func acquire() async {
            guard busy else {
                busy = true
                return
            }
            await withCheckedContinuation { waiting.append($0) }
        }

        func release() {
            if waiting.isEmpty { busy = false } else { waiting.removeFirst().resume() }
        }
    }

    private static let browserSlot = Turns()

    private static func recordNow(
        start: URL, user: String, password: String, done: String, then: [String], steps: [Step], clicks: [String],
        totpSecret: String?, totpPeriod: Int, wrong: Bool, to har: URL, timeout: TimeInterval
    ) async throws {
        guard isInstalled else {
            throw RecorderFailure(message: "no chromium at \(browser) or no Playwright in \(InteropPython.path): run Scripts/test.sh")
        }
        var arguments = [
            Fixtures.root.appendingPathComponent("Scripts/record-login.py").path, "--start", start.absoluteString, "--user", user,
            "--done", done, "--har", har.path, "--browser", browser,
        ]
        for address in then { arguments += ["--then", address] }
        for step in steps {
            switch step {
            case .open(let address): arguments += ["--then", address]
            case .fill(let css, let value): arguments += ["--then-fill", "\(css)=\(value)"]
            case .click(let css): arguments += ["--then-click", css]
            }
        }
        for click in clicks { arguments += ["--click", click] }
        // The password is a wrong one: the recording ends when the login page comes back.
        if wrong { arguments.append("--wrong") }
        if let totpSecret { arguments += ["--totp-secret", totpSecret, "--totp-period", String(totpPeriod)] }
        let folder = har.deletingLastPathComponent()
        let input = folder.appendingPathComponent(".recorder-stdin")
        let errors = folder.appendingPathComponent(".recorder-stderr")
        try Data((password + "\n").utf8).write(to: input)
        FileManager.default.createFile(atPath: errors.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: input) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: InteropPython.path)
        process.arguments = arguments
        // Files, not pipes: the browser's own processes inherit what the recorder has open, and
        // a pipe they hold would keep a reader waiting after the recorder ended.
        process.standardInput = try FileHandle(forReadingFrom: input)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        // The wait blocks, so it gets a thread of its own, not one of the concurrency pool's.
        let status = await withCheckedContinuation { finished in
            Thread.detachNewThread { finished.resume(returning: UniToolProcess.exitStatus(of: process, timeout: timeout)) }
        }
        let stderr = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
        guard status == 0 else { throw RecorderFailure(message: "record-login.py exited \(status): \(stderr)") }
    }

    public struct RecorderFailure: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }

    /// The secrets of a HAR, read from it independently of unitool's own reading: the password,
    /// every cookie value, and the values of the fields and parameters that carry SAML messages,
    /// tickets, one-time codes and CSRF tokens (each at least 6 characters, so that a short
    /// value such as `e1s1` is not taken for one).
    public static func secrets(in har: URL, password: String) throws -> [String] {
        let root = try JSONSerialization.jsonObject(with: Data(contentsOf: har)) as? [String: Any]
        let entries = (root?["log"] as? [String: Any])?["entries"] as? [[String: Any]] ?? []
        var secrets: Set<String> = [password]
        let secretNames: Set<String> = [
            "samlresponse", "samlrequest", "relaystate", "ticket", "csrf_token", "token", "tokencode", "j_tokennumber", "otp", "code",
            "session_code", "execution", "client_data", "tab_id", "lt", "csrfmiddlewaretoken",
        ]
        // A RelayState that is only where the browser is going (`/portal/`, the portal's own
        // address with no query) is no secret: it is the recipe's own start, and issue 48 has it
        // written. An opaque one (`ss:mem:…`) or one with a query still is.
        func isPlainTarget(_ name: String, _ value: String) -> Bool {
            guard name.lowercased() == "relaystate", !value.contains("?") else { return false }
            return value.hasPrefix("/") || value.hasPrefix("http://") || value.hasPrefix("https://")
        }
        func pairs(_ value: Any?) -> [(String, String)] {
            (value as? [[String: Any]] ?? []).compactMap { pair in
                (pair["name"] as? String).map { ($0, pair["value"] as? String ?? "") }
            }
        }
        for entry in entries {
            let request = entry["request"] as? [String: Any] ?? [:]
            let response = entry["response"] as? [String: Any] ?? [:]
            for (_, value) in pairs(request["cookies"]) + pairs(response["cookies"]) { secrets.insert(value) }
            for (name, value) in pairs(request["headers"]) + pairs(response["headers"]) {
                switch name.lowercased() {
                case "cookie":
                    for part in value.split(separator: ";") {
                        if let cookie = part.split(separator: "=", maxSplits: 1).dropFirst().first { secrets.insert(String(cookie)) }
                    }
                case "set-cookie":
                    if let cookie = value.split(separator: ";").first?.split(separator: "=", maxSplits: 1).dropFirst().first {
                        secrets.insert(String(cookie))
                    }
                default: break
                }
            }
            let posted = pairs((request["postData"] as? [String: Any])?["params"]) + pairs(request["queryString"])
            for (name, value) in posted where secretNames.contains(name.lowercased()) && !isPlainTarget(name, value) {
                secrets.insert(value)
            }
        }
        return secrets.filter { $0.count >= 6 }.sorted()
    }
}
