import Foundation
import Testing

@testable import UniToolKit

/// Which of a browser's cookies a portal's session takes (`PortalConnection.origin(_:holds:)`):
/// only those the browser would send to one of the portal's own origins.
struct BrowserSessionCookieTests {
    static func cookie(_ domain: String, hostOnly: Bool) -> Cookie {
        Cookie(
            name: "s", value: "v", domain: domain, hostOnly: hostOnly, path: "/campus", expires: nil, secure: false, httpOnly: true,
            created: Date())
    }

    @Test("a host-only cookie goes to its host only; a domain cookie to the domain and its subdomains")
    func origins() {
        #expect(PortalConnection.origin("https://portal.example.edu", holds: Self.cookie("portal.example.edu", hostOnly: true)))
        #expect(!PortalConnection.origin("https://lms.portal.example.edu", holds: Self.cookie("portal.example.edu", hostOnly: true)))
        #expect(PortalConnection.origin("https://portal.example.edu", holds: Self.cookie("example.edu", hostOnly: false)))
        #expect(!PortalConnection.origin("https://portal.example.edu", holds: Self.cookie("login.example.edu", hostOnly: false)))
        #expect(!PortalConnection.origin("https://portal.example.edu", holds: Self.cookie("microsoftonline.com", hostOnly: false)))
        #expect(!PortalConnection.origin("https://badexample.edu", holds: Self.cookie("example.edu", hostOnly: false)))
    }
}
