import DemoUniversity
import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// A recording of one wrong password beside the good one teaches the error rule, and `--update`
/// adds a later recording to a folder the person edited: recorded by chromium (Playwright,
/// Scripts/record-login.py) against the demo, then run as a student runs the folder.
@Suite(
    "Recipes from recordings: a wrong password's rule, and --update",
    .enabled(if: BrowserRecorder.isAvailableOrRequired, "needs chromium and Playwright: run through Scripts/test.sh"),
    .serialized)
struct RecordedFailureAndUpdateTests {
    static let wrongPassword = "not-wonderland-7"

    /// The good recording (the grades opened) and the wrong one, of the plain demo.
    static func record(_ demo: DemoUniversity, into sandbox: Sandbox) async throws -> (good: URL, wrong: URL) {
        let good = sandbox.root.appendingPathComponent("good.har")
        let wrong = sandbox.root.appendingPathComponent("wrong.har")
        let start = demo.baseURL.appendingPathComponent("home")
        try await BrowserRecorder.record(start: start, user: "alice", password: "wonderland", done: "a#logout", then: ["/grades"], to: good)
        try await BrowserRecorder.record(start: start, user: "alice", password: wrongPassword, done: "a#logout", wrong: true, to: wrong)
        return (good, wrong)
    }

    /// A run with the wrong password stops with wrong credentials and the portal's own words; the
    /// right one reads the grades.
    static func expectWrongThenRight(_ portal: String, in home: Sandbox, folder: URL) async throws {
        let portalYAML = (try? String(contentsOf: folder.appendingPathComponent("portal.yaml"), encoding: .utf8)) ?? ""
        let wrong = try await home.run(
            ["--portal", portal, "--user", "alice", "--password-stdin", "grades", "--term", "current"], stdin: wrongPassword)
        #expect(wrong.exitCode == 10, "\(wrong)\n--- portal.yaml\n\(portalYAML)")
        #expect(
            wrong.stderr.contains("wrong user name or password")
                && wrong.stderr.contains("The user ID or password you entered was incorrect"), "\(wrong)")
        let right = try await home.run(
            ["--portal", portal, "--user", "alice", "--password-stdin", "grades", "--term", "current", "--json"], stdin: "wonderland")
        #expect(right.exitCode == 0 && right.stdout.contains("MATH-301"), "\(right)\n--- portal.yaml\n\(portalYAML)")
        for file in home.allFiles() {
            let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
            #expect(!text.contains(wrongPassword) && !text.contains("wonderland"), "\(file.path)")
        }
    }

    @Test("--from-har good.har --from-har wrong.har: the demo's platform tells the wrong password already; a run with it says so")
    func wrongPasswordOnAPlatform() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning(faults: DemoFaults()) { demo in
            let (good, wrong) = try await Self.record(demo, into: sandbox)
            let home = try Sandbox()
            defer { home.remove() }
            let made = try await home.run(["recipes", "new", "rec-wrong", "--from-har", good.path, "--from-har", wrong.path])
            #expect(made.exitCode == 0 && made.stdout.contains("1 of them of a failed login"), "\(made)")
            #expect(made.stdout.contains("the unitool-demo platform's rule 'wrong password' tells it already"), "\(made)")
            // The failed recording alone is no folder: it says to give the good one beside it.
            let alone = try await home.run(["recipes", "new", "rec-alone", "--from-har", wrong.path])
            #expect(alone.exitCode == 64 && alone.stderr.contains("give the recording of a login that worked beside it"), "\(alone)")
            let folder = home.root.appendingPathComponent("config/unitool/recipes/rec-wrong")
            try await Self.expectWrongThenRight("rec-wrong", in: home, folder: folder)
        }
    }

    @Test("on a login no platform knows, the recorded message's element becomes the fail rule the engine stops at")
    func wrongPasswordWithoutPlatform() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning(faults: DemoFaults()) { demo in
            let (good, wrong) = try await Self.record(demo, into: sandbox)
            // The same recordings, read as a portal no bundled platform knows: every rule its own.
            let none = sandbox.root.appendingPathComponent("no-platforms")
            try FileManager.default.createDirectory(at: none, withIntermediateDirectories: true)
            guard case .failed(let failure) = RecordedFailure.reading(try HTTPArchive(file: wrong.path)) else {
                Issue.record("the wrong password's recording is not read as a failed login")
                return
            }
            let draft = try RecipeDraft(
                portal: "rec-own", title: nil, archive: try HTTPArchive(file: good.path), failures: [failure], platforms: none)
            #expect(draft.platform == nil)
            let portal = String(decoding: draft.files.first { $0.path == "portal.yaml" }?.data ?? Data(), as: UTF8.self)
            #expect(portal.contains("fail: wrong_credentials") && portal.contains("login-error"), "\(portal)")
            let home = try Sandbox()
            defer { home.remove() }
            let folder = home.root.appendingPathComponent("config/unitool/recipes/rec-own")
            _ = try RecipeScaffold.writeFolder(
                "rec-own", files: draft.files.map { ($0.path, $0.data) }, into: folder.deletingLastPathComponent()
            ) { _ in }
            try await Self.expectWrongThenRight("rec-own", in: home, folder: folder)
        }
    }

    @Test("record grades → recipes new → edit grades.yaml → record loans → --update: loans added, the edit kept, both commands read")
    func update() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try await DemoUniversity.withRunning(faults: DemoFaults()) { demo in
            let start = demo.baseURL.appendingPathComponent("home")
            let grades = sandbox.root.appendingPathComponent("grades.har")
            let loans = sandbox.root.appendingPathComponent("loans.har")
            try await BrowserRecorder.record(
                start: start, user: "alice", password: "wonderland", done: "a#logout", then: ["/grades"], to: grades)
            try await BrowserRecorder.record(
                start: start, user: "alice", password: "wonderland", done: "a#logout", then: ["/library/loans"], to: loans)
            let home = try Sandbox()
            defer { home.remove() }
            let made = try await home.run(["recipes", "new", "rec-upd", "--from-har", grades.path])
            #expect(made.exitCode == 0 && made.stdout.contains(".draft.sha256"), "\(made)")
            let folder = home.root.appendingPathComponent("config/unitool/recipes/rec-upd")
            let gradesYAML = folder.appendingPathComponent("grades.yaml")
            let edited = try String(contentsOf: gradesYAML, encoding: .utf8).replacingOccurrences(
                of: "summary: \"Grades\"", with: "summary: \"My marks\"")
            #expect(edited.contains("My marks"))
            try Data(edited.utf8).write(to: gradesYAML)

            // Without --update the folder is refused, and the refusal names --update.
            let refused = try await home.run(["recipes", "new", "rec-upd", "--from-har", loans.path])
            #expect(refused.exitCode == 64 && refused.stderr.contains("--update"), "\(refused)")
            let updated = try await home.run(["recipes", "new", "rec-upd", "--from-har", loans.path, "--update"])
            #expect(updated.exitCode == 0, "\(updated)")
            for line in ["loans.yaml: added", "Fixtures/loans/recorded.html: added", "portal.yaml: updated: not edited since it was made"] {
                #expect(updated.stdout.contains(line), "\(line)\n\(updated)")
            }
            #expect(try String(contentsOf: gradesYAML, encoding: .utf8) == edited, "the edit kept")
            #expect(!updated.stdout.contains("recipes test: FAILED"), "\(updated)")

            // A grades recording again: grades.yaml is the person's, so the new one goes beside it.
            let again = try await home.run(["recipes", "new", "rec-upd", "--from-har", grades.path, "--update"])
            #expect(again.exitCode == 0 && again.stdout.contains("grades.yaml: kept (edited by you)"), "\(again)")
            #expect(try String(contentsOf: gradesYAML, encoding: .utf8) == edited, "the edit kept")
            #expect(FileManager.default.fileExists(atPath: gradesYAML.path + ".new"))

            let readGrades = try await home.run(
                ["--portal", "rec-upd", "--user", "alice", "--password-stdin", "grades", "--term", "current", "--json"], stdin: "wonderland"
            )
            #expect(readGrades.exitCode == 0 && readGrades.stdout.contains("MATH-301"), "\(readGrades)")
            let readLoans = try await home.run(["--portal", "rec-upd", "--user", "alice", "loans", "--json"])
            #expect(readLoans.exitCode == 0 && readLoans.stdout.contains("31000101"), "\(readLoans)")
            let listed = try await home.run(["recipes", "list"])
            #expect(listed.stdout.contains("My marks"), "the edited summary is what runs: \(listed)")
        }
    }
}

