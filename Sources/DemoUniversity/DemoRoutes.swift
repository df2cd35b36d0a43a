import Foundation
import HTTPTypes
import Hummingbird
import MessageDigest
import NIOCore
import OneTimeCode

/// The demo's HTTP surface.
///
/// SP: `/home`, `/grades`, `/terms`, `/api/terms/version`, and the Shibboleth-style endpoints
/// `/Shibboleth.sso/SAML2/POST` (the ACS) and `/logout`.
/// IdP: `/idp/profile/SAML2/Redirect/SSO`, a two-step login (user ID, then password) with a
/// CSRF token in every form.
struct DemoRoutes: Sendable {
    let state: DemoState
    /// The key the IdP and SP share for the assertion's integrity check.
    let samlKeyBytes: Data
    var samlKey: [UInt8] { Array(samlKeyBytes) }
    let faults: DemoFaults
    /// A random name for this run of the demo.
    let bootID: String
    /// The demo's clock: loans fall due and the term runs relative to it. Fixed in tests.
    let now: @Sendable () -> Date
    /// The IdP's origin, for the services on other hosts; nil (or the same host): the request's.
    var idpOrigin = DemoIdPOrigin()
    /// The key of `unitool demo serve`'s rendezvous file, whose proof a command asks before it
    /// uses this demo; nil for a demo no one looks for.
    var rendezvous: DemoRendezvous? = nil

