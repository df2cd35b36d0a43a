/// How a connection treats the terms of use. Every data call (`run`, `perform`, `fetch`) checks
/// them first, inside the service, so that no front end can forget to: unitool fails closed.
public struct TermsPolicy: Sendable {
    /// Where the accepted versions are kept.
    public var accepted: AcceptedTermsStore
    /// Asked when the current version is not accepted: true to accept it now. A front end with a
    /// person at a terminal shows the terms and asks; nil refuses.
    public var ask: (@Sendable (TermsStatus, PortalConnection) async throws -> Bool)?
    /// The refusal's hint in the front end's own terms (JSON-RPC names its methods), if not the CLI's.
    public var refusalHint: String?

    public init(
        accepted: AcceptedTermsStore = AcceptedTermsStore(), refusalHint: String? = nil,
        ask: (@Sendable (TermsStatus, PortalConnection) async throws -> Bool)? = nil
    ) {
        self.accepted = accepted
        self.refusalHint = refusalHint
        self.ask = ask
    }
}
