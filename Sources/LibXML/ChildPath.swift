import CLibXML2

/// A relative path that only steps down to children: `td[@class='grade']`, `td[3]`, `a/@href`,
/// `td[2]/span`, `.`. Most recipe fields are such paths, and reading them by walking a row's
/// children costs a fraction of an XPath evaluation (no context set-up, no node-set objects,
/// no expression interpreter), which the benchmarks found to be most of an extraction's time.
///
/// `parse` accepts only what it can walk with exactly XPath 1.0's meaning and returns nil for
/// everything else (functions, `//`, axes, prefixes, several predicates, white space), which
/// the caller then evaluates as XPath. A unit test checks that both agree.
public struct ChildPath: Sendable, Equatable {
    /// One `name` or `name[predicate]` step down to the element children of that name.
    public struct Step: Sendable, Equatable {
        public var name: String
        public var predicate: Predicate

        public init(name: String, predicate: Predicate) {
            self.name = name
            self.predicate = predicate
        }
    }

    public enum Predicate: Sendable, Equatable {
        case none
        /// `[3]`: the third child of that name.
        case position(Int)
        /// `[@class='x']`: children whose attribute (with no namespace) is exactly the text.
        case attributeEquals(name: String, value: String)
        /// `[@href]`: children that have the attribute.
        case hasAttribute(String)
    }

    /// The element steps, in order; empty for `.` or a bare `@name`.
    public var steps: [Step]
    /// A final `@name`: the attribute of the last step's elements (or of the row itself).
    public var attribute: String?

    /// The path, if `expression` is one; nil when it must be evaluated as XPath.
    public init?(_ expression: String) {
        var scanner = Scanner(Array(expression.utf8))
        guard !scanner.atEnd else { return nil }
        if scanner.take(".") {
            guard scanner.atEnd else { return nil }
            self.init(steps: [], attribute: nil)
            return
        }
        var steps: [Step] = []
        var attribute: String?
        repeat {
            if scanner.take("@") {
                guard let name = scanner.name(), scanner.atEnd else { return nil }
                attribute = name
                break
            }
            guard let name = scanner.name() else { return nil }
            var predicate = Predicate.none
            if scanner.take("[") {
                if scanner.take("@") {
                    guard let attributeName = scanner.name() else { return nil }
                    if scanner.take("=") {
                        guard let value = scanner.quoted() else { return nil }
                        predicate = .attributeEquals(name: attributeName, value: value)
                    } else {
                        predicate = .hasAttribute(attributeName)
                    }
                } else {
                    guard let position = scanner.positiveInteger() else { return nil }
                    predicate = .position(position)
                }
                guard scanner.take("]") else { return nil }
            }
            steps.append(Step(name: name, predicate: predicate))
        } while scanner.take("/")
        guard scanner.atEnd else { return nil }
        self.init(steps: steps, attribute: attribute)
    }

    public init(steps: [Step], attribute: String?) {
        self.steps = steps
        self.attribute = attribute
    }

    /// The nodes the path finds below `node`, in document order, as XPath would find them.
    public func nodes(from node: Node) -> [Node] {
        // One step with no attribute, the usual field (`td[@class='grade']`): no lists between.
        if steps.count == 1, attribute == nil {
            var found: [Node] = []
            walk(steps[0], below: node.pointer) { found.append(Node(document: node.document, pointer: $0)) }
            return found
        }
        var current = [node.pointer]
        for step in steps {
            var next: [xmlNodePtr] = []
            for parent in current { walk(step, below: parent) { next.append($0) } }
            current = next
            if current.isEmpty { return [] }
        }
        guard let attribute else { return current.map { Node(document: node.document, pointer: $0) } }
        return current.compactMap { element in
            Self.attribute(attribute, of: element).map {
                Node(document: node.document, pointer: UnsafeMutableRawPointer($0).assumingMemoryBound(to: xmlNode.self))
            }
        }
    }

