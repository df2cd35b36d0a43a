import CLibXML2
import Localization
import Synchronization

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
        _ = try compile(expression)
    }

    /// Compiled expressions, shared by every document: a recipe's few dozen XPaths are compiled
    /// once per process instead of once per row. libxml2 does not change a compiled expression
    /// while evaluating it.
    private static let compiled = Mutex<[String: CompiledExpression]>([:])

    final class CompiledExpression: @unchecked Sendable {
        let pointer: xmlXPathCompExprPtr
        init(_ pointer: xmlXPathCompExprPtr) { self.pointer = pointer }
        deinit { xmlXPathFreeCompExpr(pointer) }
    }

    static func compile(_ expression: String) throws -> CompiledExpression {
        if let known = compiled.withLock({ $0[expression] }) { return known }
        guard let pointer = xmlXPathCompile(expression) else {
            throw LibXMLError.invalidXPath(expression: expression, detail: LibXML.lastErrorMessage() ?? localized("syntax error"))
        }
        let expressionObject = CompiledExpression(pointer)
        compiled.withLock { cache in
            if cache.count > 512 { cache.removeAll() }
            cache[expression] = expressionObject
        }
        return expressionObject
    }

    /// The most steps (libxml2's `opLimit`) one evaluation may take. An ordinary recipe XPath
    /// on a 20 MiB page takes a few million; a nested one such as `//*[count(//*[count(//*)])]`
    /// would take billions, and is stopped here instead of running for hours.
    static let operationLimit: UInt = 50_000_000

    static func evaluate(
        _ expression: String, in document: Document, context: Node?, namespaces: [String: String]
    ) throws -> XPathValue {
        LibXML.initialise()
        let compiledExpression = try compile(expression)
        return try document.withXPathContext { xpathContext in
            for (prefix, uri) in namespaces {
                xmlXPathRegisterNs(xpathContext, prefix, uri)
            }
            xpathContext.pointee.node = context?.pointer
            xpathContext.pointee.opLimit = operationLimit
            xpathContext.pointee.opCount = 0
            guard let result = xmlXPathCompiledEval(compiledExpression.pointer, xpathContext) else {
                let message = LibXML.lastErrorMessage()
                if xpathContext.pointee.opCount >= operationLimit {
                    throw LibXMLError.xpathTooCostly(expression: expression, limit: Int(operationLimit))
                }
                throw LibXMLError.invalidXPath(expression: expression, detail: message ?? localized("cannot be evaluated"))
            }
            defer { xmlXPathFreeObject(result) }
            return try value(of: result, expression: expression, document: document)
        }
    }

    private static func value(of result: xmlXPathObjectPtr, expression: String, document: Document) throws -> XPathValue {

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
            throw LibXMLError.invalidXPath(expression: expression, detail: localized("unsupported result type"))
        }
    }
}
