import CLibXML2

/// The result of an XPath expression: a node list, or a value for `count()`, `string()` and so on.
public enum XPathValue: Sendable {
    case nodes([Node])
    case string(String)
    case number(Double)
    case boolean(Bool)

    /// The value as XPath's `string()` would give it; for a node list, the first node's text.
    public var stringValue: String {
        switch self {
        case .nodes(let nodes): return nodes.first?.text ?? ""
        case .string(let string): return string
        case .number(let number):
            return number.rounded() == number && abs(number) < 1e15 ? String(Int64(number)) : String(number)
        case .boolean(let flag): return flag ? "true" : "false"
        }
    }

    /// XPath's `boolean()`: a non-empty node list, a non-empty string, a non-zero number.
    public var booleanValue: Bool {
        switch self {
        case .nodes(let nodes): return !nodes.isEmpty
        case .string(let string): return !string.isEmpty
        case .number(let number): return number != 0 && !number.isNaN
        case .boolean(let flag): return flag
        }
    }

    func nodes(for expression: String) throws -> [Node] {
        guard case .nodes(let nodes) = self else { throw LibXMLError.notANodeSet(expression: expression) }
        return nodes
    }
}

/// XPath 1.0 over libxml2.
public enum XPath {
    /// Checks an expression's syntax without a document, so that a recipe with a typo fails when
    /// it is loaded rather than halfway through a login.
    public static func validate(_ expression: String) throws {
        LibXML.initialise()
        guard let compiled = xmlXPathCompile(expression) else {
            throw LibXMLError.invalidXPath(
                expression: expression, detail: LibXML.lastErrorMessage() ?? "syntax error")
        }
        xmlXPathFreeCompExpr(compiled)
    }

    static func evaluate(
        _ expression: String, in document: Document, context: Node?, namespaces: [String: String]
    ) throws -> XPathValue {
        LibXML.initialise()
        guard let xpathContext = xmlXPathNewContext(document.pointer) else {
            throw LibXMLError.invalidXPath(expression: expression, detail: "out of memory")
        }
        defer { xmlXPathFreeContext(xpathContext) }
        for (prefix, uri) in namespaces {
            xmlXPathRegisterNs(xpathContext, prefix, uri)
        }
        if let context { xpathContext.pointee.node = context.pointer }

        guard let result = xmlXPathEvalExpression(expression, xpathContext) else {
            throw LibXMLError.invalidXPath(
                expression: expression, detail: LibXML.lastErrorMessage() ?? "cannot be evaluated")
        }
        defer { xmlXPathFreeObject(result) }

        switch result.pointee.type {
        case XPATH_NODESET:
            var nodes: [Node] = []
            if let set = result.pointee.nodesetval, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab {
                nodes.reserveCapacity(Int(set.pointee.nodeNr))
                for index in 0..<Int(set.pointee.nodeNr) {
                    // Namespace nodes are copies that die with the result; they are never useful here.
                    guard let node = table[index], node.pointee.type != XML_NAMESPACE_DECL else { continue }
                    nodes.append(Node(document: document, pointer: node))
                }
            }
            return .nodes(nodes)
        case XPATH_STRING:
            return .string(result.pointee.stringval.map { String(cString: $0) } ?? "")
        case XPATH_NUMBER:
            return .number(result.pointee.floatval)
        case XPATH_BOOLEAN:
            return .boolean(result.pointee.boolval != 0)
        default:
            throw LibXMLError.invalidXPath(expression: expression, detail: "unsupported result type")
        }
    }
}
