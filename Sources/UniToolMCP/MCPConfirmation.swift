import UniToolKit
import UniToolRPC

/// The question put to the user before an action that asks first (`ask: true`, or a `preview:`
/// of several changes, such as renew-all) is sent from a tool call, and what their answer means.
///
/// A host marks such a tool destructive and may ask its person, but an agent framework calls it
/// without asking anyone. So the server asks itself: through MCP elicitation
/// (`elicitation/create`) when the client declared it can, and otherwise not at all: the call
/// fails, saying what it would send, until a call repeats it with `confirm: true` after the host
/// asked. A pure value: the wording and the reading of the answer, tested without a client.
struct MCPConfirmation: Sendable {
    /// The tool's name (`library_request`), for the hint that names it.
    var tool: String
    var portal: String
    var action: ActionSpec
    var argument: String
    var parameters: [String: String]
    /// The preview's rows the user says yes to (renew-all's loans), when the action has one.
    var listed: RecordSet?

    /// What will be sent, one line each: the action's argument, its values, the rows it changes.
    /// Values from the portal and the call are shown as `ShownValue` makes them safe.
    var lines: [String] {
        var lines = action.sentValues(argument: argument, parameters: parameters)
        for record in listed?.records ?? [] {
            lines.append(
                "- "
                    + record.fields.filter { !$0.value.text.isEmpty }.map { "\($0.name): \(ShownValue.text($0.value.text))" }.joined(
                        separator: ", ")
            )
        }
        return lines
    }

    /// The elicitation's message: what the user is asked to agree to.
    var message: String {
        let rows = listed.map { " (\($0.records.count == 1 ? "1 item" : "\($0.records.count) items"))" } ?? ""
        return "\(portal): \(action.summary)\(rows). This will be sent on your behalf:\n" + lines.joined(separator: "\n")
            + "\nSend it?"
    }

    /// `elicitation/create`'s parameters: the message, and a form with no fields, since the
    /// answer (accept or decline) is the whole question.
    var request: JSONValue {
        .object([
            ("message", .string(message)),
            ("requestedSchema", .object([("type", .string("object")), ("properties", .object([]))])),
        ])
    }

    /// Whether to send, from the client's answer to `elicitation/create`: only an explicit
    /// accept sends. A decline, a dismissal or anything unreadable sends nothing, and says which.
    func decision(_ answer: JSONValue) throws -> Bool {
        switch answer["action"]?.stringValue {
        case "accept":
            return true
        case "decline":
            throw UniToolError(
                .declined, "the user declined '\(tool)' when asked; nothing was sent",
                hint: "do not call it again unless the user asks for it")
        case "cancel":
            throw UniToolError(
                .declined, "the user dismissed the question about '\(tool)' without answering; nothing was sent",
                hint: "ask the user whether they want it before calling it again")
        default:
            throw UniToolError(
                .declined,
                "the client's answer to the question about '\(tool)' had no action (accept, decline or cancel); nothing was sent",
                hint: retryHint)
        }
    }

    /// The refusal when nobody could be asked: what would have been sent, and how to confirm it.
    func unasked(because reason: String) -> UniToolError {
        UniToolError(
            .declined,
            "'\(tool)' asks the user first, and \(reason): it would send \(lines.joined(separator: "; ")). Nothing was sent",
            hint: retryHint)
    }

    var retryHint: String {
        "show the user what it would send; if they agree, call '\(tool)' again with the same arguments and confirm: true"
    }
}
