import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@testable import DemoUniversity

/// The demo's routes request by request, in process through Hummingbird's `app.test(.router)`:
/// no socket, no client of ours in between. What a real portal answers at each step is what the
/// demo must answer, so these pin the imitation itself; the login through them is tested by the
/// service's tests.
@Suite("The demo university's routes, through app.test")
struct DemoRoutesTests {
    @Test("the terms API answers the version and the address of the terms as JSON")
    func termsVersion() async throws {
        try await DemoUniversity.application().test(.router) { client in
            try await client.execute(uri: "/api/terms/version", method: .get) { response in
                #expect(response.status == .ok)
                #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
                let body = String(buffer: response.body)
                #expect(body.contains("\"version\": \"\(DemoUniversity.initialTermsVersion)\""), "\(body)")
                #expect(body.contains("\"url\": \"/terms\""))
            }
        }
    }

    @Test("a data page without a session sends the browser to the IdP with a SAML request and a RelayState, as the Shibboleth SP does")
    func dataPageNeedsALogin() async throws {
        try await DemoUniversity.application().test(.router) { client in
            try await client.execute(uri: "/grades?term=2026-fall", method: .get) { response in
                #expect(response.status.code / 100 == 3, "\(response.status)")
                let location = response.headers[.location] ?? ""
                #expect(location.contains("/idp/profile/SAML2/Redirect/SSO?SAMLRequest="), "\(location)")
                // The SP keeps the page asked for under the RelayState, not in the address.
                #expect(location.contains("&RelayState=rs-"), "\(location)")
            }
        }
    }

    @Test(
        "the terms API's faults: a 500, a maintenance page where JSON was expected", arguments: ["terms-api=error", "terms-api=not-json"])
    func termsFaults(fault: String) async throws {
        try await DemoUniversity.application(faults: try DemoFaults(parsing: fault)).test(.router) { client in
            try await client.execute(uri: "/api/terms/version", method: .get) { response in
                if fault == "terms-api=error" {
                    #expect(response.status == .internalServerError)
                } else {
                    #expect(response.status == .ok)
                    #expect(response.headers[.contentType]?.hasPrefix("text/html") == true)
                }
                #expect(!String(buffer: response.body).contains("\"version\""))
            }
        }
    }

    @Test("busy=429: the first request of an address is 429 with Retry-After, the same address asked again is served")
    func busyOnce() async throws {
        try await DemoUniversity.application(faults: try DemoFaults(parsing: "busy=429")).test(.router) { client in
            try await client.execute(uri: "/terms", method: .get) { response in
                #expect(response.status == .tooManyRequests)
                #expect(response.headers[.retryAfter] == "1")
            }
            try await client.execute(uri: "/terms", method: .get) { response in
                #expect(response.status == .ok)
            }
        }
    }

    @Test("logout deletes the session cookie and sends the browser home")
    func logout() async throws {
        try await DemoUniversity.application().test(.router) { client in
            try await client.execute(uri: "/logout", method: .get) { response in
                #expect(response.status == .seeOther)
                #expect(response.headers[.location] == "/home")
                #expect(response.headers[.setCookie]?.contains("Max-Age=0") == true)
            }
        }
    }
}
