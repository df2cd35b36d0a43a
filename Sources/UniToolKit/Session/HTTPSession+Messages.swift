import Foundation

// What a transport failure is called in unitool's messages: what happened and what to do.
extension HTTPSession {
    /// Turns a transport error into one that says what happened and what to do, decided by the
    /// error's type (`TransportFailure`); its text only appears where nothing better is known.
    static func classify(_ error: any Error, url: URL) -> UniToolError {
        classified(error, url: url).error
    }

    static func classified(_ error: any Error, url: URL) -> TransportError {
        let place = url.origin
        let failure = TransportFailure.of(error)
        let userError: UniToolError
        switch failure {
        case .tooMuch:
            userError = UniToolError(
                .portalError,
                localized(
                    "the portal sent more than unitool accepts for \(url.redactedForLog) (\(String(describing: error))): headers that are too large, too many cookies, or a body that unpacks to far more than it was"
                ),
                hint: localized("this is the portal's fault or an attack; if it persists, tell the portal's operators"))
        case .timedOut:
            userError = UniToolError(
                .portalTimeout, localized("the portal at \(place) did not answer in time"),
                hint: localized("the portal may be overloaded or down; try again later"))
        case .closedEarly:
            userError = UniToolError(
                .portalUnreachable, localized("the portal at \(place) closed the connection before answering"),
                hint: localized("the portal may be restarting; try again later"))
        case .untrustedTLS:
            userError = UniToolError(
                .unsafeRequest,
                localized("the TLS certificate of \(place) is not trusted, so unitool did not talk to it (\(String(describing: error)))"),
                hint: localized(
                    "someone may be intercepting the connection; for a test portal with a self-signed certificate only, use --insecure"))
        case .cutShort:
            userError = UniToolError(
                .portalUnreachable,
                localized("the connection to \(place) broke in the middle of \(url.redactedForLog): the page arrived cut short"),
                hint: localized("the portal or a proxy on the way closed the connection; try again later"))
        case .broken:
            userError = UniToolError(
                .portalUnreachable, localized("the connection to \(place) broke while reading \(url.redactedForLog)"),
                hint: localized("check your network connection and try again"))
        case .refused:
            userError = UniToolError(
                .portalUnreachable, localized("cannot reach the portal at \(place): the connection was refused"),
                hint: localized("the portal (or the demo, with UNITOOL_DEMO_URL) is not running there, or the address is wrong"))
        case .unreachable:
            userError = UniToolError(
                .portalUnreachable, localized("cannot reach the portal at \(place) (\(String(describing: error)))"),
                hint: localized("check your network connection, or whether the portal is down"))
        }
        return TransportError(failure: failure, error: userError)
    }
}
