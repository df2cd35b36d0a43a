import Foundation
import Logging

extension HTTPSession {
    var retryPolicy: RetryPolicy {
        RetryPolicy(retries: configuration.retries, delay: configuration.retryDelay, maxRetryAfter: configuration.maxRetryAfter)
    }

    /// `perform`, asked again as `RetryPolicy` decides, each time within the per-origin limit, and
    /// never past the command's deadline (`--timeout`): a try that could not start in time is not
    /// made, and the last answer stands. The response returned has not stored its cookies (`send`
    /// does); those it tried again after have.
    func performWithRetries(
        method: String, url: URL, form: [(name: String, value: String)]?, json: String?, charset: String?, secretFields: Set<String>,
        browser: BrowserRequest
    ) async throws -> RawResponse {
        let policy = retryPolicy
        let deadline = Self.commandDeadline
        func inTime(_ wait: Duration) -> Bool { deadline?.allows(wait: wait, now: .now) ?? true }
        var attempt = 0
        while true {
            let wait: Duration
            do {
                await limiter.acquire(url.origin)
                let result = await Result {
                    try await perform(
                        method: method, url: url, form: form, json: json, charset: charset, secretFields: secretFields, browser: browser)
                }
                await limiter.release(url.origin)
                let response = try result.get()
                let outcome = RetryPolicy.Outcome.response(status: response.status, retryAfter: response.headers.first(name: "retry-after"))
                guard let next = policy.wait(after: outcome, method: method, attempt: attempt), inTime(next) else { return response }
                // A response given up on for another try still set its cookies, as in a browser.
                storeCookies(of: response, from: url)
                wait = next
                logger.debug("\(response.status) from \(url.redactedForLog); trying again in \(wait)")
            } catch let transport as TransportError {
                // A request its caller cancelled ends there: it is no failure to try again.
                let outcome = RetryPolicy.Outcome.failure(worthRetry: transport.failure.isWorthRetry && !Task.isCancelled)
                guard let next = policy.wait(after: outcome, method: method, attempt: attempt), inTime(next) else { throw transport.error }
                wait = next
                logger.debug("\(transport.error.message); trying again in \(wait)")
            }
            try await Task.sleep(for: wait)
            attempt += 1
        }
    }
}
