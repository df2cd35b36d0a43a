import Foundation
import Testing

@testable import UniToolKit

/// Issue 47: the folder `recipes new` writes is private, refuses what it would silently
/// replace, and a platform's `with:` value cannot add keys to the platform.
@Suite("recipes new's folder: private modes, links, bundled names, with: values")
struct RecipeScaffoldFolderTests {
    let parent = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-scaffold-\(UUID().uuidString)")

    func mode(_ url: URL) throws -> Int {
        try (FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("the folder and its subfolders are 0700, its files 0600, as the history is")
    func privateModes() throws {
        defer { try? FileManager.default.removeItem(at: parent) }
        let files = [
            ("portal.yaml", Data("portal: myuni\n".utf8)), ("Fixtures/grades/recorded.html", Data("<p>grades</p>".utf8)),
            ("Fixtures/grades/recorded.json", Data("{}".utf8)),
        ]
        let folder = try RecipeScaffold.writeFolder("myuni", files: files, into: parent) { _ in }
        for sub in ["", "Fixtures", "Fixtures/grades"] {
            #expect(try mode(sub.isEmpty ? folder : folder.appendingPathComponent(sub)) == 0o700, "\(sub)")
        }
        for file in files { #expect(try mode(folder.appendingPathComponent(file.0)) == 0o600, "\(file.0)") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["myuni"], "no staging folder is left")
    }

    @Test("a symbolic link at the folder's place, leading nowhere, is named with what to do; nothing is written")
    func danglingLink() throws {
        defer { try? FileManager.default.removeItem(at: parent) }
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let link = parent.appendingPathComponent("myuni")
        try FileManager.default.createSymbolicLink(atPath: link.path, withDestinationPath: "/nonexistent/unitool-\(UUID().uuidString)")
        do {
            _ = try RecipeScaffold.writeFolder("myuni", files: [("portal.yaml", Data("x".utf8))], into: parent) { _ in }
            Issue.record("written through a dangling link")
        } catch let error as UniToolError {
            #expect(error.kind == .usage, "\(error)")
            #expect(error.message.contains(link.path) && error.message.contains("symbolic link"), "\(error.message)")
            #expect(error.message.contains("does not exist") && error.hint?.contains("rm ") == true, "\(error)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: parent.path) == ["myuni"], "nothing staged is left")
    }

    @Test("a bundled portal's name (demo) is refused unless --replace-bundled says so; another name passes")
    func bundledName() throws {
        let bundled = RecipeCatalog.bundledDirectory()
        #expect(FileManager.default.fileExists(atPath: bundled.appendingPathComponent("demo/portal.yaml").path))
        do {
            try RecipeScaffold.checkBundledName("demo", bundled: bundled, replacing: false)
            Issue.record("the demo's name was accepted")
        } catch let error as UniToolError {
            #expect(error.kind == .usage && error.hint?.contains("--replace-bundled") == true, "\(error)")
        }
        #expect(throws: Never.self) { try RecipeScaffold.checkBundledName("demo", bundled: bundled, replacing: true) }
        #expect(throws: Never.self) { try RecipeScaffold.checkBundledName("myuni", bundled: bundled, replacing: false) }
    }

    @Test(
        "a with: value that could end the platform's string or start a key (quote, line feed, NEL, U+2028, U+2029, ' #', {{) is refused",
        arguments: [
            "/news.rss\"\nlogin: false", "/news.rss\u{85}login: false", "/a\u{2028}b", "/a\u{2029}b", "/a\rb", "/a'b", "/a\\b",
            "/a #b", "/{{password}}",
        ])
    func withValues(value: String) throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-with-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let folder = root.appendingPathComponent("uni")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try
            "portal: uni\nname: Uni\nbase_url: https://portal.example.edu\nidp_url: https://idp.example.edu/idp\ncredentials_may_go_to: [idp]\nlogin:\n  use: shibboleth-idp\n  start: /\n  done_when: { xpath: \"//a\" }\n"
            .write(to: folder.appendingPathComponent("portal.yaml"), atomically: true, encoding: .utf8)
        try "use: rss/news\nwith: { feed: \(RecipeScaffold.quoted(value)) }\n"
            .write(to: folder.appendingPathComponent("news.yaml"), atomically: true, encoding: .utf8)
        do {
            let catalog = try RecipeCatalog(directories: [root])
            let news = try catalog.recipe(portal: "uni", command: "news")
            Issue.record("read: fetch \(news.primary.fetch.source), login \(String(describing: news.primary))")
        } catch {
            #expect("\(error)".contains("'feed' holds"), "\(error)")
        }
        #expect(RecipeComposer.withValueProblem(value) != nil)
        #expect(RecipeComposer.withValueProblem("/news/rss?lang=en&x={a}#top") == nil, "an ordinary feed path passes")
    }
}
