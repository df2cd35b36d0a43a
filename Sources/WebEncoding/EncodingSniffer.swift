/// Which encoding a page is in, decided as a browser decides it. A pure decision: bytes and
/// labels in, an encoding and the reason for it out.
///
/// Precedence (the HTML standard's "encoding sniffing algorithm", less the parts that need a
/// person): a byte order mark, then a label from the recipe (for a portal that labels its pages
/// wrongly), then the HTTP `Content-Type` charset, then the page's own declaration (the `<meta>`
/// prescan of the first 1024 bytes for HTML, the `<?xml encoding?>` declaration for XML), then
/// UTF-8. A label the standard does not know is skipped, as browsers skip it.
public struct EncodingSniffer: Sendable {
    /// What settled the encoding, for `-v` and for `unitool page`.
    public enum Source: String, Sendable {
        case byteOrderMark = "byte order mark"
        case recipe = "the recipe's charset"
        case httpHeader = "the HTTP Content-Type"
        case meta = "the page's <meta>"
        case xmlDeclaration = "the XML declaration"
        case defaultUTF8 = "the default (UTF-8)"
    }

    public enum Markup: Sendable { case html, xml }

    public var markup: Markup
    /// The charset parameter of the HTTP `Content-Type`, if the server sent one.
    public var headerLabel: String?
    /// The recipe's `charset:`, which overrides the server's label (not a byte order mark).
    public var overrideLabel: String?

    public init(markup: Markup, headerLabel: String? = nil, overrideLabel: String? = nil) {
        self.markup = markup
        self.headerLabel = headerLabel
        self.overrideLabel = overrideLabel
    }

    /// The encoding of `bytes`, why, and how many leading bytes are a byte order mark.
    public func sniff(_ bytes: [UInt8]) -> (encoding: WebEncoding, source: Source, bomLength: Int) {
        if let (encoding, length) = Self.byteOrderMark(bytes) { return (encoding, .byteOrderMark, length) }
        if let label = overrideLabel, let encoding = WebEncoding(label: label) { return (encoding, .recipe, 0) }
        if let label = headerLabel, let encoding = WebEncoding(label: label) { return (encoding, .httpHeader, 0) }
        switch markup {
        case .html:
            if let encoding = Self.prescan(bytes) { return (encoding, .meta, 0) }
        case .xml:
            if let encoding = Self.xmlDeclaration(bytes) { return (encoding, .xmlDeclaration, 0) }
        }
        return (.utf8, .defaultUTF8, 0)
    }

    /// Sniffs `bytes` and decodes them with the encoding found, byte order mark left out: the
    /// text a browser hands its parser, and why it is in that encoding.
    public func decode(
        _ bytes: [UInt8]
    ) -> (sniffed: (encoding: WebEncoding, source: Source, bomLength: Int), decoded: WebEncoding.Decoded) {
        let sniffed = sniff(bytes)
        return (sniffed, sniffed.encoding.decode(Array(bytes.dropFirst(sniffed.bomLength))))
    }

    /// "BOM sniff": UTF-8, UTF-16BE or UTF-16LE, and the mark's length.
    static func byteOrderMark(_ bytes: [UInt8]) -> (WebEncoding, Int)? {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { return (.utf8, 3) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (.utf16BE, 2) }
        if bytes.starts(with: [0xFF, 0xFE]) { return (.utf16LE, 2) }
        return nil
    }

    /// The encoding an XML declaration names (`<?xml version="1.0" encoding="Shift_JIS"?>`),
    /// read only at the very start of the document, as XML requires.
    static func xmlDeclaration(_ bytes: [UInt8]) -> WebEncoding? {
        let head = Array(bytes.prefix(1024))
        guard head.starts(with: Array("<?xml".utf8)), let end = head.firstIndex(of: UInt8(ascii: ">")) else { return nil }
        var scanner = ByteScanner(Array(head[5..<end]))
        while let attribute = scanner.nextAttribute() {
            if attribute.name == "encoding" {
                let encoding = WebEncoding(label: attribute.value)
                // A document that says UTF-16 in bytes read as ASCII cannot really be UTF-16.
                return encoding == .utf16BE || encoding == .utf16LE ? .utf8 : encoding
            }
        }
        return nil
    }

    /// The HTML standard's "prescan a byte stream to determine its encoding", over the first
    /// 1024 bytes: comments and other tags are skipped, and the first `<meta charset>` or
    /// `<meta http-equiv="content-type" content="...; charset=...">` with a known label wins.
    static func prescan(_ bytes: [UInt8]) -> WebEncoding? {
        var scanner = ByteScanner(Array(bytes.prefix(1024)))
        while !scanner.atEnd {
            if scanner.skipping("<!--") {
                scanner.skip(past: "-->")
            } else if scanner.lookingAt("<meta", caseInsensitive: true),
                let next = scanner.byte(at: 5), ByteScanner.isSpace(next) || next == UInt8(ascii: "/")
            {
                scanner.advance(6)
                if let encoding = metaEncoding(&scanner) { return encoding }
            } else if scanner.byte(at: 0) == UInt8(ascii: "<"), let next = scanner.byte(at: 1),
                ByteScanner.isLetter(next) || (next == UInt8(ascii: "/") && scanner.byte(at: 2).map(ByteScanner.isLetter) == true)
            {
                // Another tag: skip its name and its attributes, so that a quoted ">" or a
                // "<meta" inside an attribute value is not taken for markup.
                scanner.advance(next == UInt8(ascii: "/") ? 2 : 1)
                scanner.skip(while: { !ByteScanner.isSpace($0) && $0 != UInt8(ascii: ">") })
                while scanner.nextAttribute() != nil {}
                scanner.skipping(">")
            } else if scanner.lookingAt("<!") || scanner.lookingAt("</") || scanner.lookingAt("<?") {
                scanner.skip(past: ">")
            } else {
                scanner.advance(1)
            }
        }
        return nil
    }

