extension String {
    /// The text with HTML's special characters written as character references, as a page
    /// carries it in an element or a quoted attribute: `&`, `<`, `>`, `"` and `'` (written as
    /// `apostrophe`, since servers differ: `&#39;`, `&#x27;` or `&apos;`).
    public func htmlEscaped(apostrophe: String = "&#39;") -> String {
        var result = ""
        result.reserveCapacity(utf8.count)
        for scalar in unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += apostrophe
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
