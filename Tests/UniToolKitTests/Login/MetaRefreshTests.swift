import Foundation
import LibXML
import Testing

@testable import UniToolKit

@Suite("Meta refresh: what a browser follows at once, and what it does not")
struct MetaRefreshTests {
    let page = URL(string: "https://portal.example.edu/start/here")!

    func refresh(_ content: String, attribute: String = "http-equiv=\"refresh\"") throws -> URL? {
        let document = try Document(html: "<html><head><meta \(attribute) content=\"\(content)\"></head><body></body></html>")
        return MetaRefresh(document, pageURL: page)?.url
    }

    @Test(
        "the forms portals write: quoted or not, url= in any case, relative addresses resolved",
        arguments: [
            ("0; url=/idp/sso", "https://portal.example.edu/idp/sso"), ("0;URL='https://idp.example/x?a=1'", "https://idp.example/x?a=1"),
            ("2; url = next", "https://portal.example.edu/start/next"), ("0; https://idp.example/", "https://idp.example/"),
        ] as [(String, String)])
    func followed(content: String, expected: String) throws {
        #expect(try refresh(content)?.absoluteString == expected)
    }

    @Test("a slow refresh, a refresh without an address, or another meta are not followed")
    func notFollowed() throws {
        #expect(try refresh("30; url=/later") == nil)
        #expect(try refresh("0") == nil)
        #expect(try refresh("0; url=") == nil)
        #expect(try refresh("0; url=/x", attribute: "name=\"refresh\"") == nil)
        #expect(try refresh("0; url=/x", attribute: "http-equiv=\"REFRESH\"") != nil)
    }
}
