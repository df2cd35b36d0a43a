import Foundation

/// What a browser does with a redirect: a pure decision, kept apart from the loop that sends the
/// requests (compare async-http-client's `RedirectState`), with unit tests of its own.
///
/// 301 and 302 turn a POST into a GET (as every browser does, whatever RFC 9110 allows), 303
/// turns anything into a GET, 307 and 308 repeat the method and the body. The `Location` is
/// resolved against the request's address and followed byte for byte. Only http and https are
/// followed, never `file:` or the like, and at most `maxRedirects` hops.
public struct RedirectPolicy: Sendable, Equatable {
    public var maxRedirects: Int

    public init(maxRedirects: Int) { self.maxRedirects = maxRedirects }

    /// The request the browser is about to send, as far as the policy cares.
    public struct Request: Sendable, Equatable {
        public var method: String
        public var url: URL
        /// True when the request has a body (a form).
        public var hasBody: Bool

        public init(method: String, url: URL, hasBody: Bool) {
            self.method = method
            self.url = url
            self.hasBody = hasBody
        }
    }

    public enum Decision: Sendable, Equatable {
        /// Not a redirect (or one without a usable `Location`): the response is the page.
        case stop
        /// Send `next`; `keepsBody` when the body goes again (307, 308), which the caller must
        /// check against where secrets may go.
        case follow(next: Request, keepsBody: Bool)
    }

    public static let redirectStatuses: Set<Int> = [301, 302, 303, 307, 308]

    /// What to do after a response with `status` and `location` to `request`.
    public func decide(status: Int, location: String?, after request: Request) -> Decision {
        guard Self.redirectStatuses.contains(status), let location,
            let next = URL(string: location.trimmingWhitespace(), relativeTo: request.url)?.absoluteURL
        else { return .stop }
        let becomesGet = status == 303 || (status <= 302 && request.method == "POST")
        let method = becomesGet ? "GET" : request.method
        let keepsBody = request.hasBody && !becomesGet
        return .follow(next: Request(method: method, url: next, hasBody: keepsBody), keepsBody: keepsBody)
    }

    /// Why a request may not be sent: a scheme other than http and https, or one hop too many.
    /// `hops` is every address asked for so far, this one included.
    public func refusal(for url: URL, hops: [URL]) -> UniToolError? {
        guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            let from = hops.dropLast().last
            guard let from else {
                return UniToolError(
                    .unsafeRequest, localized("refusing to fetch '\(url.redactedForLog)': unitool fetches only http and https addresses"),
                    hint: localized("check 'fetch' and 'next' in the recipe"))
            }
            return UniToolError(
                .unsafeRequest,
                localized(
                    "refusing to fetch '\(url.redactedForLog)': unitool fetches only http and https addresses (a redirect from \(from.redactedForLog) pointed there)"
                ),
                hint: localized("the portal sent unitool somewhere it does not go"))
        }
        guard hops.count <= maxRedirects + 1 else {
            return UniToolError(
                .portalError,
                localized("the portal redirected more than \(maxRedirects) times, starting at \(hops[0].redactedForLog)"),
                hint: localized(
                    "this is a redirect loop on the portal's side; remove the saved session with 'unitool auth logout' and try again later")
            )
        }
        return nil
    }
}
