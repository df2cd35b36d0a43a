/// Whether a request is asked again, and after how long. A pure decision, kept apart from the
/// loop that sends (`HTTPSession.performWithRetries`):
/// - only a GET is repeated: a browser never repeats a POST without asking;
/// - only what is likely to pass: 429, 502, 503, 504, or a connection that broke;
/// - waiting `delay`, then twice that, and so on, or what `Retry-After` asks when it asks at
///   most `maxRetryAfter` (longer, and the answer stands as it is);
/// - at most `retries` times.
struct RetryPolicy: Sendable, Equatable {
    var retries: Int
    var delay: Duration
    var maxRetryAfter: Duration

    /// What came back: a response's status and its `Retry-After`, or a transport failure.
    enum Outcome: Sendable, Equatable {
        case response(status: Int, retryAfter: String?)
        case failure(worthRetry: Bool)
    }

    /// The wait before asking again, or nil to give the outcome as it is.
    /// - Parameter attempt: how many times the request was asked again already.
    func wait(after outcome: Outcome, method: String, attempt: Int) -> Duration? {
        guard method == "GET", attempt < retries else { return nil }
        let backoff = delay * (1 << min(attempt, 16))
        switch outcome {
        case .failure(let worthRetry):
            return worthRetry ? backoff : nil
        case .response(let status, let retryAfter):
            guard [429, 502, 503, 504].contains(status) else { return nil }
            guard let seconds = retryAfter.flatMap({ Int($0.trimmingWhitespace()) }) else { return backoff }
            return .seconds(seconds) <= maxRetryAfter ? .seconds(max(0, seconds)) : nil
        }
    }
}
