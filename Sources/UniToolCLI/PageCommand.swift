import ArgumentParser
import Foundation
import UniToolKit

/// `unitool page PATH`: a portal page through the user's session, for writing recipes.
struct PageCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "page", abstract: "Print a portal page as unitool sees it, logged in: for writing and testing recipes.",
        discussion: """
            Fetches a page of the portal through your session (logging in if needed) and prints it, so you
            can write XPath against exactly what unitool gets, or save it as a recipe test case:
              unitool --portal demo page /library/loans > Recipes/demo/Fixtures/loans/page1.html
            Only the portal's own pages can be fetched. The terms of use must be accepted, as for any command.
            """)
    @OptionGroup var globals: GlobalOptions
    @Argument(help: "A path on the portal, such as /grades?term=2026-spring, or a full URL on the portal.") var path: String

    func run() async throws {
        let environment = try CommandEnvironment(options: globals)
        let portal = try environment.catalog.portal(try environment.portalID())
        let credentials = try environment.credentialProvider(for: portal)
        let body = try await environment.withPortal(portal, user: credentials.user, credentials: credentials.provide) { connection in
            try await TermsGate.ensureAccepted(connection)
            let url = try connection.ownPageURL(path)
            let page = try await connection.fetch(url.absoluteString)
            try connection.saveSession()
            return page.body
        }
        // The page as the portal sent it, byte for byte, into a pipe or a file; on a terminal,
        // its control characters are shown escaped (`TerminalText`), lines kept.
        if isatty(STDOUT_FILENO) == 1 {
            let text = TerminalText.escaped(String(decoding: body, as: UTF8.self), keepingLineBreaks: true)
            FileHandle.standardOutput.write(Data(text.utf8))
        } else {
            FileHandle.standardOutput.write(Data(body))
        }
    }
}
