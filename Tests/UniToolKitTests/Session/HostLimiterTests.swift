import Testing

@testable import UniToolKit

@Suite("Host limiter: at most N requests in flight per origin, first come first served")
struct HostLimiterTests {
    /// How many requests are in flight, and the most there ever were.
    actor Gauge {
        private(set) var now = 0
        private(set) var highest = 0
        func enter() {
            now += 1
            highest = max(highest, now)
        }
        func leave() { now -= 1 }
    }

    @Test("never more than the limit at once for one origin; other origins are not held up")
    func limit() async {
        let limiter = HostLimiter(limit: 2)
        let gauge = Gauge()
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<12 {
                group.addTask {
                    let origin = index.isMultiple(of: 3) ? "https://other.example" : "https://portal.example"
                    await limiter.acquire(origin)
                    if origin == "https://portal.example" {
                        await gauge.enter()
                        try? await Task.sleep(for: .milliseconds(5))
                        await gauge.leave()
                    }
                    await limiter.release(origin)
                }
            }
        }
        #expect(await gauge.highest == 2)
        #expect(await gauge.now == 0)
    }

    @Test("a limit below one is one")
    func atLeastOne() async {
        let limiter = HostLimiter(limit: 0)
        await limiter.acquire("o")
        await limiter.release("o")
        await limiter.acquire("o")
        await limiter.release("o")
    }
}
