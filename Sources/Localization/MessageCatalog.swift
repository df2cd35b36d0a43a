import Foundation

/// One compiled gettext catalog (a `.mo` file, as `msgfmt` writes it): the translations of one
/// language, by their English key.
///
/// Nothing is decoded up front: a message is found by binary search in the file's table of
/// original strings, which the format keeps sorted for that purpose, and only its translation
/// is decoded. Reading unitool's catalog (1,800 messages, 350 KB) into a dictionary cost a
/// translated `--version` 60 ms in a debug build; a lookup costs a dozen comparisons. Both byte
/// orders are read, as gettext reads them. A fuzzy entry never reaches a `.mo` (`msgfmt` leaves
/// it out), so every entry here is meant.
public struct MessageCatalog: Sendable {
    private let bytes: [UInt8]
    private let littleEndian: Bool
    private let originals: Int
    private let translations: Int
    /// The number of messages, the header included.
    public let count: Int
    public let pluralRule: PluralRule
    /// The catalog's `Language:` header, when it has one.
    public let language: String?

    public enum ReadError: Error, Equatable {
        case notACatalog
        case truncated
    }

    public init(data: Data) throws {
        bytes = [UInt8](data)
        guard bytes.count >= 28 else { throw ReadError.notACatalog }
        switch (bytes[0], bytes[1], bytes[2], bytes[3]) {
        case (0xde, 0x12, 0x04, 0x95): littleEndian = true
        case (0x95, 0x04, 0x12, 0xde): littleEndian = false
        default: throw ReadError.notACatalog
        }
        let count = Self.word(bytes, 8, littleEndian: littleEndian)
        originals = Self.word(bytes, 12, littleEndian: littleEndian)
        translations = Self.word(bytes, 16, littleEndian: littleEndian)
        // Both tables of descriptors (length, offset) lie inside the file; each string is checked
        // when it is read.
        guard count >= 0, count <= bytes.count / 16, originals >= 28, translations >= 28,
            originals + 8 * count <= bytes.count, translations + 8 * count <= bytes.count
        else { throw ReadError.truncated }
        self.count = count
        var header = ""
        // The header is the message with the empty key, first in the sorted table.
        if count > 0, let key = Self.string(bytes, at: originals, littleEndian: littleEndian), key.isEmpty,
            let text = Self.string(bytes, at: translations, littleEndian: littleEndian)
        {
            header = String(decoding: text, as: UTF8.self)
        }
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
        guard let form = forms(of: key)?.first, !form.isEmpty else { return nil }
        return form
    }

    /// The translation of a plural entry in the form `count` takes.
    public func message(_ key: String, count: Int) -> String? {
        guard let forms = forms(of: key) else { return nil }
        let form = pluralRule.form(for: count)
        guard forms.indices.contains(form), !forms[form].isEmpty else { return nil }
        return forms[form]
    }

    /// The forms of the entry whose key (up to a plural entry's `\0`) is `key`.
    private func forms(of key: String) -> [String]? {
        // The empty key is the header's, which is no message (gettext would answer it).
        guard !key.isEmpty else { return nil }
        let wanted = Array(key.utf8)
        var low = 0
        var high = count - 1
        while low <= high {
            let middle = (low + high) / 2
            guard let original = Self.string(bytes, at: originals + 8 * middle, littleEndian: littleEndian) else { return nil }
            // A plural entry's original is `singular\0plural`; the table is sorted by the singular.
            let singular = original.prefix { $0 != 0 }
            if singular.elementsEqual(wanted) {
                guard let text = Self.string(bytes, at: translations + 8 * middle, littleEndian: littleEndian) else { return nil }
                return text.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            }
            if singular.lexicographicallyPrecedes(wanted) { low = middle + 1 } else { high = middle - 1 }
        }
        return nil
    }

    private static func word(_ bytes: [UInt8], _ offset: Int, littleEndian: Bool) -> Int {
        guard offset >= 0, offset + 4 <= bytes.count else { return -1 }
        let b = bytes[offset..<offset + 4].map(UInt32.init)
        return Int(littleEndian ? b[0] | b[1] << 8 | b[2] << 16 | b[3] << 24 : b[3] | b[2] << 8 | b[1] << 16 | b[0] << 24)
    }

    /// The string a descriptor (length, offset) at `descriptor` names; nil when it lies outside the file.
    private static func string(_ bytes: [UInt8], at descriptor: Int, littleEndian: Bool) -> ArraySlice<UInt8>? {
        let length = word(bytes, descriptor, littleEndian: littleEndian)
        let start = word(bytes, descriptor + 4, littleEndian: littleEndian)
        guard length >= 0, start >= 0, start + length <= bytes.count else { return nil }
        return bytes[start..<start + length]
    }

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
