/// The headings of unitool's own tables in the person's language: `recipes list`, `auth
/// status`, `search`, `history`, `watch list`, `plugins list`, `config get`, `demo users`.
///
/// A column's name is its key in JSON and CSV and never changes; only the heading a table shows
/// is translated (in English the heading is the name itself). A recipe's field takes its own `label:` first (``ColumnDisplay/label``); a
/// field without one that shares a name with these gets this heading.
enum ColumnHeadings {
    static func heading(for column: String) -> String? {
        switch column {
        case "portal": return localized("portal")
        case "command": return localized("command")
        case "summary": return localized("summary")
        case "file": return localized("file")
        case "from": return localized("from")
        case "builds_on": return localized("builds_on")
        case "replaces": return localized("replaces")
        case "user": return localized("user")
        case "password": return localized("password")
        case "totp": return localized("totp")
        case "session": return localized("session")
        case "kind": return localized("kind")
        case "match": return localized("match")
        case "text": return localized("text")
        case "key": return localized("key")
        case "value": return localized("value")
        case "name": return localized("name")
        case "shows": return localized("shows")
        case "path": return localized("path")
        case "hides": return localized("hides")
        case "watch": return localized("watch")
        case "every": return localized("every")
        case "last_run": return localized("last_run")
        case "next_run": return localized("next_run")
        case "channels": return localized("channels")
        case "failing": return localized("failing")
        case "due_within": return localized("due_within")
        case "options": return localized("options")
        case "time": return localized("time")
        case "change": return localized("change")
        case "status": return localized("status")
        case "result": return localized("result")
        case "detail": return localized("detail")
        case "case": return localized("case")
        case "passed": return localized("passed")
        case "message": return localized("message")
        case "recipe": return localized("recipe")
        case "what": return localized("what")
        case "when": return localized("when")
        case "where": return localized("where")
        case "start": return localized("start")
        case "end": return localized("end")
        case "location": return localized("location")
        default: return nil
        }
    }
}
