import Foundation
import Testing
import UniToolKit

@Suite("config.yaml: the user's defaults")
struct UserConfigTests {
    func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("unitool-config-\(UUID().uuidString)")
    }

    @Test("saved and read back in a fixed key order; a value that needs quoting survives")
    func roundTrip() throws {
        let file = folder().appendingPathComponent("config.yaml")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        let config = UserConfig(values: ["portal": "myuni", "format": "json"], users: ["myuni": "jdoe: the second", "demo": "yuki"])
        try config.save(to: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.range(of: "portal")!.lowerBound < text.range(of: "users")!.lowerBound)
        let loaded = try UserConfig.load(from: file)
        #expect(loaded == config)
        #expect(loaded.lines["users.myuni"] != nil && loaded.lines["portal"] == 2, "\(loaded.lines)")
        #expect(try UserConfig.load(from: file.deletingLastPathComponent().appendingPathComponent("none.yaml")) == UserConfig())
    }

    @Test("an unknown key or format is a usage error naming it, with the nearest key; anchors are refused")
    func invalid() throws {
        let dir = folder()
        defer { try? FileManager.default.removeItem(at: dir) }
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        for (text, expected) in [("portl: myuni\n", "portl"), ("format: xml\n", "xml"), ("a: &x myuni\nportal: *x\n", "alias")] {
            let file = dir.appendingPathComponent("\(UUID().uuidString).yaml")
            try text.write(to: file, atomically: true, encoding: .utf8)
            #expect {
                try UserConfig.load(from: file)
            } throws: { error in
                guard let error = error as? UniToolError, error.kind == .usage else { return false }
                return "\(error)".lowercased().contains(expected) || expected == "alias"
            }
        }
        #expect { try UserConfig.validate(key: "formt", value: "json") } throws: { ($0 as? UniToolError)?.kind == .usage }
        #expect { try UserConfig.validate(key: "format", value: "yaml") } throws: { ($0 as? UniToolError)?.kind == .usage }
        try UserConfig.validate(key: "format", value: "csv")
    }

    @Test("a user is per portal; an older top-level user belongs to the file's portal, never to the demo")
    func usersPerPortal() {
        let config = UserConfig(values: ["portal": "myuni"], users: ["other": "kim"], legacyUser: "jdoe")
        #expect(config.user(forPortal: "myuni", isDemo: false)?.user == "jdoe")
        #expect(config.user(forPortal: "other", isDemo: false)?.user == "kim")
        #expect(config.user(forPortal: "demo", isDemo: true) == nil)
        #expect(config.user(forPortal: "third", isDemo: false) == nil, "the legacy user is the file's portal's")
        let noPortal = UserConfig(legacyUser: "jdoe")
        #expect(noPortal.user(forPortal: "myuni", isDemo: false)?.key == "user")
        #expect(noPortal.user(forPortal: "demo", isDemo: true) == nil)
    }

    @Test("flags win over the environment, which wins over the file, and each says where it came from")
    func settingsOrder() {
        var config = UserConfig(values: ["portal": "myuni"], users: ["myuni": "jdoe"])
        config.lines = ["portal": 2, "users.myuni": 4]
        let file = Settings(environment: [:], config: config, configPath: "/c.yaml")
        #expect(file.portal == Setting("myuni", from: .file(path: "/c.yaml", line: 2)))
        #expect(file.user(forPortal: "myuni", isDemo: false) == Setting("jdoe", from: .file(path: "/c.yaml", line: 4)))
        #expect(file.user(forPortal: "demo", isDemo: true) == nil, "the demo never takes another portal's user")
        #expect("\(file.portal!.origin)" == "/c.yaml:2")

        let environment = Settings(
            environment: ["UNITOOL_PORTAL": "envuni", "UNITOOL_USER": "kim"], config: config, configPath: "/c.yaml")
        #expect(environment.portal == Setting("envuni", from: .environment("UNITOOL_PORTAL")))
        #expect(environment.user(forPortal: "demo", isDemo: true)?.origin == .environment("UNITOOL_USER"))
        #expect("\(environment.portal!.origin)" == "$UNITOOL_PORTAL")

        let flags = Settings(
            portalFlag: "flaguni", userFlag: "lee", environment: ["UNITOOL_USER": "kim"], config: config, configPath: "config.yaml")
        #expect(flags.portal == Setting("flaguni", from: .flag("--portal")))
        #expect(flags.user(forPortal: "myuni", isDemo: false) == Setting("lee", from: .flag("--user")))
        #expect(
            Settings(environment: ["UNITOOL_PORTAL": ""], config: UserConfig(), configPath: "config.yaml").portal == nil,
            "an empty variable is unset")
    }

    @Test("every key unset in turn leaves a file that reads back")
    func unsetEveryKey() throws {
        let file = folder().appendingPathComponent("config.yaml")
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        var config = UserConfig(values: ["portal": "myuni", "format": "csv"], users: ["myuni": "jdoe"], legacyUser: "old")
        try config.save(to: file)
        for change in [{ (c: inout UserConfig) in c["portal"] = nil }, { $0.users = [:] }, { $0["format"] = nil }, { $0.legacyUser = nil }]
        {
            change(&config)
            try config.save(to: file)
            #expect(try UserConfig.load(from: file) == config)
        }
        #expect(try UserConfig.load(from: file) == UserConfig())
    }
}