/// The refusals of several recordings, on small HARs written here (no browser needed).
@Suite("recipes new with several --from-har: a recording that is neither a login nor a failed one is refused")
struct RecordingsSortedTests {
    static func har(_ entries: [String]) -> String { #"{"log": {"entries": [\#(entries.joined(separator: ",\n"))]}}"# }

    static func page(_ method: String, _ path: String, _ status: Int, body: String = "", posted: [(String, String)] = []) -> String {
        let document = #"{"name": "Sec-Fetch-Dest", "value": "document"}"#
        let post =
            posted.isEmpty
            ? ""
            : #", "postData": {"mimeType": "application/x-www-form-urlencoded", "params": [\#(posted.map { #"{"name": "\#($0.0)", "value": "\#($0.1)"}"# }.joined(separator: ", "))]}"#
        let response =
            status == 302
            ? #""redirectURL": "/home", "content": {"size": 0}"#
            : #""content": {"mimeType": "text/html", "text": \#(JSONString.quoted(body))}"#
        return
            #"{"request": {"method": "\#(method)", "url": "https://portal.example.edu\#(path)", "headers": [\#(document)]\#(post)}, "response": {"status": \#(status), \#(response)}}"#
    }

    static let form =
        "<html><body><div id='flash'></div><form method='post' action='/login'><input name='user'><input type='password' name='pw'><button>Go</button></form></body></html>"

    @Test("a recording whose password was answered by neither the portal nor the form again is named, and nothing is written")
    func neither() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let good = sandbox.root.appendingPathComponent("good.har")
        try Data(
            Self.har([
                Self.page("GET", "/login", 200, body: Self.form),
                Self.page("POST", "/login", 302, posted: [("user", "jdoe"), ("pw", "Right-2026")]),
                Self.page(
                    "GET", "/home", 200,
                    body:
                        "<html><body><a href='/logout'>Log out</a><table id='t'><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>x</td></tr><tr><td>2</td><td>y</td></tr><tr><td>3</td><td>z</td></tr></table></body></html>"
                ),
            ]).utf8
        ).write(to: good)
        let neither = sandbox.root.appendingPathComponent("maintenance.har")
        try Data(
            Self.har([
                Self.page("GET", "/login", 200, body: Self.form),
                Self.page(
                    "POST", "/login", 200, body: "<html><body><h1>Down for maintenance</h1></body></html>",
                    posted: [("user", "jdoe"), ("pw", "Other-2026")]),
            ]).utf8
        ).write(to: neither)
        let made = try await sandbox.run(["recipes", "new", "sorted", "--from-har", good.path, "--from-har", neither.path])
        #expect(made.exitCode == 64, "\(made)")
        #expect(
            made.stderr.contains("\(neither.path) is neither a recording of a login that got through nor one of a failed login"),
            "\(made)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("config/unitool/recipes/sorted").path))
        // --update without a recording, and --update of a folder that is not there.
        let bare = try await sandbox.run(["recipes", "new", "sorted", "--update"])
        #expect(bare.exitCode == 64 && bare.stderr.contains("it needs --from-har FILE"), "\(bare)")
        let missing = try await sandbox.run(["recipes", "new", "sorted", "--from-har", good.path, "--update"])
        #expect(missing.exitCode == 64 && missing.stderr.contains("--update adds to an existing folder"), "\(missing)")
    }

