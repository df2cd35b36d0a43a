/// Ways the demo university can be told to misbehave, so that tests meet real failures over
/// real HTTP. Parsed from a comma-separated list, as in `UNITOOL_DEMO_FAULTS=layout-changed`.
public struct DemoFaults: Sendable, Equatable {
    /// Data pages change their markup so that the bundled recipes no longer match.
    public var layoutChanged = false
    /// Data pages answer 500.
    public var serverError = false
    /// Every response is delayed by this many milliseconds.
    public var latencyMilliseconds = 0
    /// Saved SP sessions are rejected, as after a server-side expiry.
    public var expireSessions = false

    public init() {}

    public static let environmentVariable = "UNITOOL_DEMO_FAULTS"
    public static let known = ["layout-changed", "server-error", "latency=MS", "expire-sessions"]

    public init(parsing text: String) throws {
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            if item == "layout-changed" {
                layoutChanged = true
            } else if item == "server-error" {
                serverError = true
            } else if item == "expire-sessions" {
                expireSessions = true
            } else if item.hasPrefix("latency="), let value = Int(item.dropFirst("latency=".count)), value >= 0 {
                latencyMilliseconds = value
            } else {
                throw DemoError.unknownFault(item)
            }
        }
    }
}

public enum DemoError: Error, CustomStringConvertible {
    case unknownFault(String)
    case couldNotStart(String)

    public var description: String {
        switch self {
        case .unknownFault(let name):
            return "unknown demo fault '\(name)'; known: \(DemoFaults.known.joined(separator: ", "))"
        case .couldNotStart(let reason):
            return "the demo university could not start: \(reason)"
        }
    }
}

import Foundation
