import Foundation
import Testing

@testable import UniToolKit

/// `headers:` of portal, service and data recipes (issue 34, part 2): which requests get them,
/// and which headers no recipe may set.
@Suite("A recipe's own request headers")
struct RecipeHeadersTests {
    func header(_ name: String, _ value: String) -> RecipeHeaders.Header { .init(name: name, value: value) }

    let portalText = """
        portal: uni
        base_url: https://portal.example.edu
        idp_url: https://portal.example.edu/idp
        language: de-AT
        headers: { X-Portal: "portal", X-Shared: "from the portal" }
        services:
          lms: { base_url: "https://lms.example.edu/", headers: { X-Shared: "from the lms", X-Lms: "lms" } }
        login: { pages: [{ when: "//form", auto_submit: true }] }

        """

    @Test("the portal's headers go to its origins, a service's to its own, the command's last; a foreign origin gets none")
    func byOrigin() throws {
        let portal = try PortalRecipe.load(file: "portal.yaml", text: portalText)
        let headers = portal.requestHeaders
        let own = portal.ownOrigins
        let command = [header("X-Command", "grades"), header("x-portal", "the command's")]
        let onPortal = headers.headers(for: URL(string: "https://portal.example.edu/grades?term=1")!, recipe: command, ownOrigins: own)
        #expect(onPortal == [header("X-Shared", "from the portal"), header("X-Command", "grades"), header("x-portal", "the command's")])
        let onLMS = headers.headers(for: URL(string: "https://lms.example.edu/my/")!, recipe: [], ownOrigins: own)
        #expect(onLMS == [header("X-Portal", "portal"), header("X-Shared", "from the lms"), header("X-Lms", "lms")])
        for foreign in [
            "https://evil.example/", "http://portal.example.edu/", "https://portal.example.edu:8443/", "https://idp.example.edu/",
        ] {
            #expect(headers.headers(for: URL(string: foreign)!, recipe: command, ownOrigins: own).isEmpty, "\(foreign)")
        }
        #expect(portal.language == "de-AT")
    }

    @Test(
        "Cookie, Host and the message's framing are refused, and so are names and values that are no header",
        arguments: [
            ("Cookie", "session=1", "the session sends the portal's own cookies"),
            ("cookie2", "x", "Cookie"),
            ("Host", "evil.example", "sets it from the request itself"),
            ("Content-Length", "0", "sets it from the request itself"),
            ("Transfer-Encoding", "chunked", "sets it from the request itself"),
            ("X Bad", "x", "is not a header name"),
            ("Résumé", "x", "is not a header name"),
            ("X-Split", "a\r\nInjected: yes", "line break"),
        ])
    func refused(name: String, value: String, words: String) {
        let problem = RecipeHeaders.problem(name: name, value: value)
        #expect(problem?.contains(words) == true, "\(name): \(problem ?? "accepted")")
    }

    @Test("ordinary headers are accepted: an Accept of the portal's API, a token, an empty value")
    func accepted() {
        for (name, value) in [
            ("Accept", "application/json"), ("X-Requested-With", "XMLHttpRequest"), ("Authorization", "Bearer abc"), ("X-Empty", ""),
        ] {
            #expect(RecipeHeaders.problem(name: name, value: value) == nil, "\(name)")
        }
    }

    @Test("a recipe that sets Cookie is refused when it is read, naming the file and the key")
    func readingRefuses() {
        let portal = portalText.replacingOccurrences(of: "X-Portal: \"portal\"", with: "Cookie: \"stolen=1\"")
        #expect {
            try PortalRecipe.load(file: "portal.yaml", text: portal)
        } throws: { error in
            let error = error as? UniToolError
            return error?.kind == .recipeInvalid && error?.message.contains("portal.yaml") == true
                && error?.message.contains("headers") == true && error?.message.contains("Cookie") == true
        }
        let data = "command: grades\nheaders: { Host: \"other.example\" }\nfetch: /grades\nrows: //tr\nfields: { course: { xpath: td } }\n"
        #expect {
            try DataRecipe.load(file: "grades.yaml", text: data, portal: "uni")
        } throws: { error in
            (error as? UniToolError)?.kind == .recipeInvalid && (error as? UniToolError)?.message.contains("Host") == true
        }
        let service = portalText.replacingOccurrences(of: "X-Lms: \"lms\"", with: "\"X-Lms\": \"a\\nb\"")
        #expect {
            try PortalRecipe.load(file: "portal.yaml", text: service)
        } throws: { ($0 as? UniToolError)?.kind == .recipeInvalid }
    }

    @Test("a data recipe's headers are read in order")
    func dataRecipe() throws {
        let data =
            "command: grades\nheaders: { Accept: application/json, X-Requested-With: XMLHttpRequest }\nfetch: /grades\nrows: //tr\nfields: { course: { xpath: td } }\n"
        let recipe = try DataRecipe.load(file: "grades.yaml", text: data, portal: "uni")
        #expect(recipe.headers == [header("Accept", "application/json"), header("X-Requested-With", "XMLHttpRequest")])
    }

    @Test("a language that is no tag is refused")
    func language() {
        #expect {
            try PortalRecipe.load(
                file: "portal.yaml", text: portalText.replacingOccurrences(of: "language: de-AT", with: "language: German"))
        } throws: { ($0 as? UniToolError)?.message.contains("not a language tag") == true }
    }
}

/// `Accept-Language`: the portal's language, else the user's locale, English after it.
@Suite("Accept-Language as a browser set to the portal's language sends it")
struct AcceptLanguageTests {
    @Test(
        "the portal's language wins; else LC_ALL, LC_MESSAGES, LANG; C and POSIX are American English",
        arguments: [
            ("hu", [:], "hu,en;q=0.8"),
            ("de-DE", ["LANG": "ja_JP.UTF-8"], "de-DE,de;q=0.9,en;q=0.8"),
            ("en-GB", [:], "en-GB,en;q=0.9"),
            (nil, ["LANG": "ja_JP.UTF-8"], "ja-JP,ja;q=0.9,en;q=0.8"),
            (nil, ["LANG": "fr_FR.UTF-8", "LC_ALL": "hu_HU.UTF-8"], "hu-HU,hu;q=0.9,en;q=0.8"),
            (nil, ["LANG": "de_DE@euro", "LC_MESSAGES": ""], "de-DE,de;q=0.9,en;q=0.8"),
            (nil, ["LANG": "C.UTF-8"], "en-US,en;q=0.9"),
            (nil, ["LANG": "POSIX"], "en-US,en;q=0.9"),
            (nil, [:], "en-US,en;q=0.9"),
        ] as [(String?, [String: String], String)])
    func value(language: String?, environment: [String: String], expected: String) {
        #expect(BrowserRequest.acceptLanguage(portal: language, environment: environment) == expected)
    }

    @Test("every kind of request carries it, and only when the session has one")
    func everyKind() {
        for kind in [BrowserRequest.Kind.navigation, .formPost, .fetch] {
            let request = BrowserRequest(
                kind: kind, method: kind == .formPost ? "POST" : "GET", url: URL(string: "https://portal.example.edu/a")!,
                referrer: URL(string: "https://portal.example.edu/")!, acceptLanguage: "hu,en;q=0.8")
            #expect(request.headers.filter { $0.name == "Accept-Language" }.map(\.value) == ["hu,en;q=0.8"], "\(kind)")
            var without = request
            without.acceptLanguage = nil
            #expect(!without.headers.contains { $0.name == "Accept-Language" }, "\(kind)")
        }
    }
}
