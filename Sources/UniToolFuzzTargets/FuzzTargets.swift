import Foundation
import LibXML
import UniToolKit
import UniToolRPC

/// The parsers that read what a portal, a recipe author or a JSON-RPC client sends, as fuzz
/// targets.
///
/// Each target takes arbitrary bytes. Rejecting them with unitool's own error is fine; anything
/// else is a finding: a crash (libFuzzer catches it), a hang, or a broken invariant, which `run`
/// throws as ``FuzzFinding``. The same code runs in two places: under libFuzzer
/// (`Scripts/fuzz.sh`), and in the normal test suite, which replays the committed corpus and
/// every past finding (`Fuzz/Corpus/<target>/`).
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// The HTML and XML parse plus a recipe's XPath extraction, as for a portal page or a feed.
    case extraction
    /// The recipe loader (YAML, then the recipe language), for data and portal recipes.
    case recipe
    /// The JSON-RPC reader: framing (both kinds), the JSON parser and the request envelope.
    case rpc
    /// The `Set-Cookie` parser and the cookie jar.
    case cookie
    /// The form model: the fields a browser would send, and where.
    case form

    public func run(_ data: [UInt8]) throws {
        switch self {
        case .extraction: try ExtractionTarget.run(data)
        case .recipe: try RecipeTarget.run(data)
        case .rpc: try RPCTarget.run(data)
        case .cookie: try CookieTarget.run(data)
        case .form: try FormTarget.run(data)
        }
    }
}

/// A broken invariant: the input was handled without a crash, but wrongly.
public struct FuzzFinding: Error, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}

/// unitool's own errors are the expected way to reject input; anything else is a finding.
func expectUniToolError(_ error: any Error, _ what: String) throws {
    guard error is UniToolError else {
        throw FuzzFinding("\(what) failed with \(type(of: error)), not a UniToolError: \(error)")
    }
}

enum ExtractionTarget {
    /// A recipe that uses every kind of field: whole-page and per-row XPaths, regex, numbers,
    /// dates, links, booleans and a nested list, plus pagination.
    static let htmlRecipe = try! DataRecipe.load(
        file: "fuzz/table.yaml",
        text: """
            command: table
            summary: fuzzing
            fetch: /table
            rows: "//table//tr[td]"
            empty_when: "//p[@class='empty']"
            next: "//a[@rel='next']/@href"
            max_pages: 2
            fields:
              term:    { xpath: "//select/option[@selected]/@value" }
              title:   { xpath: "td[1]", required: true }
              code:    { xpath: "td[2]", regex: "([A-Z]+-?[0-9]*)" }
              credits: { xpath: "td[3]", type: number }
              count:   { xpath: "count(td)", type: integer }
              due:     { xpath: "td[4]", type: date, format: dd.MM.yyyy }
              at:      { xpath: "td[5]", type: datetime, format: "yyyy-MM-dd HH:mm", timezone: Europe/Berlin }
              link:    { xpath: "td//a/@href", type: url }
              flag:    { xpath: "boolean(td[@class='x'])", type: bool }
              parts:
                list:
                  rows: "td/span"
                  fields:
                    text: { xpath: "." }
            """,
        portal: "fuzz")

    static let feedRecipe = try! DataRecipe.load(
        file: "fuzz/feed.yaml",
        text: """
            command: feed
            summary: fuzzing
            fetch: /feed
            parse: xml
            namespaces: { atom: "http://www.w3.org/2005/Atom" }
            rows: "//item | //atom:entry"
            fields:
              title:     { xpath: "title | atom:title", required: true }
              link:      { xpath: "link | atom:link/@href", type: url }
              published: { xpath: "pubDate", type: datetime, format: rfc822 }
              updated:   { xpath: "atom:updated", type: datetime, format: iso8601 }
            """,
        portal: "fuzz")

    static func run(_ data: [UInt8]) throws {
        let url = URL(string: "https://portal.example.edu/table")!
        for recipe in [htmlRecipe, feedRecipe] {
            let extractor = RecordExtractor(recipe: recipe, today: "2026-11-23")
            let document: Document
            do {
                document = try extractor.parse(data, url: url, charset: nil)
            } catch {
                try expectUniToolError(error, "parsing")
                continue
            }
            do {
                let records = try extractor.extract(from: document)
                // Every record has the recipe's fields, in its order: nothing dropped silently.
                let names = recipe.primary.fields.map(\.name)
                for record in records.records where record.fields.map(\.name) != names {
                    throw FuzzFinding("a record has fields \(record.fields.map(\.name)), expected \(names)")
                }
            } catch let finding as FuzzFinding {
                throw finding
            } catch {
                try expectUniToolError(error, "extraction")
            }
            do {
                // Any address a page names is possible here (file:, javascript:, another host);
                // the session refuses all but http and https (HTTPSessionTests), so nothing to check.
                _ = try extractor.nextPage(in: document)
            } catch let finding as FuzzFinding {
                throw finding
            } catch {
                try expectUniToolError(error, "finding the next page")
            }
            // Drift reports save the page with form values removed; that must work on any page.
            _ = document.markupWithoutFormValues()
        }
    }
}

enum RecipeTarget {
    static func run(_ data: [UInt8]) throws {
        let text = String(decoding: data, as: UTF8.self)
        do {
            _ = try DataRecipe.load(file: "fuzz/data.yaml", text: text, portal: "fuzz")
        } catch {
            try expectUniToolError(error, "loading a data recipe")
            // A recipe error must say where: the file name is the least of it.
            if !"\(error)".contains("fuzz/data.yaml") {
                throw FuzzFinding("a recipe error does not name the file: \(error)")
            }
        }
        do {
            _ = try PortalRecipe.load(file: "fuzz/portal.yaml", text: text)
        } catch {
            try expectUniToolError(error, "loading a portal recipe")
        }
    }
}

