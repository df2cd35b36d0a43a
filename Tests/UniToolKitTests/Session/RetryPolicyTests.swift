import Testing

@testable import UniToolKit

@Suite("Retry policy: what is asked again, and when")
struct RetryPolicyTests {
    let policy = RetryPolicy(retries: 2, delay: .milliseconds(250), maxRetryAfter: .seconds(10))

    @Test("a GET that met 429, 502, 503, 504 or a broken connection is asked again, waiting twice as long each time")
    func backoff() {
        for status in [429, 502, 503, 504] {
            #expect(policy.wait(after: .response(status: status, retryAfter: nil), method: "GET", attempt: 0) == .milliseconds(250))
        }
        #expect(policy.wait(after: .failure(worthRetry: true), method: "GET", attempt: 1) == .milliseconds(500))
        #expect(policy.wait(after: .failure(worthRetry: true), method: "GET", attempt: 2) == nil, "at most twice")
    }

    @Test("a POST is never repeated; a 500, a 404 or a failure not worth it is given as it is")
    func notRepeated() {
        #expect(policy.wait(after: .response(status: 503, retryAfter: nil), method: "POST", attempt: 0) == nil)
        #expect(policy.wait(after: .response(status: 500, retryAfter: nil), method: "GET", attempt: 0) == nil)
        #expect(policy.wait(after: .response(status: 404, retryAfter: nil), method: "GET", attempt: 0) == nil)
        #expect(policy.wait(after: .failure(worthRetry: false), method: "GET", attempt: 0) == nil)
    }

    @Test("Retry-After is waited when it asks at most the limit; a longer one gives the answer as it is")
    func retryAfter() {
        #expect(policy.wait(after: .response(status: 429, retryAfter: " 3 "), method: "GET", attempt: 0) == .seconds(3))
        #expect(policy.wait(after: .response(status: 503, retryAfter: "3600"), method: "GET", attempt: 0) == nil)
        #expect(
            policy.wait(after: .response(status: 503, retryAfter: "Wed, 21 Oct 2026 07:28:00 GMT"), method: "GET", attempt: 0)
                == .milliseconds(250))
    }
}
