import Foundation
import LibXML
import MessageDigest

/// The SAML 2.0 messages the demo's IdP and SP exchange.
///
/// Real IdPs sign assertions with XML-DSig and a certificate. The demo stands that in with an
/// HMAC over the fields the SP relies on, keyed by a secret the IdP and SP share. The checks the SP
/// makes (`InResponseTo`, `Audience`, the time window, integrity) are the real ones.
enum SAML {
    static let protocolNS = "urn:oasis:names:tc:SAML:2.0:protocol"
    static let assertionNS = "urn:oasis:names:tc:SAML:2.0:assertion"
    static let namespaces = ["samlp": protocolNS, "saml": assertionNS, "demo": "urn:unitool:demo"]

    struct AuthnRequest {
        var id: String
        var issuer: String
        var assertionConsumerServiceURL: String
    }

    static func newID() -> String {
        "_" + (0..<20).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
    }

    // MARK: AuthnRequest, HTTP-Redirect binding

    static func authnRequestXML(_ request: AuthnRequest, destination: String, now: Date) -> String {
        """
        <samlp:AuthnRequest xmlns:samlp="\(protocolNS)" xmlns:saml="\(assertionNS)" ID="\(request.id)" \
        Version="2.0" IssueInstant="\(iso(now))" Destination="\(escape(destination))" \
        AssertionConsumerServiceURL="\(escape(request.assertionConsumerServiceURL))" \
        ProtocolBinding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST">\
        <saml:Issuer>\(escape(request.issuer))</saml:Issuer>\
        <samlp:NameIDPolicy Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent" AllowCreate="true"/>\
        </samlp:AuthnRequest>
        """
    }

    /// `SAMLRequest` as the redirect binding carries it: deflated, then base64.
    static func encodeRedirect(_ xml: String) -> String {
        Data(Deflate.compress(Array(xml.utf8))).base64EncodedString()
    }

    static func decodeRedirect(_ parameter: String) -> AuthnRequest? {
        guard let deflated = Data(base64Encoded: parameter), let xml = Deflate.decompress(Array(deflated)) else { return nil }
        return parseAuthnRequest(xml)
    }

    /// An AuthnRequest of the HTTP-POST binding: base64 of the XML, not deflated.
    static func decodePost(_ parameter: String) -> AuthnRequest? {
        guard let xml = Data(base64Encoded: parameter) else { return nil }
        return parseAuthnRequest(Array(xml))
    }

    private static func parseAuthnRequest(_ xml: [UInt8]) -> AuthnRequest? {
        guard let document = try? Document(xml: xml),
            let id = try? document.evaluate("string(/samlp:AuthnRequest/@ID)", namespaces: namespaces).stringValue,
            let acs = try? document.evaluate(
                "string(/samlp:AuthnRequest/@AssertionConsumerServiceURL)", namespaces: namespaces
            ).stringValue,
            let issuer = try? document.evaluate("string(/samlp:AuthnRequest/saml:Issuer)", namespaces: namespaces)
                .stringValue,
            !id.isEmpty, !acs.isEmpty
        else { return nil }
        return AuthnRequest(id: id, issuer: issuer, assertionConsumerServiceURL: acs)
    }

    // MARK: Response, HTTP-POST binding

    struct Assertion: Equatable {
        var id: String
        var inResponseTo: String
        var audience: String
        var recipient: String
        var notBefore: String
        var notOnOrAfter: String
        var nameID: String

        var signedText: String {
            [id, inResponseTo, audience, recipient, notBefore, notOnOrAfter, nameID].joined(separator: "|")
        }
    }