enum RPCTarget {
    static func run(_ data: [UInt8]) throws {
        guard let control = data.first else { return }
        let body = Array(data.dropFirst())
        // The first byte picks the framing and how the stream is cut into reads, so that the
        // fuzzer explores messages split at every point.
        let framing: RPCFraming = control & 1 == 0 ? .newline : .contentLength
        let chunkSize = Int(control >> 1) + 1
        let limit = 512
        var reader = RPCMessageReader(framing: framing, maxMessageBytes: limit)
        var items: [RPCMessageReader.Item] = []
        var offset = 0
        while offset < body.count {
            let end = min(offset + chunkSize, body.count)
            items += reader.feed(Array(body[offset..<end]))
            offset = end
        }
        items += reader.finish()
        for item in items {
            guard case .message(let bytes) = item else { continue }
            if bytes.count > limit {
                throw FuzzFinding("the reader passed on a \(bytes.count)-byte message over its \(limit)-byte limit")
            }
            let value: JSONValue
            do {
                value = try JSONParser.parse(bytes)
            } catch is JSONParser.Failure {
                continue
            }
            // What unitool writes, it must read back as the same value.
            let text = value.serialized
            let again: JSONValue
            do {
                again = try JSONParser.parse(text)
            } catch {
                throw FuzzFinding("unitool's own JSON does not parse: \(text): \(error)")
            }
            if again != value {
                throw FuzzFinding("JSON changed in a round trip: \(text) came back as \(again.serialized)")
            }
            switch value {
            case .array(let batch): for element in batch { _ = RPCEnvelope.decode(element) }
            default: _ = RPCEnvelope.decode(value)
            }
        }
    }
}

enum CookieTarget {
    static let now = Date(timeIntervalSince1970: 1_795_000_000)

    /// The first line picks the URL the cookies came from (a fixed one when it is not a URL);
    /// every further line is one `Set-Cookie` header.
    static func run(_ data: [UInt8]) throws {
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        guard let first = lines.first else { return }
        let origin =
            URL(string: String(first)).flatMap { $0.host == nil ? nil : $0 }
            ?? URL(string: "https://login.example.edu/idp/profile/SAML2")!
        var jar = CookieJar()
        for line in lines.dropFirst() {
            guard let cookie = Cookie.parse(setCookie: String(line), from: origin, now: now) else { continue }
            if cookie.secure && origin.scheme?.lowercased() != "https" {
                throw FuzzFinding("a Secure cookie was accepted from \(origin.scheme ?? "no scheme")")
            }
            let host = origin.host!.lowercased()
            if !(host == cookie.domain || host.hasSuffix("." + cookie.domain)) {
                throw FuzzFinding("\(host) set a cookie for the unrelated domain '\(cookie.domain)'")
            }
            if cookie.name.isEmpty { throw FuzzFinding("a cookie without a name was accepted") }
            jar.store(cookie, now: now)
        }
        // No Secure cookie ever goes over plain HTTP, whatever the jar holds.
        for scheme in ["http", "https"] {
            guard let target = URL(string: "\(scheme)://\(origin.host!)\(origin.path.isEmpty ? "/" : origin.path)") else { continue }
            for cookie in jar.cookies(for: target, now: now) where cookie.secure && scheme == "http" {
                throw FuzzFinding("the Secure cookie '\(cookie.name)' would go to \(target)")
            }
            _ = jar.header(for: target, now: now)
        }
        // The saved session is the jar as JSON: it must come back the same.
        let saved = try SessionStore.encode(jar)
        let restored = try SessionStore.decode(saved)
        if restored != jar { throw FuzzFinding("the cookie jar changed when saved and read back") }
    }
}

enum FormTarget {
    static func run(_ data: [UInt8]) throws {
        let pageURL = URL(string: "https://login.example.edu/idp/profile/SAML2/Redirect/SSO?execution=e1s1")!
        let document: Document
        do {
            document = try Document(html: data, url: pageURL.absoluteString)
        } catch {
            return
        }
        for node in try document.select("//form") {
            let form: HTMLForm
            do {
                form = try HTMLForm(node, pageURL: pageURL)
            } catch {
                try expectUniToolError(error, "reading a form")
                continue
            }
            let secret = "pässwörd &=+%"
            var submission: FormSubmission
            do {
                submission = try form.submission(values: [("j_username", "student"), ("j_password", secret)])
            } catch {
                try expectUniToolError(error, "submitting a form")
                continue
            }
            submission.secretFieldNames = ["j_password"]
            // The set value is sent (a submit button may share the name, as in a browser); the
            // secret is never in the description.
            if !submission.fields.contains(where: { $0.name == "j_password" && $0.value == secret }) {
                throw FuzzFinding("the password set for j_password is not in the submission")
            }
            if submission.description.contains(secret) {
                throw FuzzFinding("a submission's description shows a field value")
            }
            let encoded = submission.encodedFields
            if encoded.contains(" ") || encoded.unicodeScalars.contains(where: { !$0.isASCII }) {
                throw FuzzFinding("the form body is not URL-encoded: \(encoded)")
            }
            if submission.method != "GET" && submission.method != "POST" {
                throw FuzzFinding("a form would be sent with method \(submission.method)")
            }
            _ = submission.requestURL
        }
    }
}
