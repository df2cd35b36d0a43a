import Foundation
import Testing
import UniToolKit

/// `watch ... --save` and `watch remove`: one watch in or out of watches.yaml's text, the
/// person's other lines kept, and every result read back by the loader that `watch --all` uses.
@Suite("Saving and removing a watch in watches.yaml")
struct WatchFileEditTests {
    static let file = "/home/alice/.config/unitool/watches.yaml"

    func entry(_ name: String, command: String? = nil, options: [String: String] = [:], exec: String? = nil) -> WatchFile.Entry {
        WatchFile.Entry(
            name: name, portal: nil, command: command ?? name, options: options, source: nil, every: .seconds(3600), exec: exec,
            webhookCommand: nil, notify: false, dueWithin: nil, announceExisting: false)
    }

    static let handWritten = """
        # my watches
        watches:
          grades:
            command: grades   # the current term
            options: { term: current }
            every: 1h

          # books: twice a day
          loans:
            command: loans
            every: 12h
            due_within: 3d
        """

    @Test("the first save writes a file the loader reads back as that one watch")
    func firstSave() throws {
        let saved = try WatchFileEdit.saving(entry("grades", options: ["term": "2026-fall"]), in: nil, file: Self.file)
        #expect(!saved.replaced)
        let read = try WatchFile.parse(saved.text, file: Self.file)
        #expect(read.entries == [entry("grades", options: ["term": "2026-fall"])])
    }

    @Test("a new watch goes after the others; their lines and comments stay as they were")
    func addKeepsTheRest() throws {
        var news = entry("news", exec: "notify-send \"$UNITOOL_EVENT_SUMMARY\" 'it''s' \\ done")
        news.notify = true
        news.every = .seconds(6 * 3600)
        news.webhookFormat = .ntfy
        let saved = try WatchFileEdit.saving(news, in: Self.handWritten, file: Self.file)
        #expect(!saved.replaced)
        #expect(saved.text.hasPrefix(Self.handWritten + "\n"), "\(saved.text)")
        let read = try WatchFile.parse(saved.text, file: Self.file).entries
        #expect(read.map(\.name) == ["grades", "loans", "news"])
        #expect(read.last == news, "the exec command's quotes and backslash survive the round trip")
    }

    @Test("saving a name again replaces only that watch's lines, in place")
    func replaceInPlace() throws {
        let saved = try WatchFileEdit.saving(entry("grades", options: ["term": "2025-spring"]), in: Self.handWritten, file: Self.file)
        #expect(saved.replaced)
        let read = try WatchFile.parse(saved.text, file: Self.file).entries
        #expect(read.map(\.name) == ["grades", "loans"])
        #expect(read.first?.options == ["term": "2025-spring"])
        #expect(saved.text.contains("# my watches\n") && saved.text.contains("  # books: twice a day\n  loans:\n"), "\(saved.text)")
        #expect(!saved.text.contains("the current term"), "the replaced watch's own lines are gone")
    }

    @Test("removing a watch keeps the others and their comments; the last one leaves no file")
    func remove() throws {
        let removed = try #require(try WatchFileEdit.removing("grades", from: Self.handWritten, file: Self.file))
        #expect(try WatchFile.parse(removed, file: Self.file).entries.map(\.name) == ["loans"])
        #expect(removed.contains("# my watches\nwatches:\n") && removed.contains("# books: twice a day"), "\(removed)")
        #expect(try WatchFileEdit.removing("loans", from: removed, file: Self.file) == nil)
    }

    @Test("removing a name that is not there is a usage error that lists the saved ones")
    func removeUnknown() {
        #expect {
            try WatchFileEdit.removing("news", from: Self.handWritten, file: Self.file)
        } throws: { error in
            let error = error as? UniToolError
            return error?.kind == .usage && error?.hint?.contains("grades, loans") == true
        }
    }

    @Test("a file in flow style is rewritten from its watches, none lost")
    func flowStyle() throws {
        let flow = "watches: { grades: { command: grades, every: 2h } }\n"
        let saved = try WatchFileEdit.saving(entry("loans"), in: flow, file: Self.file)
        let read = try WatchFile.parse(saved.text, file: Self.file).entries
        #expect(read.map(\.name) == ["grades", "loans"] && read.first?.every == .seconds(7200))
        let two = "watches: { grades: { command: grades, every: 2h }, news: { command: news } }\n"
        let removed = try #require(try WatchFileEdit.removing("grades", from: two, file: Self.file))
        #expect(try WatchFile.parse(removed, file: Self.file).entries == [entry("news")], "\(removed)")
    }

    @Test("a file that does not read is never overwritten: the loader's error comes back")
    func invalidFileKept() {
        #expect {
            try WatchFileEdit.saving(entry("grades"), in: "watches:\n  grades:\n    every: 1h\n", file: Self.file)
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }

    @Test("names are plain YAML keys; values YAML would read otherwise are quoted")
    func namesAndScalars() throws {
        #expect(WatchFileEdit.isValidName("grades-2026_fall") && !WatchFileEdit.isValidName("a b") && !WatchFileEdit.isValidName(""))
        #expect(!WatchFileEdit.isValidName("x: y"))
        let odd = entry("odd", command: "grades", options: ["term": "yes", "course": "-1", "q": "a: b # c"])
        let saved = try WatchFileEdit.saving(odd, in: nil, file: Self.file)
        #expect(try WatchFile.parse(saved.text, file: Self.file).entries == [odd], "\(saved.text)")
        #expect(WatchFileEdit.interval(.seconds(5400)) == "90m" && WatchFileEdit.interval(.seconds(86_400)) == "1d")
    }
}
