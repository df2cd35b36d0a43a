import Foundation

/// What `/usr/bin/time` measured of one unitool run: its CPU seconds (user and system) and its
/// peak resident memory.
///
/// Measured per run, not with `getrusage(RUSAGE_CHILDREN)`: that is the largest child the whole
/// test process ever waited for, so a suite that runs a big page beside it decides the figure.
public struct MeasuredRun: Sendable, CustomStringConvertible {
    public var outcome: UniToolProcess.Outcome
    public var cpuSeconds: Double
    public var peakKiB: Int
    public var description: String { "\(cpuSeconds) s of CPU, \(peakKiB / 1024) MiB peak; \(outcome)" }
}

extension Sandbox {
    /// Runs unitool in this sandbox under `/usr/bin/time` (Debian's `time`), with `demo` as
    /// `UNITOOL_DEMO_URL` if given, and reports its own cost.
    public func measured(_ arguments: [String], demo: URL? = nil, extra: [String: String] = [:]) async throws -> MeasuredRun {
        let report = root.appendingPathComponent("time-\(UUID().uuidString).txt")
        var environment = self.environment.merging(["NO_COLOR": "1"].merging(extra) { $1 }) { $1 }
        if let demo { environment["UNITOOL_DEMO_URL"] = demo.absoluteString }
        let childEnvironment = environment
        let outcome = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UniToolProcess.Outcome, any Error>) in
            Thread.detachNewThread {
                UniToolProcess.slots.wait()
                defer { UniToolProcess.slots.signal() }
                continuation.resume(
                    with: Result {
                        try UniToolProcess.run(
                            URL(fileURLWithPath: "/usr/bin/time"),
                            ["-f", "%U %S %M", "-o", report.path, UniToolProcess.executable.path] + arguments,
                            environment: childEnvironment,
                            timeout: 120)
                    })
            }
        }
        let numbers = ((try? String(contentsOf: report, encoding: .utf8)) ?? "").split(whereSeparator: \.isWhitespace).suffix(3)
        let values = numbers.map { Double($0) ?? .infinity }
        guard values.count == 3 else { return MeasuredRun(outcome: outcome, cpuSeconds: .infinity, peakKiB: .max) }
        return MeasuredRun(outcome: outcome, cpuSeconds: values[0] + values[1], peakKiB: Int(values[2]))
    }
}
