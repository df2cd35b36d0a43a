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
        let config = UserConfig(values: ["user": "jdoe: the second", "portal": "myuni", "format": "json"])
        try config.save(to: file)
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.range(of: "portal")!.lowerBound < text.range(of: "user")!.lowerBound)
        #expect(try UserConfig.load(from: file) == config)
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
        #expect(throws: UniToolError.self) { try UserConfig.validate(key: "formt", value: "json") }
        #expect(throws: UniToolError.self) { try UserConfig.validate(key: "format", value: "yaml") }
        try UserConfig.validate(key: "format", value: "csv")
    }
}
