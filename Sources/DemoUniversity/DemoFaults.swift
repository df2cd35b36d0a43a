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
    /// The terms of use start at this version instead of ``DemoUniversity/initialTermsVersion``.
    public var termsVersion: String?
    /// The terms version API misbehaves in this way.
    public var termsAPI: TermsAPIFault?

    /// Every way the terms version API can go wrong that a client must survive.
    public enum TermsAPIFault: String, Sendable, CaseIterable {
        /// 500 with an HTML error page.
        case error
        /// 200 with HTML instead of JSON, as behind a captive portal or a maintenance page.
        case notJSON = "not-json"
        /// JSON without the version field.
        case noVersion = "no-version"
        /// The version as a number instead of a string.
        case numberVersion = "number-version"
    }

    public init() {}

    public static let environmentVariable = "UNITOOL_DEMO_FAULTS"
    public static let known =
        ["layout-changed", "server-error", "latency=MS", "expire-sessions", "terms-version=V"]
        + TermsAPIFault.allCases.map { "terms-api=\($0.rawValue)" }

    public init(parsing text: String) throws {
        for item in text.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            if item == "layout-changed" {
                layoutChanged = true
            } else if item == "server-error" {
                serverError = true
            } else if item == "expire-sessions" {
                expireSessions = true
            } else if item.hasPrefix("terms-version="), item.count > "terms-version=".count {
                termsVersion = String(item.dropFirst("terms-version=".count))
            } else if item.hasPrefix("terms-api="), let fault = TermsAPIFault(rawValue: String(item.dropFirst("terms-api=".count))) {
                termsAPI = fault
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
