import Foundation

/// Every string in a parsed JSON document (`JSONSerialization`), keys included: what a test
/// scans when no field of a document may hold a secret.
public func jsonStrings(in json: Any) -> [String] {
    switch json {
    case let text as String: return [text]
    case let array as [Any]: return array.flatMap { jsonStrings(in: $0) }
    case let object as [String: Any]: return object.flatMap { [$0.key] + jsonStrings(in: $0.value) }
    default: return []
    }
}