    /// The text of what the path finds, several nodes joined by a space, as a field reads it;
    /// nil when it finds nothing. The same as joining `nodes(from:)`'s texts, without the list.
    public func text(from node: Node) -> String? {
        guard steps.count == 1, attribute == nil else {
            let found = nodes(from: node)
            return found.isEmpty ? nil : found.count == 1 ? found[0].text : found.map(\.text).joined(separator: " ")
        }
        var result: String?
        walk(steps[0], below: node.pointer) { element in
            let text = Node.textBytes(of: element) { String(decoding: $0, as: UTF8.self) }
            result = result.map { $0 + " " + text } ?? text
        }
        return result
    }

    /// Calls `found` for each element child of `parent` that `step` selects, in order.
    private func walk(_ step: Step, below parent: xmlNodePtr, _ found: (xmlNodePtr) -> Void) {
        var seen = 0
        var child = parent.pointee.children
        while let element = child {
            child = element.pointee.next
            guard element.pointee.type == XML_ELEMENT_NODE, element.pointee.ns == nil, Self.equal(element.pointee.name, step.name)
            else { continue }
            seen += 1
            switch step.predicate {
            case .none:
                found(element)
            case .position(let position):
                if seen == position {
                    found(element)
                    return
                }
            case .attributeEquals(let name, let value):
                if let attribute = Self.attribute(name, of: element), Self.value(of: attribute, equals: value) { found(element) }
            case .hasAttribute(let name):
                if Self.attribute(name, of: element) != nil { found(element) }
            }
        }
    }

    /// The element's attribute of that name in no namespace, as `@name` selects it (never a
    /// default from a DTD, which XPath does not see either).
    static func attribute(_ name: String, of element: xmlNodePtr) -> xmlAttrPtr? {
        guard element.pointee.type == XML_ELEMENT_NODE else { return nil }
        var property = element.pointee.properties
        while let current = property {
            if current.pointee.ns == nil, equal(current.pointee.name, name) { return current }
            property = current.pointee.next
        }
        return nil
    }

    /// Whether an attribute's value is exactly `text`: its children's text, as XPath reads it.
    static func value(of attribute: xmlAttrPtr, equals text: String) -> Bool {
        let node = UnsafeMutableRawPointer(attribute).assumingMemoryBound(to: xmlNode.self)
        return Node.textBytes(of: node) { bytes in bytes.elementsEqual(text.utf8) }
    }

    static func equal(_ cString: UnsafePointer<xmlChar>?, _ name: String) -> Bool {
        guard let cString else { return false }
        // A recipe's names are short native strings, so this is a walk over contiguous bytes.
        return name.utf8.withContiguousStorageIfAvailable { bytes in
            for index in 0..<bytes.count where cString[index] != bytes[index] { return false }
            return cString[bytes.count] == 0
        } ?? slowEqual(cString, name)
    }

    private static func slowEqual(_ cString: UnsafePointer<xmlChar>, _ name: String) -> Bool {
        var index = 0
        for byte in name.utf8 {
            guard cString[index] == byte else { return false }
            index += 1
        }
        return cString[index] == 0
    }

    /// Reads the path's text one byte at a time; no white space, no prefixes.
    struct Scanner {
        let bytes: [UInt8]
        var index = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { index == bytes.count }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
            index += 1
            return true
        }

        /// An XML name without a prefix: a letter or `_`, then letters, digits, `_`, `-`, `.`.
        mutating func name() -> String? {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                let isLetter = (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F
                let isOther = (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E
                guard isLetter || (index > start && isOther) else { break }
                index += 1
            }
            guard index > start else { return nil }
            return String(decoding: bytes[start..<index], as: UTF8.self)
        }

        mutating func positiveInteger() -> Int? {
            let start = index
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39, index - start < 6 { index += 1 }
            guard index > start, let value = Int(String(decoding: bytes[start..<index], as: UTF8.self)), value >= 1 else {
                return nil
            }
            return value
        }

        /// `'text'` or `"text"`; XPath 1.0 has no escapes inside a literal.
        mutating func quoted() -> String? {
            guard index < bytes.count, bytes[index] == 0x27 || bytes[index] == 0x22 else { return nil }
            let quote = bytes[index]
            let start = index + 1
            guard let end = bytes[start...].firstIndex(of: quote) else { return nil }
            index = end + 1
            return String(decoding: bytes[start..<end], as: UTF8.self)
        }
    }
}
