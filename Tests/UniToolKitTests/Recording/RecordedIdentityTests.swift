import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// Issue 48: a sentence after the login that names the person signed in ("Signed in as alice
/// (Alice Liddell)") becomes a command whose values are split out of it, for every user of the
/// portal and in the sentences other universities write. Small pages and recordings built here.
@Suite("Recording: the sentence naming the signed-in person becomes a command")
struct RecordedIdentityTests {
    /// The values `sentence`'s regexes read from `text`, by field name.
    static func read(_ sentence: RecordedIdentity.Sentence, _ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for value in sentence.values { values[value.name] = RecipeDraft.matches(value.regex, in: text).first }
        return values
    }

    @Test(
        "a sentence is split into its values, never into its words: the user id, a bracketed or quoted name, a name before a bracketed id, what follows a colon",
        arguments: [
            (
                "Signed in as alice (Alice Liddell)", "alice", ["uid": "alice", "name": "Alice Liddell"],
                "Signed in as carol (Carol Ötvös)", ["uid": "carol", "name": "Carol Ötvös"]
            ),
            (
                "Angemeldet als Max Mustermann (mm123)", "mm123", ["uid": "mm123", "name": "Max Mustermann"],
                "Angemeldet als Erika von Musterfrau (em42)", ["uid": "em42", "name": "Erika von Musterfrau"]
            ),
            ("ようこそ taro さん", "taro", ["uid": "taro"], "ようこそ hanako さん", ["uid": "hanako"]),
            ("Logged in: alice", "alice", ["uid": "alice"], "Logged in: bob.smith", ["uid": "bob.smith"]),
            (
                "山田 太郎 さん（taro）", "taro", ["uid": "taro", "name": "山田 太郎"], "鈴木 次郎 さん（jiro）",
                ["uid": "jiro", "name": "鈴木 次郎"]
            ),
            (
                "ログイン中: 山田 太郎 (s2210001) | ログアウト", "s2210001", ["uid": "s2210001", "name": "山田 太郎"],
                "ログイン中: 佐藤 花子 (s2210002) | ログアウト", ["uid": "s2210002", "name": "佐藤 花子"]
            ),
            (
                "Welcome, \"Jane Doe\" – you are jdoe", "jdoe", ["uid": "jdoe", "name": "Jane Doe"],
                "Welcome, \"Li Wei\" – you are lw7", ["uid": "lw7", "name": "Li Wei"]
            ),
            (
                "Session 3 of 5: alice [Alice Liddell]", "alice", ["uid": "alice", "name": "Alice Liddell"],
                "Session 12 of 40: bob [Bob Builder]", ["uid": "bob", "name": "Bob Builder"]
            ),
        ] as [(String, String, [String: String], String, [String: String])])
    func splitsSentences(
        recorded: String, username: String, values: [String: String], other: String, otherValues: [String: String]
    ) throws {
        let sentence = try #require(RecordedIdentity.split(recorded, username: username), "\(recorded)")
        #expect(Self.read(sentence, recorded) == values, "\(sentence.values)")
        // Another user's sentence, read by the same regexes.
        #expect(Self.read(sentence, other) == otherValues, "\(other): \(sentence.values.map(\.regex))")
        // The regexes hold the page's words only, none of the person's.
        for value in sentence.values {
            for personal in values.values {
                #expect(!value.regex.contains(personal), "\(value.regex) holds '\(personal)'")
            }
        }
        #expect(sentence.values.first?.name == "uid")
    }

    @Test("text that is no sentence about the user: the user id alone, inside an e-mail address or another word, or absent")
    func notSentences() {
        #expect(RecordedIdentity.split("alice", username: "alice") == nil, "nothing to anchor a regex to")
        #expect(RecordedIdentity.split("Mail: jiro@example.ac.jp", username: "jiro") == nil)
        #expect(RecordedIdentity.split("Malice in Wonderland", username: "alice") == nil)
        #expect(RecordedIdentity.split("Signed in as bob", username: "alice") == nil)
        // A given name that is the user id capitalised is the name (the demo's "Welcome, Alice
        // Example" for alice); the id in capitals or small letters as a whole is the id.
        #expect(RecordedIdentity.split("Welcome, Alice Example", username: "alice") == nil)
        let capitals = RecordedIdentity.split("Angemeldet: JDOE", username: "jdoe")
        #expect(capitals.map { Self.read($0, "Angemeldet: MMUSTER") } == ["uid": "MMUSTER"])
    }

    static func element(_ body: String, username: String) throws -> (xpath: String, sentence: RecordedIdentity.Sentence)? {
        let html = "<!DOCTYPE html><html><head><title>alice</title></head><body>\(body)</body></html>"
        return RecordedIdentity.element(in: try Document(html: html, url: "https://x.edu/grades"), username: username)
    }

