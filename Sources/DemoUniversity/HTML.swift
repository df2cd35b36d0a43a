import Foundation
import LibXML

/// Small helpers for the demo's hand-written pages.
enum HTML {
    static func escape(_ text: String) -> String { text.htmlEscaped() }

    /// A complete page in the demo's house style.
    static func page(title: String, body: String, signedIn: String? = nil) -> String {
        let account =
            signedIn.map {
                "<span class=\"account\">\(escape($0))</span> <a id=\"logout\" href=\"/logout\">Log out</a>"
            } ?? ""
        return """
            <!DOCTYPE html>
            <html lang="en">
            <head>
              <meta charset="utf-8">
              <meta name="viewport" content="width=device-width, initial-scale=1">
              <title>\(escape(title)) – Demo University</title>
              <link rel="stylesheet" href="/static/site.css">
            </head>
            <body>
              <header class="site-header">
                <a class="brand" href="/home">Demo University</a>
                <nav><a href="/home">Home</a> <a href="/courses">Courses</a> <a href="/grades">Grades</a> <a href="/library">Library</a> <a href="/news">News</a></nav>
                \(account)
              </header>
              <main>
            \(body)
              </main>
              <footer><a href="/terms">Terms of use</a> · Demo University is a demonstration portal bundled with unitool.</footer>
            </body>
            </html>

            """
    }
}

/// `application/x-www-form-urlencoded` and query strings.
enum FormDecoding {
    static func decode(_ text: String) -> [(String, String)] {
        text.split(separator: "&").compactMap { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = unescape(parts[0]) else { return nil }
            return (name, parts.count > 1 ? unescape(parts[1]) ?? "" : "")
        }
    }

    static func dictionary(_ text: String?) -> [String: String] {
        var result: [String: String] = [:]
        for (name, value) in decode(text ?? "") where result[name] == nil { result[name] = value }
        return result
    }

    private static func unescape(_ text: Substring) -> String? {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }
}