    /// The attributes of one `<meta>`, read as the prescan reads them.
    private static func metaEncoding(_ scanner: inout ByteScanner) -> WebEncoding? {
        var seen: Set<String> = []
        var gotPragma = false
        var needPragma: Bool?
        var charset: WebEncoding?
        var charsetFailed = false
        while let attribute = scanner.nextAttribute() {
            guard seen.insert(attribute.name).inserted else { continue }
            switch attribute.name {
            case "http-equiv":
                if attribute.value.lowercased() == "content-type" { gotPragma = true }
            case "content":
                if charset == nil, !charsetFailed, let label = contentCharset(attribute.value) {
                    charset = WebEncoding(label: label)
                    charsetFailed = charset == nil
                    needPragma = true
                }
            case "charset":
                charset = WebEncoding(label: attribute.value)
                charsetFailed = charset == nil
                needPragma = false
            default:
                continue
            }
        }
        scanner.skipping(">")
        guard let needPragma, !(needPragma && !gotPragma), let charset else { return nil }
        if charset == .utf16BE || charset == .utf16LE { return .utf8 }
        if charset == .userDefined { return .windows1252 }
        return charset
    }

    /// "Extracting a character encoding from a meta element": the label after `charset=` in a
    /// `content` value, quoted or not.
    static func contentCharset(_ content: String) -> String? {
        let bytes = Array(content.utf8)
        var position = 0
        while position < bytes.count {
            guard let found = Self.find(Array("charset".utf8), in: bytes, from: position) else { return nil }
            position = found + 7
            while position < bytes.count, ByteScanner.isSpace(bytes[position]) { position += 1 }
            guard position < bytes.count, bytes[position] == UInt8(ascii: "=") else { continue }
            position += 1
            while position < bytes.count, ByteScanner.isSpace(bytes[position]) { position += 1 }
            guard position < bytes.count else { return nil }
            let first = bytes[position]
            if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
                guard let close = bytes[(position + 1)...].firstIndex(of: first) else { return nil }
                return String(decoding: bytes[(position + 1)..<close], as: UTF8.self)
            }
            var end = position
            while end < bytes.count, !ByteScanner.isSpace(bytes[end]), bytes[end] != UInt8(ascii: ";") { end += 1 }
            return String(decoding: bytes[position..<end], as: UTF8.self)
        }
        return nil
    }

    /// The first case-insensitive occurrence of an ASCII word.
    private static func find(_ word: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count >= word.count, start <= bytes.count - word.count else { return nil }
        for index in start...(bytes.count - word.count) where zip(word, bytes[index...]).allSatisfy({ $0 == ByteScanner.lower($1) }) {
            return index
        }
        return nil
    }
}

/// A cursor over ASCII markup bytes with the prescan's notion of an attribute.
struct ByteScanner {
    let bytes: [UInt8]
    private(set) var position = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { position >= bytes.count }

    func byte(at offset: Int) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    mutating func advance(_ count: Int) { position = min(bytes.count, position + count) }

    func lookingAt(_ text: String, caseInsensitive: Bool = false) -> Bool {
        let word = Array(text.utf8)
        guard position + word.count <= bytes.count else { return false }
        return zip(word, bytes[position...]).allSatisfy { caseInsensitive ? $0 == Self.lower($1) : $0 == $1 }
    }

    @discardableResult
    mutating func skipping(_ text: String) -> Bool {
        guard lookingAt(text) else { return false }
        advance(text.utf8.count)
        return true
    }

    mutating func skip(past text: String) {
        while !atEnd, !lookingAt(text) { position += 1 }
        advance(text.utf8.count)
    }

    mutating func skip(while predicate: (UInt8) -> Bool) {
        while !atEnd, predicate(bytes[position]) { position += 1 }
    }

    /// The HTML standard's "get an attribute": a lowercased name and its value, or nil at `>`
    /// or at the end.
    mutating func nextAttribute() -> (name: String, value: String)? {
        skip(while: { Self.isSpace($0) || $0 == UInt8(ascii: "/") })
        guard !atEnd, bytes[position] != UInt8(ascii: ">") else { return nil }
        var name: [UInt8] = []
        var value: [UInt8] = []
        nameLoop: while !atEnd {
            let byte = bytes[position]
            if byte == UInt8(ascii: "="), !name.isEmpty {
                position += 1
                break nameLoop
            }
            if Self.isSpace(byte) {
                skip(while: Self.isSpace)
                guard !atEnd, bytes[position] == UInt8(ascii: "=") else { return (Self.text(name), "") }
                position += 1
                break nameLoop
            }
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: ">") { return (Self.text(name), "") }
            name.append(Self.lower(byte))
            position += 1
        }
        skip(while: Self.isSpace)
        guard !atEnd else { return (Self.text(name), "") }
        let first = bytes[position]
        if first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            position += 1
            while !atEnd, bytes[position] != first {
                value.append(Self.lower(bytes[position]))
                position += 1
            }
            advance(1)
            return (Self.text(name), Self.text(value))
        }
        if first == UInt8(ascii: ">") { return (Self.text(name), "") }
        while !atEnd, !Self.isSpace(bytes[position]), bytes[position] != UInt8(ascii: ">") {
            value.append(Self.lower(bytes[position]))
            position += 1
        }
        return (Self.text(name), Self.text(value))
    }

    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x09 || byte == 0x0A || byte == 0x0C || byte == 0x0D || byte == 0x20
    }

    static func isLetter(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
    }

    static func lower(_ byte: UInt8) -> UInt8 {
        (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
    }

    private static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
}
