import Foundation

/// The foreign portals of issue 48 (`../shared/foreign` beside the repository, as CI's fresh clone
/// has it, or `$UNITOOL_FOREIGN_DIR`), started and stopped through Scripts/foreign-portals.sh with
/// their state in a temporary folder of this test process: the shared folder is read-only in CI,
/// and one state folder per run lets `setup.sh` make each venv once.
public enum ForeignPortals {
    public static var folder: URL {
        if let override = ProcessInfo.processInfo.environment["UNITOOL_FOREIGN_DIR"] {
            return URL(fileURLWithPath: override)
        }
        return Fixtures.root.deletingLastPathComponent().appendingPathComponent("shared/foreign").standardizedFileURL
    }

    /// Whether the portals and their recordings are there.
    public static var available: Bool {
        FileManager.default.fileExists(atPath: folder.appendingPathComponent("recordings/README.md").path)
    }

    /// This run's FOREIGN_STATE: a temporary folder of this process (each portal's venv is made
    /// once per run), or `$FOREIGN_STATE` when set, to keep the venvs between runs.
    public static let state: URL = {
        if let given = ProcessInfo.processInfo.environment["FOREIGN_STATE"], !given.isEmpty {
            return URL(fileURLWithPath: given)
        }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-foreign-\(getpid())")
        try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }()

    static var script: URL { Fixtures.root.appendingPathComponent("Scripts/foreign-portals.sh") }

    static func run(_ action: String, _ portal: String) async throws -> UniToolProcess.Outcome {
        try await UniToolProcess.run(
            URL(fileURLWithPath: "/bin/bash"), [script.path, action, portal],
            environment: ["FOREIGN_STATE": state.path, "UNITOOL_FOREIGN_DIR": folder.path], timeout: 600)
    }

    /// Starts `portal` (its setup.sh, then start.sh, which returns once every port answers), runs
    /// `body`, and stops it whatever happens. A start that fails (a port taken, a package missing)
    /// throws with the scripts' own words.
    public static func withRunning<T>(_ portal: String, _ body: () async throws -> T) async throws -> T {
        let started = try await run("start", portal)
        guard started.exitCode == 0 else {
            _ = try? await run("stop", portal)
            throw Failure(description: "the foreign portal \(portal) did not start: \(started.stderr.suffix(1500))")
        }
        do {
            let result = try await body()
            _ = try await run("stop", portal)
            return result
        } catch {
            _ = try? await run("stop", portal)
            throw error
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// A command that prints the current TOTP code (RFC 6238: SHA-1, 6 digits, 30 s) of a base32
    /// secret, with python3's hmac alone, for UNITOOL_TOTP_COMMAND.
    public static func totpCommand(secret: String) -> String {
        let program =
            "import base64,hashlib,hmac,struct,time;"
            + "k=base64.b32decode('\(secret)');"
            + "h=hmac.new(k,struct.pack('>Q',int(time.time())//30),hashlib.sha1).digest();"
            + "o=h[-1]&15;"
            + "print('%06d'%((struct.unpack('>I',h[o:o+4])[0]&0x7fffffff)%1000000))"
        return "python3 -c \"\(program)\""
    }

    /// `UNITOOL_NOW` for a portal whose data is fixed to one day (expected.json's `today`, with
    /// its `timezone`): noon of that day in that zone, ISO 8601 with the offset, as `FixedClock`
    /// reads it. Every unitool run of a recording takes this as now, so what unitool derives from
    /// the day (a loan's `overdue`) is what the portal's day makes it, as expected.json gives it;
    /// noon keeps the day whatever zone unitool's own calendar uses. Without a `timezone`, noon
    /// UTC. Nil: no day, or one that is not `yyyy-MM-dd`.
    public static func now(today: String?, timeZone identifier: String?) -> String? {
        guard let today, today.range(of: #"^[0-9]{4}-[0-9]{2}-[0-9]{2}$"#, options: .regularExpression) != nil,
            let zone = identifier.map({ TimeZone(identifier: $0) }) ?? TimeZone(identifier: "UTC")
        else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = zone
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss"
        guard let noon = formatter.date(from: today + "T12:00:00") else { return nil }
        let offset = zone.secondsFromGMT(for: noon)
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        return formatter.string(from: noon) + String(format: "%@%02d:%02d", sign, minutes / 60, minutes % 60)
    }

    /// Whether a generated portal.yaml has a top-level `terms:` section.
    public static func hasTerms(portalYAML text: String) -> Bool {
        text.split(separator: "\n").contains { $0 == "terms:" || $0.hasPrefix("terms: ") }
    }

    /// A command's definition, read from a generated recipe file: what the comparison needs.
    public struct GeneratedCommand: Sendable {
        public let name: String
        public let service: String?
        public let fetch: String
        /// The command's first option (a term selector's), if it has any.
        public let option: String?
        /// Whether its `fetch` is a whole value read off another page (`"{{calendar_url}}"`): an
        /// address the portal hands out (a calendar export's), which no path in the folder names.
        public var fetchesAnAddressItReads: Bool {
            fetch.hasPrefix("{{") && fetch.hasSuffix("}}") && !fetch.dropFirst(2).dropLast(2).contains("{")
        }
    }

    /// The value of a top-level `key:` line of a generated YAML file (quoted or not).
    static func scalar(_ key: String, in text: String) -> String? {
        for line in text.split(separator: "\n") where line.hasPrefix("\(key):") {
            var value = line.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\""), value.hasSuffix("\""), value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// Reads a generated command file (its `command:`, `service:`, `fetch:` and first option).
    public static func command(yaml text: String) -> GeneratedCommand? {
        guard let name = scalar("command", in: text), let fetch = scalar("fetch", in: text) else { return nil }
        var option: String?
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let start = lines.firstIndex(of: "options:") {
            for line in lines[(start + 1)...] {
                if line.hasPrefix("    ") || line.trimmingCharacters(in: .whitespaces).hasPrefix("#") { continue }
                if line.hasPrefix("  "), let colon = line.firstIndex(of: ":") {
                    option = line[line.startIndex..<colon].trimmingCharacters(in: .whitespaces)
                }
                break
            }
        }
        return GeneratedCommand(name: name, service: scalar("service", in: text), fetch: fetch, option: option)
    }

    /// A generated portal.yaml's `base_url` and its services' (`name: { base_url: "…" }`).
    public static func bases(portalYAML text: String) -> (base: String?, services: [String: String]) {
        var services: [String: String] = [:]
        let regex = try? NSRegularExpression(
            pattern: #"^\s+([A-Za-z0-9_-]+):\s*\{\s*base_url:\s*"?([^"},\s]+)"?"#, options: [.anchorsMatchLines])
        let range = NSRange(text.startIndex..., in: text)
        for match in regex?.matches(in: text, range: range) ?? [] {
            if let name = Range(match.range(at: 1), in: text), let url = Range(match.range(at: 2), in: text) {
                services[String(text[name])] = String(text[url])
            }
        }
        return (scalar("base_url", in: text), services)
    }
}
