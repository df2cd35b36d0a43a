import UniToolKit

/// JSON-RPC's answers to what the service asks on the way (`Interaction`). The client is a
/// program, and stdin is the protocol: nothing is ever prompted. Progress becomes `$/progress`
/// notifications when the request asked for them; terms not yet accepted are refused with a hint
/// in the protocol's own words; an action is confirmed by the `recipes.perform` call that names it.
struct RPCInteraction: Interaction {
    let report: (@Sendable (String) -> Void)?

    func progress(_ message: String) { report?(message) }

    var termsRefusalHint: String? { "show the terms to the user (terms.status gives their URL), then call terms.accept" }
}

extension RPCRequest {
    /// This request's interaction: its own progress token, the protocol's refusals.
    public var interaction: any Interaction { RPCInteraction(report: progress) }
}