    @Test("the element: by its id or class, the whole sentence around a marked user id, never a data table's cell or a form field")
    func chosenElement() throws {
        let grades = """
            <table id="grades"><thead><tr><th>Student</th><th>Course</th></tr></thead>
            <tbody><tr><td>alice</td><td>Analysis</td></tr></tbody></table>
            """
        // Before: no page element was ever a command unless it held a table or a list.
        let found = try #require(try Self.element(grades + "<p id='who'>Signed in as alice (Alice Liddell)</p>", username: "alice"))
        #expect(found.xpath == "//p[@id='who']")
        #expect(found.sentence.template == "Signed in as {uid} ({name})")
        // The user id in its own element: the sentence is its parent's, by the parent's class.
        let marked = try #require(
            try Self.element("<div class='top userbar'>Logged in as <b>alice</b> (Alice Liddell)</div>", username: "alice"))
        #expect(marked.xpath == "//div[contains(concat(' ', normalize-space(@class), ' '), ' top ')]", "\(marked.xpath)")
        #expect(Self.read(marked.sentence, "Logged in as bob (Bob Builder)") == ["uid": "bob", "name": "Bob Builder"])
        // An id made of the user id is no XPath for another user: the class is taken instead.
        let own = try #require(try Self.element("<p id='user-alice' class='who'>Signed in as alice</p>", username: "alice"))
        #expect(own.xpath == "//p[contains(concat(' ', normalize-space(@class), ' '), ' who ')]", "\(own.xpath)")
        // Neither id nor class: the element by the sentence's own words.
        let bare = try #require(try Self.element("<h1>ようこそ taro さん</h1>", username: "taro"))
        #expect(bare.xpath == "//h1[contains(normalize-space(.), 'ようこそ')]")
        // A data table's cell, a form field's value and a script are not sentences.
        #expect(try Self.element(grades, username: "alice") == nil)
        #expect(try Self.element("<form><input name='u' value='alice'><textarea>Hello alice!</textarea></form>", username: "alice") == nil)
        #expect(try Self.element("<script>var user = 'Signed in as alice';</script>", username: "alice") == nil)
    }

    @Test("a recording: the identity command with its fixture, the name scrubbed, the report saying it is a guess")
    func draftFolder() throws {
        let grades = """
            <h1>Grades</h1><p id="who">Signed in as jdoe (Jane Q. Doe)</p>
            <table id="grades"><thead><tr><th>Course</th><th>Grade</th></tr></thead>
            <tbody><tr><td>Analysis</td><td>A</td></tr><tr><td>Statics</td><td>B</td></tr></tbody></table>
            """
        let archive = try RecipeDraftScrubbingTests.archive(
            username: "jdoe", password: "s3cret-Pass", cookies: ["sid=9f8e7d6c5b4a39281706f5e4d3c2b1a0"],
            pages: [("/grades", "text/html", grades)])
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        #expect(draft.commands.contains("whoami"), "\(draft.commands)")
        let yaml = RecipeDraftTests.text(draft, "whoami.yaml")
        let recipe = try DataRecipe.load(file: "whoami.yaml", text: yaml, portal: "myuni")
        #expect(recipe.login, "the identity is read behind the login")
        #expect(yaml.contains("rows: \"//p[@id='who']\"") && yaml.contains("fetch: \"/grades\""), "\(yaml)")
        #expect(draft.guessed.contains { $0.hasPrefix("whoami: a guess") }, "\(draft.guessed)")
        // The fixture: the name and the user id as stand-ins, which the recipe reads back.
        let fixture = RecipeDraftTests.text(draft, "Fixtures/whoami/recorded.html")
        #expect(fixture.contains("Signed in as student (Student Name)"), "\(fixture)")
        let all = RecipeDraftScrubbingTests.everything(draft)
        for leaked in ["jdoe", "Jane", "Doe"] { #expect(!all.contains(leaked), "\(leaked) was written") }
        let uid = try #require(recipe.sources.first?.fields.first { $0.name == "uid" }?.regex)
        #expect(RecipeDraft.matches(uid, in: "Signed in as student (Student Name)") == ["student"])
    }

    @Test(
        "a recording whose pages show the user id only in a data table, or beside the person's name in the page's words, has no identity command"
    )
    func noIdentityCommand() throws {
        let export = """
            <h1>Transcript</h1><table class="info"><tr><th>Student</th><td>jdoe</td><th>Name</th><td>Jane Doe</td></tr></table>
            <table id="grades"><thead><tr><th>Course</th><th>Grade</th></tr></thead>
            <tbody><tr><td>Analysis</td><td>A</td></tr><tr><td>Statics</td><td>B</td></tr></tbody></table>
            """
        let archive = try RecipeDraftScrubbingTests.archive(
            username: "jdoe", password: "s3cret-Pass", cookies: [], pages: [("/transcript", "text/html", export)])
        let draft = try RecipeDraft(portal: "myuni", title: nil, archive: archive)
        #expect(!draft.commands.contains("whoami"), "\(draft.commands)")
        #expect(!draft.commands.isEmpty)
        // "Grades of DOE-SMITH, Johanna (jdoe)": the surname would stand in the regex as the page's
        // own words; no command then (the home page names Johanna Doe-Smith as the user).
        let heading = """
            <h1>Grades of DOE-SMITH, Johanna (jdoe)</h1><table id="grades"><thead><tr><th>Course</th><th>Grade</th></tr></thead>
            <tbody><tr><td>Analysis</td><td>A</td></tr></tbody></table>
            """
        #expect(RecordedIdentity.split("Grades of DOE-SMITH, Johanna (jdoe)", username: "jdoe") != nil, "a sentence by its shape")
        let named = try RecipeDraft(
            portal: "myuni", title: nil,
            archive: try RecipeDraftScrubbingTests.archive(
                username: "jdoe", password: "s3cret-Pass", cookies: [], pages: [("/grades", "text/html", heading)]))
        #expect(!named.commands.contains("whoami"), "\(named.commands)")
    }
}
