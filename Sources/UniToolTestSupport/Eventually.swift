import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Waits until `condition` holds, looking again every 10 ms, for at most `limit`: what a test
/// waits on instead of a sleep. The limit only guards against a hang, so it is long enough for
/// the whole suite's load on two cores. Returns whether the condition came to hold.
///
/// A `for _ in 0..<n where !condition { sleep }` loop is no substitute: `where` skips the body
/// but goes on through every remaining iteration, evaluating the condition each time.
@discardableResult
public func eventually(within limit: Duration = .seconds(120), _ condition: () async -> Bool) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now + limit
    while clock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return await condition()
}

/// A URL session for a test's own requests that keeps nothing on disk: `URLSession.shared`
/// keeps a cache under `~/.cache`, which a test run must leave alone.
public let uncachedURLSession = URLSession(configuration: .ephemeral)

/// A value behind a lock that escaping closures and a server's threads can share.
public final class Locked<Value: Sendable>: Sendable {
    public let mutex: Mutex<Value>
    public init(_ value: Value) { mutex = Mutex(value) }
    public var value: Value { mutex.withLock { $0 } }
}
