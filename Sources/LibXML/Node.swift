import CLibXML2

/// An element, attribute or text node inside a `Document`.
///
/// A node keeps its document alive, so it stays valid however long the caller holds it.
public struct Node: @unchecked Sendable {
    /// The document this node belongs to, kept alive by the node.
    public let document: Document
    let pointer: xmlNodePtr

    init(document: Document, pointer: xmlNodePtr) {
        self.document = document
        self.pointer = pointer
    }

    /// The element or attribute name, lowercased for HTML by the parser itself.
    public var name: String {
        guard let name = pointer.pointee.name else { return "" }
        return String(cString: name)
    }

    public var isElement: Bool { pointer.pointee.type == XML_ELEMENT_NODE }

    /// All the text below this node, as libxml2 concatenates it.
    public var text: String {
        Self.textBytes(of: pointer) { String(decoding: $0, as: UTF8.self) }
    }

    /// The node's text as `xmlNodeGetContent` gives it, lent to `body` as bytes. A cell whose
    /// only child is its text (most table cells, every attribute) is read in place: no copy by
    /// libxml2, which the benchmarks found in every field of every row.
    static func textBytes<T>(of node: xmlNodePtr, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        let type = node.pointee.type
        if type == XML_ELEMENT_NODE || type == XML_ATTRIBUTE_NODE {
            guard let only = node.pointee.children else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
            if only.pointee.next == nil, only.pointee.type == XML_TEXT_NODE || only.pointee.type == XML_CDATA_SECTION_NODE {
                guard let content = only.pointee.content else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
                return body(UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
            }
        }
        guard let content = xmlNodeGetContent(node) else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        defer { unitool_xmlFree(content) }
        return body(UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
    }

    /// The text with runs of white space folded to one space and the ends trimmed, as a browser
    /// shows it.
    public var normalizedText: String { text.collapsingWhitespace() }

    /// The value of an attribute, or nil when the element has no such attribute.
    public func attribute(_ name: String) -> String? {
        guard isElement, let value = xmlGetProp(pointer, name) else { return nil }
        defer { unitool_xmlFree(value) }
        return String(cString: value)
    }

    public func hasAttribute(_ name: String) -> Bool {
        guard isElement else { return false }
        return xmlHasProp(pointer, name) != nil
    }

    /// The element's attributes in document order.
    public var attributes: [(name: String, value: String)] {
        var result: [(String, String)] = []
        var attribute = isElement ? pointer.pointee.properties : nil
        while let current = attribute {
            let name = String(cString: current.pointee.name)
            result.append((name, self.attribute(name) ?? ""))
            attribute = current.pointee.next
        }
        return result
    }

    /// The element children, skipping text and comments.
    public var elementChildren: [Node] {
        var result: [Node] = []
        var child = pointer.pointee.children
        while let current = child {
            if current.pointee.type == XML_ELEMENT_NODE {
                result.append(Node(document: document, pointer: current))
            }
            child = current.pointee.next
        }
        return result
    }

    /// The nearest ancestor element with the given name, for example the `<form>` of an input.
    public func ancestor(named name: String) -> Node? {
        var parent = pointer.pointee.parent
        while let current = parent, current.pointee.type == XML_ELEMENT_NODE {
            let node = Node(document: document, pointer: current)
            if node.name == name { return node }
            parent = current.pointee.parent
        }
        return nil
    }

    /// Evaluates an XPath expression with this node as context: `td[1]` means this row's first cell.
    public func evaluate(_ expression: String, namespaces: [String: String] = [:]) throws -> XPathValue {
        try XPath.evaluate(expression, in: document, context: self, namespaces: namespaces)
    }

    public func select(_ expression: String, namespaces: [String: String] = [:]) throws -> [Node] {
        try evaluate(expression, namespaces: namespaces).nodes(for: expression)
    }

    /// The node serialised back to markup, for error messages and debugging.
    public var markup: String {
        guard let buffer = xmlBufferCreate() else { return "" }
        defer { xmlBufferFree(buffer) }
        xmlNodeDump(buffer, document.pointer, pointer, 0, 0)
        guard let content = xmlBufferContent(buffer) else { return "" }
        return String(cString: content)
    }

    /// Same node in the same document.
    public static func == (lhs: Node, rhs: Node) -> Bool { lhs.pointer == rhs.pointer }
}

extension Node: Equatable {}

extension String {
    /// The text as a reader sees it: runs of ASCII whitespace (space, tab, line breaks, form
    /// feed: HTML's whitespace) folded into one space, and whitespace of any kind trimmed at both
    /// ends. Other spaces inside the text are the page's content and are kept as they are: the
    /// ideographic space U+3000 in "佐藤　由紀", a no-break space U+00A0. (A cell holding only
    /// `&nbsp;` is still empty.)
    public func collapsingWhitespace() -> String {
        // Bytes, not scalars: the Unicode property look-ups of the first version were a tenth of
        // an extraction's time. Only an end that is not ASCII needs them.
        var utf8 = self
        // Most cells need nothing done: found without allocating, and the text kept as it is.
        let clean = utf8.withUTF8 { bytes -> Bool in
            guard let first = bytes.first, let last = bytes.last else { return true }
            if first <= 0x20 || first >= 0x80 || last <= 0x20 || last >= 0x80 { return false }
            var previousSpace = false
            for byte in bytes {
                if byte == 0x20 {
                    if previousSpace { return false }
                    previousSpace = true
                } else {
                    if byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C { return false }
                    previousSpace = false
                }
            }
            return true
        }
        if clean { return self }
        let (folded, changed) = utf8.withUTF8 { bytes -> ([UInt8], Bool) in
            var result: [UInt8] = []
            result.reserveCapacity(bytes.count)
            var pendingSpace = false
            var changed = false
            for byte in bytes {
                if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                    if byte != 0x20 || pendingSpace || result.isEmpty { changed = true }
                    pendingSpace = !result.isEmpty
                } else {
                    if pendingSpace { result.append(0x20) }
                    pendingSpace = false
                    result.append(byte)
                }
            }
            return (result, changed || pendingSpace)
        }
        let mayEndInOtherSpace =
            folded.first.map { $0 >= 0x80 || $0 == 0x0B } == true || folded.last.map { $0 >= 0x80 || $0 == 0x0B } == true
        var result = changed ? String(decoding: folded, as: UTF8.self) : self
        guard mayEndInOtherSpace else { return result }
        // Other white space at either end (U+3000, a no-break space, a vertical tab) is trimmed too.
        var scalars = result.unicodeScalars[...]
        var trimmed = false
        while let first = scalars.first, first.properties.isWhitespace {
            scalars.removeFirst()
            trimmed = true
        }
        while let last = scalars.last, last.properties.isWhitespace {
            scalars.removeLast()
            trimmed = true
        }
        if trimmed { result = String(scalars) }
        return result
    }
}
