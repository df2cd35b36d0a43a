import Foundation
import Testing
import UniToolKit

@Suite("The values a portal last offered")
struct OfferedValuesStoreTests {
    func temporaryStore() -> OfferedValuesStore {
        OfferedValuesStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("values-\(UUID().uuidString)"))
    }

    @Test("values are kept per portal, command and option, privately, and read back")
    func roundTrip() throws {
        let store = temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.directory) }
        #expect(store.load(portal: "demo", command: "grades", option: "term") == nil)
        store.save(["2025-fall", "2026-spring"], portal: "demo", command: "grades", option: "term")
        #expect(store.load(portal: "demo", command: "grades", option: "term") == ["2025-fall", "2026-spring"])
        #expect(store.load(portal: "demo", command: "grades", option: "year") == nil)
        #expect(store.load(portal: "other", command: "grades", option: "term") == nil)
        let file = store.file(portal: "demo", command: "grades", option: "term")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test("an empty list is not kept, and a damaged file reads as nothing seen")
    func damaged() throws {
        let store = temporaryStore()
        defer { try? FileManager.default.removeItem(at: store.directory) }
        store.save([], portal: "demo", command: "grades", option: "term")
        #expect(store.load(portal: "demo", command: "grades", option: "term") == nil)
        store.save(["a"], portal: "demo", command: "grades", option: "term")
        try Data("{not json".utf8).write(to: store.file(portal: "demo", command: "grades", option: "term"))
        #expect(store.load(portal: "demo", command: "grades", option: "term") == nil)
    }

    @Test("a portal or command name cannot reach outside the folder")
    func safeNames() {
        let store = temporaryStore()
        let file = store.file(portal: "../../etc", command: "a/b", option: "..")
        #expect(file.path.hasPrefix(store.directory.path + "/"))
        #expect(!file.standardizedFileURL.path.contains("/etc/"))
    }
}