    @Test("--update -o DIR: only the files this run made are trusted; a portal.yaml someone edited is named for review, not trusted")
    func updateTrustsOnlyWhatItMade() async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let good = sandbox.root.appendingPathComponent("good.har")
        try Data(
            Self.har([
                Self.page("GET", "/login", 200, body: Self.form),
                Self.page("POST", "/login", 302, posted: [("user", "jdoe"), ("pw", "Right-2026")]),
                Self.page(
                    "GET", "/home", 200,
                    body:
                        "<html><body><a href='/logout'>Log out</a><table id='t'><tr><th>A</th><th>B</th></tr><tr><td>1</td><td>x</td></tr><tr><td>2</td><td>y</td></tr><tr><td>3</td><td>z</td></tr></table></body></html>"
                ),
            ]).utf8
        ).write(to: good)
        let pack = sandbox.root.appendingPathComponent("pack")
        let made = try await sandbox.run(["recipes", "new", "packed", "--from-har", good.path, "-o", pack.path])
        #expect(made.exitCode == 0 && made.stdout.contains("trusted: "), "\(made)")
        // Someone else's hand in portal.yaml: where the password may go is theirs now.
        let portal = pack.appendingPathComponent("packed/portal.yaml")
        let text = try String(contentsOf: portal, encoding: .utf8)
        try Data((text + "# changed by someone\n").utf8).write(to: portal)
        let updated = try await sandbox.run(["recipes", "new", "packed", "--from-har", good.path, "--update", "-o", pack.path])
        #expect(updated.exitCode == 0, "\(updated)")
        #expect(updated.stdout.contains("not trusted: portal.yaml"), "\(updated)")
        #expect(updated.stdout.contains("run 'unitool recipes trust"), "\(updated)")
        #expect(!updated.stdout.contains("trusted: 2 files"), "\(updated)")
    }
}
