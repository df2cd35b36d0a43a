/// How a connection treats the terms of use. Every data call (`run`, `perform`, `fetch`) checks
/// them first, inside the service, so that no front end can forget to: unitool fails closed.
/// A version not yet accepted is put to the call's `Interaction` (`acceptTerms`), which a person
/// at a terminal may answer; everyone else refuses.
public struct TermsPolicy: Sendable {
    /// Where the accepted versions are kept.
    public var accepted: AcceptedTermsStore

    public init(accepted: AcceptedTermsStore) {
        self.accepted = accepted
    }
}