    func register(on router: Router<BasicRequestContext>) {
        router.get("/") { _, _ in Self.redirect(to: "/home") }
        router.get("/home") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(Pages.home(user: user))
            }
        }
        // The same page at an address with a trailing slash, as many portals' start pages are.
        router.get("/campus/") { request, context in
            try await self.withUser(request, context) { user in
                Self.html(Pages.home(user: user))
            }
        }
        router.get("/grades") { request, context in
            try await self.withUser(request, context) { user in
                let query = FormDecoding.dictionary(request.uri.query)
                let termID = query["term"] ?? DemoData.currentTerm
                let terms = DemoData.terms(count: self.faults.termCount)
                guard let term = terms.first(where: { $0.id == termID }) else {
                    return Self.html(Pages.notFound("There is no term '\(termID)'.", user: user), status: .notFound)
                }
                let current = await self.state.withPostedGrades(user)
                let layoutChanged = await self.state.layoutChangedNow
                let page = Pages.grades(user: current, term: term, terms: terms, layoutChanged: self.faults.layoutChanged || layoutChanged)
                guard let hostile = self.faults.hostileXML else { return Self.html(page) }
                // A data page with the same DOCTYPE, and the entity in a course's cell.
                let doctype = Self.hostileDoctype(hostile, origin: Self.origin(of: request), root: "html")
                return Self.html(
                    doctype + "\n"
                        + page.replacingOccurrences(of: "<!DOCTYPE html>", with: "")
                        .replacingOccurrences(of: "<td class=\"course\">", with: "<td class=\"course\">\(hostile.entityReference)"))
            }
        }
        registerCampus(on: router)
        registerStudentLife(on: router)
        registerLearning(on: router)
        registerCAS(on: router)
        router.get(RouterPath(DemoRendezvous.proofPath)) { request, _ in
            // The proof a command asks for before it trusts a served demo found by its file.
            guard let rendezvous = self.rendezvous, let nonce = FormDecoding.dictionary(request.uri.query)["nonce"],
                (1...128).contains(nonce.count), nonce.allSatisfy(\.isHexDigit)
            else { return Self.html(HTML.page(title: "Not found", body: "<h1>Not found</h1>"), status: .notFound) }
            var headers = HTTPFields()
            headers[.contentType] = "text/plain; charset=utf-8"
            headers[.cacheControl] = "no-store"
            let proof = ByteBuffer(string: rendezvous.proof(nonce: nonce))
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: proof))
        }
        router.get("/api/terms/version") { request, context in
            guard self.faults.termsAPI == .protected else { return try await self.termsVersionAPI() }
            return try await self.withUser(request, context) { _ in try await self.termsVersionAPI() }
        }
        router.get("/terms") { _, _ in
            let version = await self.state.termsVersion
            return Self.html(HTML.page(title: "Terms of use", body: Pages.terms(version: version)))
        }
        router.get("/logout") { _, _ in
            var headers = HTTPFields()
            headers[.location] = "/home"
            headers.append(HTTPField(name: .setCookie, value: "\(DemoUniversity.sessionCookie)=; Path=/; Max-Age=0"))
            return Response(status: .seeOther, headers: headers)
        }
        router.get("/Shibboleth.sso/DS") { request, _ in
            Self.html(Pages.discovery(target: FormDecoding.dictionary(request.uri.query)["target"] ?? "/home"))
        }
        router.get("/Shibboleth.sso/Login") { request, _ in await self.discoveryLogin(request) }
        router.post("/Shibboleth.sso/SAML2/POST") { request, context in try await self.assertionConsumer(request, context) }
        router.get("/idp/profile/SAML2/Redirect/SSO") { request, context in try await self.idpStart(request, context) }
        router.post("/idp/profile/SAML2/POST/SSO") { request, context in try await self.idpStartPost(request, context) }
        router.get("/reminder") { request, context in
            try await self.withUser(request, context) { _ in
                let target = FormDecoding.dictionary(request.uri.query)["target"] ?? "/home"
                if self.faults.loginVariants.contains(.reminderForm) {
                    return Self.html(
                        HTML.page(
                            title: "Contact e-mail",
                            body: """
                                <h1>Please confirm your contact e-mail</h1>
                                <form id="contact" method="post" action="/reminder?target=\(HTML.escape(target.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "/home"))">
                                  <input type="email" name="email" value="alice@example.edu">
                                  <button type="submit" name="confirm" value="1">Confirm</button>
                                  <button type="submit" name="later" value="1">Remind me later</button>
                                </form>
                                """))
                }
                return Self.html(
                    HTML.page(
                        title: "アンケート",
                        body:
                            "<h1>授業アンケートにご協力ください</h1><p><a href=\"/survey\">回答する</a> <a id=\"answer-later\" href=\"\(HTML.escape(target))\">後で回答する</a></p>"
                    ))
            }
        }
        router.post("/reminder") { request, context in
            try await self.withUser(request, context) { _ in
                var request = request
                let form = FormDecoding.dictionary(String(buffer: try await request.collectBody(upTo: 1 << 16)))
                guard form["later"] == "1" || form["confirm"] == "1" else {
                    return Self.html(HTML.page(title: "Contact e-mail", body: "<h1>Choose an answer</h1>"), status: .badRequest)
                }
                return Self.redirect(to: FormDecoding.dictionary(request.uri.query)["target"] ?? "/home")
            }
        }
        router.post("/idp/profile/SAML2/Redirect/SSO") { request, context in try await self.idpStep(request, context) }
        // A small lab for the session engine's tests: redirects of every kind, echoed back.
        router.post("/lab/redirect/{code}") { _, context in
            let code = Int(context.parameters.get("code") ?? "") ?? 302
            return Self.redirect(to: "/lab/echo", status: HTTPResponse.Status(code: code))
        }
        // How many requests the demo has served, this one not counted: for benchmarks.
        router.get("/lab/stats") { _, _ in
            let requests = await self.state.requests.filter { $0.path != "/lab/stats" }
            return Self.json("{\"requests\": \(requests.count), \"terms_checks\": \(requests.filter(\.isTermsCheck).count)}")
        }
        router.get("/lab/signed") { _, _ in Self.redirect(to: DemoUniversity.signedRedirectLocation, status: .found) }
        router.get("/lab/loop") { _, _ in Self.redirect(to: "/lab/loop", status: .found) }
        // The same redirect, to a look-alike origin (localhost for 127.0.0.1), and to a local file.
        router.post("/lab/redirect-elsewhere/{code}") { request, context in
            let code = Int(context.parameters.get("code") ?? "") ?? 307
            let lookalike = Self.origin(of: request).replacingOccurrences(of: "127.0.0.1", with: "localhost")
            return Self.redirect(to: lookalike + "/lab/echo", status: HTTPResponse.Status(code: code))
        }
        router.get("/lab/redirect-file") { _, _ in Self.redirect(to: "file:///etc/passwd", status: .found) }
        router.get("/lab/echo") { request, _ in Self.echo(request, body: "") }
        router.post("/lab/echo") { request, _ in
            var request = request
            return Self.echo(request, body: String(buffer: try await request.collectBody(upTo: 1 << 16)))
        }
        router.get("/static/site.css") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "text/css"
            return Response(
                status: .ok, headers: headers,
                body: .init(byteBuffer: ByteBuffer(string: "body{font-family:sans-serif;margin:2em}")))
        }
    }

    // MARK: Helpers

    /// A DOCTYPE that a careless parser would act on: an external DTD and an external entity on
    /// this demo (so that a fetch would show in its request log) and a local file, or nested
    /// entities that expand to gigabytes.
    static func hostileDoctype(_ kind: DemoFaults.HostileXML, origin: String, root: String) -> String {
        switch kind {
        case .xxe:
            return """
                <!DOCTYPE \(root) SYSTEM "\(origin)/lab/hostile.dtd" [
                  <!ENTITY xxe SYSTEM "file:///etc/passwd">
                  <!ENTITY remote SYSTEM "\(origin)/lab/hostile-entity">
                ]>
                """
        case .laughs:
            let levels = (1...9).map { level in
                "  <!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
            }
            return "<!DOCTYPE \(root) [\n  <!ENTITY lol0 \"lol\">\n" + levels.joined(separator: "\n") + "\n]>"
        case .quadratic:
            return "<!DOCTYPE \(root) [\n  <!ENTITY big \"" + String(repeating: "A", count: 20_000) + "\">\n]>"
        }
    }

    static func origin(of request: Request) -> String {
        "http://\(request.head.authority ?? "127.0.0.1")"
    }

    static func html(_ body: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}
