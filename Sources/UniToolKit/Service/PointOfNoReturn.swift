import Synchronization

/// The moment an action can no longer be taken back: the submit of its form (`renew`,
/// `renew-all`, a purchase request's confirmation). A cancel that arrives before it stops the
/// action and nothing is sent; one that arrives after it is too late, so the action runs to its
/// end and the caller hears what the portal said. Answering "cancelled" for an action the portal
/// had already done made a client's retry do it twice.
///
/// A front end that can be cancelled (JSON-RPC's `$/cancelRequest`, MCP's
/// `notifications/cancelled`) sets a `Witness` for each call, and asks it afterwards whether the
/// call went past the point; the service marks it when it crosses.
public enum PointOfNoReturn {
    /// Whether a call's work went past its point of no return: set by the service, read by the
    /// front end that made the call.
    public final class Witness: Sendable {
        private let crossed = Mutex(false)

        public init() {}

        /// True once the call sent a request that the portal may have acted on.
        public var passed: Bool { crossed.withLock { $0 } }

        func pass() { crossed.withLock { $0 = true } }
    }

    /// The witness of the call this task works for, if its front end keeps one.
    @TaskLocal public static var witness: Witness?

    /// Whether this task is cancelled and has not crossed a point of no return: its failure is
    /// the cancel's doing, and the front end may answer it as cancelled.
    public static var cancelledBeforeIt: Bool { Task.isCancelled && witness?.passed != true }

    /// Sends what cannot be taken back. A cancel that came before is obeyed here: nothing is sent.
    /// From here on, `body` runs to its end even if the caller is cancelled, and its answer (or
    /// its failure) is the caller's.
    ///
    /// This is one of the two unstructured tasks of the service (the other is the shared login,
    /// `LoginCoordinator`), and it is there on purpose: a child
    /// task, or `body` awaited in place, is cancelled with its caller, and a cancelled request is
    /// dropped by the HTTP client after the portal may already have acted on it. A `Task {}`
    /// inherits the caller's task-local values (its interaction, the recipe's headers, the login
    /// gate) but not its cancellation; its value is awaited, so it never outlives the call.
    static func cross<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        try Task.checkCancellation()
        witness?.pass()
        return try await Task { try await body() }.value
    }
}
