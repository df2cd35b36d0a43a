import Foundation

/// One thing a watch announces. As JSON (``json``) it is one line of `unitool watch`'s output,
/// the stdin of `--exec`, and the body of a webhook; the schema is in docs/WATCH.md.
public struct WatchEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case added, changed, removed
        /// A date field (a loan's due date) came within `--due-within` of today, and is not past.
        case dueSoon = "due_soon"
        /// A date field of `--due-within` is past: the loan is overdue. Its own kind, since "due
        /// soon" about a book overdue for a month is wrong, and a script treats the two apart.
        case overdue
        /// A run failed after working (or failed on its first run): announced once.
        case failing
        /// The session ended, and the portal signs in only in a browser: the person must run
        /// `unitool auth login --browser`. Announced once, like `failing`; `recovered` follows.
        case loginNeeded = "login_needed"
        /// A run worked again after failing: announced once.
        case recovered
        /// `watch --test`: checks that every channel delivers.
        case test
    }

    public var kind: Kind
    public var portal: String
    public var user: String
    public var command: String
    public var options: String
    public var time: Date
    /// The record's key (`2026-fall/MATH-301`), for record events.
    public var key: String?
    public var record: Record?
    /// Field by field, for `changed`.
    public var changes: [RecordChanges.FieldChange] = []
    /// For `failing`: the error's kind and message, and the saved page of a layout change.
    public var error: UniToolError?
    /// The summary ``WatchSummary`` wrote from the recipe, kept with the event (a channel that
    /// failed gets the same words on the next run); nil: ``summary`` is the generic line.
    var writtenSummary: String?

    public init(
        kind: Kind, portal: String, user: String, command: String, options: String, time: Date, key: String? = nil,
        record: Record? = nil, changes: [RecordChanges.FieldChange] = [], error: UniToolError? = nil
    ) {
        self.kind = kind
        self.portal = portal
        self.user = user
        self.command = command
        self.options = options
        self.time = time
        self.key = key
        self.record = record
        self.changes = changes
        self.error = error
    }

    /// One line for people: the title of a notification, the summary variable of `--exec`.
    /// A watch sets it from the recipe (``WatchSummary``); an event made without one reads as
    /// ``genericSummary``.
    public var summary: String {
        get { writtenSummary ?? genericSummary }
        set { writtenSummary = newValue }
    }

    /// The summary of an event whose recipe is not at hand: named by its key.
    public var genericSummary: String {
        let subject = key ?? localized("a record")
        switch kind {
        case .added:
            guard let key else { return localized("\(command): new record") }
            return localized("\(command): new \(key)")
        case .removed: return localized("\(command): \(subject) is gone")
        case .changed:
            let fields = changes.map { "\($0.field) \(Self.shown($0.old)) → \(Self.shown($0.new))" }.joined(separator: ", ")
            return "\(command): \(subject): \(fields)"
        case .dueSoon: return localized("\(command): \(subject) is due soon")
        case .overdue: return localized("\(command): \(subject) is overdue")
        case .failing:
            let message = error?.message ?? localized("unknown error")
            return localized("\(command) fails: \(message)")
        case .loginNeeded: return localized("\(command): sign in again in the browser (unitool --portal \(portal) auth login --browser)")
        case .recovered: return localized("\(command) works again")
        case .test: return localized("a test event from unitool's watch of '\(command)'")
        }
    }

    private static func shown(_ value: FieldValue) -> String {
        value == .null ? localized("(none)") : "\"\(value.text)\""
    }

    /// The event as one line of JSON, keys in a fixed order.
    public var json: String {
        var members: [(String, String)] = [
            ("event", JSONString.quoted(kind.rawValue)), ("time", JSONString.quoted(HistoryStore.iso8601(time))),
            ("portal", JSONString.quoted(portal)), ("user", user.isEmpty ? "null" : JSONString.quoted(user)),
            ("command", JSONString.quoted(command)),
            ("options", JSONString.quoted(options)), ("summary", JSONString.quoted(summary)),
        ]
        if let key { members.append(("key", JSONString.quoted(key))) }
        if let record { members.append(("record", JSONRenderer.object(record))) }
        if kind == .changed {
            let list = changes.map {
                "{\"field\": \(JSONString.quoted($0.field)), \"old\": \(JSONRenderer.value($0.old)), \"new\": \(JSONRenderer.value($0.new))}"
            }
            members.append(("changes", "[" + list.joined(separator: ", ") + "]"))
        }
        if let error {
            members.append(
                (
                    "error",
                    "{\"kind\": \(JSONString.quoted(error.kind.rawValue)), \"message\": \(JSONString.quoted(error.message)), \"hint\": \(error.hint.map(JSONString.quoted) ?? "null")}"
                ))
        }
        return "{" + members.map { "\(JSONString.quoted($0.0)): \($0.1)" }.joined(separator: ", ") + "}"
    }
}
