import Synchronization

/// A request the demo keeps waiting, once it has arrived, until the test lets it go: how a test
/// makes something happen while a request is in flight (a cancel while an action's form is being
/// sent) without guessing at timing. The request is counted and recorded when it arrives; its
/// route runs, and does what it does, only after `release()`.
public final class DemoHold: Sendable {
    public let method: String
    public let path: String

    private struct State {
        var arrived = false
        var released = false
        var arrivalWaiters: [CheckedContinuation<Void, Never>] = []
        var held: [CheckedContinuation<Void, Never>] = []
    }
    private let state = Mutex(State())

    init(method: String, path: String) {
        self.method = method
        self.path = path
    }

    /// Returns once the request has arrived (and is being held).
    public func arrival() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.arrived { return true }
                state.arrivalWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Whether the request has arrived; for a test that checks it did not.
    public var hasArrived: Bool { state.withLock { $0.arrived } }

    /// Lets the request go on to its route (now, or at once when it arrives later).
    public func release() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.released = true
            defer { state.held = [] }
            return state.held
        }
        for continuation in waiting { continuation.resume() }
    }

    /// The request arrived: says so, then waits until it is released.
    func arrive() async {
        await withCheckedContinuation { continuation in
            let (waiters, goOn) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Bool) in
                state.arrived = true
                defer { state.arrivalWaiters = [] }
                if !state.released { state.held.append(continuation) }
                return (state.arrivalWaiters, state.released)
            }
            for waiter in waiters { waiter.resume() }
            if goOn { continuation.resume() }
        }
    }
}

/// The holds a test has asked for, each taking the first request that matches it.
final class DemoHolds: Sendable {
    private let pending = Mutex<[DemoHold]>([])

    func add(_ hold: DemoHold) { pending.withLock { $0.append(hold) } }

    /// The hold for this request, if one waits for it: taken off the list, so that it holds one request only.
    func claim(method: String, path: String) -> DemoHold? {
        pending.withLock { holds in
            guard let index = holds.firstIndex(where: { $0.method == method && $0.path == path }) else { return nil }
            return holds.remove(at: index)
        }
    }
}
