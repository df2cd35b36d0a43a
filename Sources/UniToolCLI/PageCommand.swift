import ArgumentParser
import Foundation
import LibXML
import UniToolHost
import UniToolKit

/// `unitool page PATH`: a portal page through the user's session, for writing recipes.
struct PageCommand: PortalCommand {
    static let configuration = CommandConfiguration(
        commandName: "page", abstract: localized("Print a portal page as unitool sees it, logged in: for writing and testing recipes."),
        discussion: HelpExamples.discussion(
            localized(
                """
                Fetches a page of the portal through your session (logging in if needed) and prints it as
                unitool reads it: decoded as a browser decodes it, in UTF-8, with its <meta charset> saying
                so, so you can write XPath against exactly what unitool gets.

                To keep the page as a recipe test case, save it with --fixture: the page is written byte for
                byte as the portal sent it, and beside it a .json file with its address and its HTTP
                Content-Type, so that 'unitool recipes test' decodes it as the live run did:
                  unitool --portal demo page /library/loans --fixture Recipes/demo/Fixtures/loans/page1.html
                  unitool recipes test --update      # then check the records it wrote, and commit both
                Only the portal's own pages can be fetched. The terms of use must be accepted, as for any command.
                """), examples: "page"))
    @OptionGroup var globals: GlobalOptions
    @Argument(help: ArgumentHelp(localized("A path on the portal, such as /grades?term=2026-spring, or a full URL on the portal.")))
    var path: String
    @Option(
        help: ArgumentHelp(
            localized(
                "Save the page as a recipe test case: FILE (.html or .xml) byte for byte, and FILE's .json with its address and Content-Type."
            ),
            valueName: "FILE"))
    var fixture: String?

    func validate() throws {
        if let fixture, !RecipeTester.pageSuffixes.contains(where: fixture.hasSuffix) {
            throw UniToolError(
                .usage,
                localized(
                    "--fixture \(fixture): a recipe test case is a .html, .xml (a feed), .ics (a calendar) or .page.json (a JSON answer) file"
                ),
                hint: localized("for example: --fixture Recipes/myuni/Fixtures/grades/2026-fall.html"))
        }
    }

    func run(_ environment: CommandEnvironment, portal: PortalRecipe) async throws {
        let credentials = try environment.credentialProvider(for: portal)
        let fetched = try await environment.withService(portal, user: credentials.user, credentials: credentials.provide) {
            try await $0.fetch(path, interaction: environment.interaction)
        }
        let page = fetched.page
        if let fixture {
            try Self.saveFixture(page, to: URL(fileURLWithPath: fixture))
            let stem = URL(fileURLWithPath: fixture).deletingPathExtension().lastPathComponent
            Progress.say(localized("Saved \(fixture) and \(stem).json; 'unitool recipes test --update' fills in the records."))
            return
        }
        let text = Self.readable(page, charsetOverride: fetched.charsetOverride)
        // On a terminal, the page's control characters are shown escaped (`TerminalText`), lines kept.
        if isatty(STDOUT_FILENO) == 1 {
            FileHandle.standardOutput.write(Data(TerminalText.escaped(text, keepingLineBreaks: true).utf8))
        } else {
            FileHandle.standardOutput.write(Data(text.utf8))
        }
    }

    /// The page as unitool reads it, in UTF-8: HTML through the browser's decoding, a feed as XML,
    /// anything else (JSON, text) as UTF-8 text.
    static func readable(_ page: Page, charsetOverride: String?) -> String {
        let type = page.contentType?.lowercased() ?? "text/html"
        if type.contains("xml"), let feed = try? Document(xml: page.body, encoding: page.charset, charsetOverride: charsetOverride) {
            return feed.markup()
        }
        if type.contains("html"), let document = try? page.document(charsetOverride: charsetOverride) {
            return document.markup()
        }
        return String(decoding: page.body, as: UTF8.self)
    }

    /// Writes a recipe test case: the body as the portal sent it and, beside it, where it came
    /// from and with what Content-Type. The records are left for `recipes test --update`.
    static func saveFixture(_ page: Page, to file: URL) throws {
        let folder = file.deletingLastPathComponent()
        guard RecipeTester.pageSuffixes.contains(where: file.lastPathComponent.hasSuffix) else {
            throw UniToolError(
                .usage, localized("'\(file.lastPathComponent)' is not a name 'recipes test' reads"),
                hint: localized("end it in .html, .xml (a feed), .ics (a calendar) or .page.json (a JSON answer)"))
        }
        let expectation = RecipeTester.expectationFile(for: file)
        let fields = [
            "  \"url\": \(JSONString.quoted(page.url.absoluteString))",
            "  \"content_type\": \(page.contentType.map(JSONString.quoted) ?? "null")",
            "  \"source\": null",
            "  \"today\": \(JSONString.quoted(RecordExtractor.localToday()))",
            "  \"records\": null",
        ]
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try AtomicFile.write(Data(page.body), to: file, mode: 0o644)
            try AtomicFile.write(Data(("{\n" + fields.joined(separator: ",\n") + "\n}\n").utf8), to: expectation, mode: 0o644)
        } catch {
            throw UniToolError(
                .stateCorrupt, localized("cannot save the test case at \(file.path): \(error)"),
                hint: localized("check that the folder can be written"))
        }
    }
}
