import Foundation

/// One compiled gettext catalog (a `.mo` file, as `msgfmt` writes it): the translations of one
/// language, by their English key.
///
/// Read whole into a dictionary when the language is chosen: a catalog of unitool's size is
/// about 200 KB and a thousand entries. Both byte orders are read, as gettext reads them; an
/// entry with a context (`msgctxt`) is kept under `context\u{4}key`, as gettext stores it.
/// A fuzzy entry never reaches a `.mo` (`msgfmt` leaves it out), so every entry here is meant.
public struct MessageCatalog: Sendable {
    /// The translations: one form, or one per plural form for an entry with `msgid_plural`.
    let entries: [String: [String]]
    public let pluralRule: PluralRule
    /// The catalog's `Language:` header, when it has one.
    public let language: String?

    public enum ReadError: Error, Equatable {
        case notACatalog
        case truncated
    }

    public init(data: Data) throws {
        let bytes = [UInt8](data)
        guard bytes.count >= 28 else { throw ReadError.notACatalog }
        let littleEndian: Bool
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0xde, 0x12, 0x04, 0x95): littleEndian = true
        case (0x95, 0x04, 0x12, 0xde): littleEndian = false
        default: throw ReadError.notACatalog
        }
        func word(_ offset: Int) throws -> Int {
            guard offset >= 0, offset + 4 <= bytes.count else { throw ReadError.truncated }
            let b = bytes[offset..<offset + 4].map(UInt32.init)
            return Int(littleEndian ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24)
        }
        func string(at descriptor: Int) throws -> [UInt8] {
            let length = try word(descriptor)
            let start = try word(descriptor + 4)
            guard start >= 0, length >= 0, start + length <= bytes.count else { throw ReadError.truncated }
            return Array(bytes[start..<start + length])
        }
        let count = try word(8)
        let originals = try word(12)
        let translations = try word(16)
        guard count >= 0, count <= bytes.count / 16 else { throw ReadError.truncated }
        var entries: [String: [String]] = [:]
        entries.reserveCapacity(count)
        var header = ""
        for index in 0..<count {
            let original = try string(at: originals + 8 * index)
            let translation = try string(at: translations + 8 * index)
            // A plural entry's key is `singular\0plural`; its translation the forms joined by \0.
            let key = String(decoding: original.split(separator: 0, omittingEmptySubsequences: false).first ?? [], as: UTF8.self)
            let forms = translation.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            if key.isEmpty {
                header = forms.first ?? ""
            } else {
                entries[key] = forms
            }
        }
        self.entries = entries
        let fields = Self.headerFields(header)
        pluralRule = fields["plural-forms"].flatMap(PluralRule.init(header:)) ?? .english
        language = fields["language"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The catalog at `path`, or nil when there is none there or it cannot be read as one.
    public static func load(path: String) -> MessageCatalog? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        return try? MessageCatalog(data: data)
    }

    /// The translation of `key`; nil when the catalog has none (or an empty one).
    public func message(_ key: String) -> String? {
        guard let form = entries[key]?.first, !form.isEmpty else { return nil }
        return form
    }

    /// The translation of a plural entry in the form `count` takes.
    public func message(_ key: String, count: Int) -> String? {
        guard let forms = entries[key] else { return nil }
        let form = pluralRule.form(for: count)
        guard forms.indices.contains(form), !forms[form].isEmpty else { return nil }
        return forms[form]
    }

    public var count: Int { entries.count }

    private static func headerFields(_ header: String) -> [String: String] {
        var fields: [String: String] = [:]
        for line in header.split(separator: "\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            fields[name] = String(line[line.index(after: colon)...].drop(while: { $0 == " " }))
        }
        return fields
    }
}
