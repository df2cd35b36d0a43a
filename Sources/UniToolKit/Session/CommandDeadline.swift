import Foundation
import NIOCore

/// The moment a whole command must be done with the portal by: `--timeout SECONDS`. Every
/// request, each of its retries and every login step share it, so that `--timeout 2` gives up
/// after two seconds, not after two seconds a try with the waits between tries on top.
///
/// A pure decision on the clock's readings, kept apart from the loop that sends
/// (`HTTPSession.perform` and `performWithRetries` ask it; the command line sets it around a
/// command with ``HTTPSession/commandDeadline``).
public struct CommandDeadline: Sendable, Equatable {
    /// When the command's time is up.
    public let end: ContinuousClock.Instant
    /// What the person asked for, for the message that says the time is up.
    public let seconds: Double

    public init(seconds: Double, from start: ContinuousClock.Instant = .now) {
        self.seconds = seconds
        end = start + .milliseconds(Int64((seconds * 1000).rounded()))
    }

    /// How long one request may take: its own limit, or what is left of the command's time if
    /// that is less. `byDeadline` says which bound it, so that the error can say which one passed.
    public func requestLimit(_ own: Duration, now: ContinuousClock.Instant) -> (limit: Duration, byDeadline: Bool) {
        let left = max(.zero, end - now)
        return left < own ? (left, true) : (own, false)
    }

    /// Whether waiting `wait` before another try still leaves time for it: a retry that would
    /// start after the end, or with less than ``shortestTry`` left, is not made, and the answer
    /// so far (a 503, a broken connection) is given as it is rather than a time-out that hides it.
    public func allows(wait: Duration, now: ContinuousClock.Instant) -> Bool { now + wait + Self.shortestTry <= end }

    /// The least time a try is worth starting with.
    public static let shortestTry: Duration = .seconds(1)

    /// The error when the command's time is up while `url` was loading, or before it was asked.
    func expired(at url: URL) -> UniToolError {
        let given = String(format: "%g", seconds)
        return UniToolError(
            .portalTimeout,
            localized("the command's time ran out: --timeout \(given) seconds passed before all of \(url.redactedForLog) arrived"),
            hint: localized("--timeout bounds the whole command (every request, retry and login step); allow more time, or try again later")
        )
    }
}

extension Duration {
    /// The duration as NIO's `TimeAmount`, which async-http-client takes.
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

extension TimeAmount {
    /// The amount as a `Duration`, which the clock's arithmetic takes.
    var duration: Duration { .nanoseconds(nanoseconds) }
}
