import LibXML

/// Recipe validation checks XPath syntax through libxml2's own compiler.
enum XPathSyntax {
    static func check(_ expression: String) throws {
        try XPath.validate(expression)
    }
}
