import DemoUniversity
import Foundation
import Logging
import Testing
import UniToolKit

/// The session engine's HTTP behaviour against the demo university's lab routes.
@Suite("HTTP session: redirects as a browser follows them")
struct HTTPSessionTests {
    func withSession(_ body: (HTTPSession, URL) async throws -> Void) async throws {
        let demo = try await DemoUniversity.start()
        let session = HTTPSession(logger: Logger(label: "test"))
        let result = await Result { try await body(session, demo.baseURL) }
        await session.shutdown()
        await demo.stop()
        try result.get()
    }

    func post(_ session: HTTPSession, _ url: URL) async throws -> Page {
        try await session.submit(FormSubmission(method: "POST", url: url, fields: [("note", "kept?")]))
    }

    @Test("301, 302 and 303 turn a POST into a GET without a body; 307 and 308 repeat the POST and its body")
    func redirectSemantics() async throws {
        try await withSession { session, base in
            for code in [301, 302, 303] {
                let page = try await post(session, base.appendingPathComponent("lab/redirect/\(code)"))
                #expect(page.text.contains("method=GET"), "\(code): \(page.text)")
                #expect(page.text.contains("body=\n"), "\(code): \(page.text)")
            }
            for code in [307, 308] {
                let page = try await post(session, base.appendingPathComponent("lab/redirect/\(code)"))
                #expect(page.text.contains("method=POST"), "\(code): \(page.text)")
                #expect(page.text.contains("body=note=kept%3F"), "\(code): \(page.text)")
            }
        }
    }

    @Test("a signed redirect URL reaches the server byte for byte, never re-encoded")
    func signedRedirectIsKept() async throws {
        try await withSession { session, base in
            let page = try await session.get(base.appendingPathComponent("lab/signed"))
            let expected = String(DemoUniversity.signedRedirectLocation.split(separator: "?", maxSplits: 1)[1])
            #expect(page.text.contains("query=\(expected)\n"), "\(page.text)")
            #expect(page.hops.count == 2)
        }
    }

    @Test("a redirect loop is cut off with a portal error that says so")
    func redirectLoopIsCapped() async throws {
        try await withSession { session, base in
            do {
                _ = try await session.get(base.appendingPathComponent("lab/loop"))
                Issue.record("a redirect loop should fail")
            } catch let error as UniToolError {
                #expect(error.kind == .portalError)
                #expect(error.message.contains("redirected more than 20 times"))
            }
            #expect(session.requestCount == 21)
        }
    }

    @Test("a 307 or 308 never repeats a form with a password to another origin; a form without one follows")
    func secretsAreNotRepeatedElsewhere() async throws {
        try await withSession { session, base in
            for code in [307, 308] {
                var submission = FormSubmission(
                    method: "POST", url: base.appendingPathComponent("lab/redirect-elsewhere/\(code)"),
                    fields: [("j_username", "alice"), ("j_password", "secret")])
                submission.secretFieldNames = ["j_password"]
                let before = session.requestCount
                await #expect { try await session.submit(submission) } throws: { ($0 as? UniToolError)?.kind == .unsafeRequest }
                #expect(session.requestCount == before + 1, "nothing was sent to the second origin")
                do {
                    _ = try await session.submit(submission)
                } catch let error as UniToolError {
                    #expect(error.kind == .unsafeRequest)
                    #expect(error.message.contains("refusing to repeat a form that carries a password to http://localhost:"))
                    #expect(!error.message.contains("secret"))
                }
                let plain = try await post(session, base.appendingPathComponent("lab/redirect-elsewhere/\(code)"))
                #expect(plain.url.host == "localhost" && plain.text.contains("method=POST"), "\(plain.text)")
            }
        }
    }

    @Test("only http and https are fetched: a file: address or a redirect to one is refused")
    func onlyHTTP() async throws {
        try await withSession { session, base in
            for url in [URL(string: "file:///etc/passwd")!, base.appendingPathComponent("lab/redirect-file")] {
                do {
                    let page = try await session.get(url)
                    Issue.record("\(url) gave \(page.text.prefix(40))")
                } catch let error as UniToolError {
                    #expect(error.kind == .unsafeRequest)
                    #expect(error.message.contains("unitool fetches only http and https addresses"), "\(error)")
                }
            }
        }
    }
}