    static func responseXML(_ assertion: Assertion, issuer: String, key: [UInt8]) -> String {
        let mac = Data(MessageDigest.hmac(.sha256, key: key, message: assertion.signedText.utf8))
            .base64EncodedString()
        return """
            <samlp:Response xmlns:samlp="\(protocolNS)" xmlns:saml="\(assertionNS)" ID="\(newID())" Version="2.0" \
            IssueInstant="\(assertion.notBefore)" Destination="\(escape(assertion.recipient))" InResponseTo="\(assertion.inResponseTo)">\
            <saml:Issuer>\(escape(issuer))</saml:Issuer>\
            <samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>\
            <saml:Assertion ID="\(assertion.id)" Version="2.0" IssueInstant="\(assertion.notBefore)">\
            <saml:Issuer>\(escape(issuer))</saml:Issuer>\
            <saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:persistent">\(escape(assertion.nameID))</saml:NameID>\
            <saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">\
            <saml:SubjectConfirmationData InResponseTo="\(assertion.inResponseTo)" NotOnOrAfter="\(assertion.notOnOrAfter)" Recipient="\(escape(assertion.recipient))"/>\
            </saml:SubjectConfirmation></saml:Subject>\
            <saml:Conditions NotBefore="\(assertion.notBefore)" NotOnOrAfter="\(assertion.notOnOrAfter)">\
            <saml:AudienceRestriction><saml:Audience>\(escape(assertion.audience))</saml:Audience></saml:AudienceRestriction>\
            </saml:Conditions>\
            <saml:AuthnStatement AuthnInstant="\(assertion.notBefore)"><saml:AuthnContext>\
            <saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>\
            </saml:AuthnContext></saml:AuthnStatement>\
            </saml:Assertion>\
            <demo:Integrity xmlns:demo="urn:unitool:demo" Algorithm="hmac-sha256">\(mac)</demo:Integrity>\
            </samlp:Response>
            """
    }

    enum ValidationError: Error, CustomStringConvertible {
        case malformed, integrity, unknownRequest, audience, expired, recipient
        var description: String {
            switch self {
            case .malformed: return "the SAMLResponse is not a SAML response"
            case .integrity: return "the assertion's integrity check failed"
            case .unknownRequest: return "InResponseTo does not match a request this SP sent"
            case .audience: return "the assertion is for another audience"
            case .expired: return "the assertion is outside its validity window"
            case .recipient: return "the assertion was issued for another ACS"
            }
        }
    }

    /// Parses a `SAMLResponse` form value and checks its integrity. The caller checks the rest.
    static func parseResponse(_ parameter: String, key: [UInt8]) throws -> Assertion {
        guard let xml = Data(base64Encoded: parameter), let document = try? Document(xml: Array(xml)) else {
            throw ValidationError.malformed
        }
        func value(_ path: String) throws -> String {
            try document.evaluate("string(\(path))", namespaces: namespaces).stringValue
        }
        let base = "/samlp:Response/saml:Assertion"
        let assertion = Assertion(
            id: try value("\(base)/@ID"),
            inResponseTo: try value("\(base)/saml:Subject/saml:SubjectConfirmation/saml:SubjectConfirmationData/@InResponseTo"),
            audience: try value("\(base)/saml:Conditions/saml:AudienceRestriction/saml:Audience"),
            recipient: try value("\(base)/saml:Subject/saml:SubjectConfirmation/saml:SubjectConfirmationData/@Recipient"),
            notBefore: try value("\(base)/saml:Conditions/@NotBefore"),
            notOnOrAfter: try value("\(base)/saml:Conditions/@NotOnOrAfter"),
            nameID: try value("\(base)/saml:Subject/saml:NameID"))
        guard !assertion.id.isEmpty, !assertion.nameID.isEmpty else { throw ValidationError.malformed }
        guard let mac = Data(base64Encoded: try value("/samlp:Response/demo:Integrity")),
            MessageDigest.constantTimeEqual(Array(mac), MessageDigest.hmac(.sha256, key: key, message: assertion.signedText.utf8))
        else { throw ValidationError.integrity }
        return assertion
    }

    static func iso(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    static func date(_ text: String) -> Date? { ISO8601DateFormatter().date(from: text) }

    static func escape(_ text: String) -> String { HTML.escape(text) }
}
