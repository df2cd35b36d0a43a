import Foundation
import Testing
import UniToolKit

@Suite("Recent commands and pins")
struct ShortcutsTests {
    @Test("recent commands: the latest first, each once, five at most, per portal")
    func recent() {
        var shortcuts = Shortcuts()
        for line in ["grades", "loans", "news", "courses", "exams", "today", "loans"] { shortcuts.ran(line, portal: "uni") }
        #expect(shortcuts.recent["uni"] == ["loans", "today", "exams", "courses", "news"])
        shortcuts.ran("grades", portal: "demo")
        #expect(shortcuts.recent["demo"] == ["grades"] && shortcuts.recent["uni"]?.count == 5)
    }

    @Test("pins keep their order, once each; unpinning what is not pinned says so; the overview lists a pin once")
    func pins() {
        var shortcuts = Shortcuts()
        let first = shortcuts.pin("grades --term current", portal: "uni")
        let again = shortcuts.pin("grades --term current", portal: "uni")
        let second = shortcuts.pin("loans", portal: "uni")
        #expect(first && !again && second)
        #expect(shortcuts.pinned["uni"] == ["grades --term current", "loans"])
        shortcuts.ran("loans", portal: "uni")
        shortcuts.ran("news", portal: "uni")
        #expect(shortcuts.recentOnly(portal: "uni") == ["news"])
        let unpinned = shortcuts.unpin("loans", portal: "uni")
        let unpinnedAgain = shortcuts.unpin("loans", portal: "uni")
        #expect(unpinned && !unpinnedAgain)
        #expect(shortcuts.recentOnly(portal: "uni") == ["news", "loans"])
    }

    @Test("a command line is quoted so that a shell reads it back as it was")
    func quoting() {
        #expect(Shortcuts.line(["grades", "--term", "2026-fall"]) == "grades --term 2026-fall")
        #expect(Shortcuts.line(["news", "--category", "Campus life"]) == "news --category 'Campus life'")
        #expect(Shortcuts.line(["search", "it's"]) == "search 'it'\\''s'")
        #expect(Shortcuts.line(["search", "$(rm -rf ~)"]) == "search '$(rm -rf ~)'")
        #expect(Shortcuts.line(["x", ""]) == "x ''")
    }

    @Test("the store writes atomically and sets a damaged file aside instead of trusting it")
    func store() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("shortcuts-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = ShortcutsStore(file: folder.appendingPathComponent("shortcuts.json"))
        try store.update { $0.pin("grades", portal: "uni") }
        #expect(store.load().pinned["uni"] == ["grades"])
        try Data("{not json".utf8).write(to: store.file)
        #expect(store.load() == Shortcuts())
        #expect(FileManager.default.fileExists(atPath: store.file.path + ".damaged"))
    }
}
