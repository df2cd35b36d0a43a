/// At most `limit` requests in flight per origin; the rest wait their turn, first come first served.
actor HostLimiter {
    private let limit: Int
    private var active: [String: Int] = [:]
    private var waiting: [String: [CheckedContinuation<Void, Never>]] = [:]

    init(limit: Int) { self.limit = max(1, limit) }

    /// Waits for a free slot for `origin`. Every `acquire` must be followed by one `release`.
    func acquire(_ origin: String) async {
        if active[origin, default: 0] < limit {
            active[origin, default: 0] += 1
            return
        }
        await withCheckedContinuation { waiting[origin, default: []].append($0) }
    }

    func release(_ origin: String) {
        if var queue = waiting[origin], !queue.isEmpty {
            let next = queue.removeFirst()
            waiting[origin] = queue
            next.resume()  // the slot passes straight to the next request
        } else {
            active[origin, default: 1] -= 1
        }
    }
}
