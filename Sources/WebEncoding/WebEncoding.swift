/// A character encoding as the WHATWG Encoding Standard names it, which is how browsers read a
/// label such as `Shift_JIS`, `latin1` or `GB2312`.
///
/// Why not take a label at its word: what servers call `Shift_JIS` is Windows-31J (with the NEC
/// and IBM extensions: `Ⅰ`, `①`, `髙`), `ISO-8859-1` is windows-1252 (so `80` is `€`), and
/// `EUC-KR` is windows-949. A strict decoder for the named encoding stops at the first such byte;
/// browsers never do, and neither may unitool.
public struct WebEncoding: Hashable, Sendable, CustomStringConvertible {
    /// The standard's name: `Shift_JIS`, `windows-1252`, `UTF-8`, ...
    public let name: String

    private init(_ name: String) { self.name = name }

    public var description: String { name }

    public static let utf8 = WebEncoding("UTF-8")
    public static let windows1252 = WebEncoding("windows-1252")
    public static let utf16BE = WebEncoding("UTF-16BE")
    public static let utf16LE = WebEncoding("UTF-16LE")
    public static let shiftJIS = WebEncoding("Shift_JIS")
    public static let replacement = WebEncoding("replacement")
    public static let userDefined = WebEncoding("x-user-defined")

    /// The encoding a label stands for ("get an encoding"): ASCII whitespace around it is ignored
    /// and case does not matter. Nil for a label the standard does not know.
    ///
    /// Read byte by byte, and lower-cased in ASCII only as the standard says (so the Kelvin sign
    /// is no `k`): the generic views this once went through cost a warm command half a
    /// millisecond of the runtime's type lookups (issue 54).
    public init?(label: String) {
        var bytes = Array(label.utf8)[...]
        while let first = bytes.first, Self.isASCIIWhitespace(first) { bytes.removeFirst() }
        while let last = bytes.last, Self.isASCIIWhitespace(last) { bytes.removeLast() }
        let key = String(decoding: bytes.map { (65...90).contains($0) ? $0 + 32 : $0 }, as: UTF8.self)
        guard let name = Self.names[key] else { return nil }
        self.name = name
    }

    /// The encoding a form on a page in this encoding is sent in ("get an output encoding"):
    /// UTF-8 for UTF-16 and for the replacement encoding, which cannot be written.
    public var outputEncoding: WebEncoding {
        [.utf16BE, .utf16LE, .replacement].contains(self) ? .utf8 : self
    }

    /// Every name of the standard's table.
    public static var allNames: Set<String> { Set(names.values) }

    private static func isASCIIWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
    }

    /// The standard's table of labels (encodings.json), label to name.
    private static let names: [String: String] = {
        let table: [(name: String, labels: [String])] = [
            ("UTF-8", ["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"]),
            ("IBM866", ["866", "cp866", "csibm866", "ibm866"]),
            (
                "ISO-8859-2",
                ["csisolatin2", "iso-8859-2", "iso-ir-101", "iso8859-2", "iso88592", "iso_8859-2", "iso_8859-2:1987", "l2", "latin2"]
            ),
            (
                "ISO-8859-3",
                ["csisolatin3", "iso-8859-3", "iso-ir-109", "iso8859-3", "iso88593", "iso_8859-3", "iso_8859-3:1988", "l3", "latin3"]
            ),
            (
                "ISO-8859-4",
                ["csisolatin4", "iso-8859-4", "iso-ir-110", "iso8859-4", "iso88594", "iso_8859-4", "iso_8859-4:1988", "l4", "latin4"]
            ),
            (
                "ISO-8859-5",
                ["csisolatincyrillic", "cyrillic", "iso-8859-5", "iso-ir-144", "iso8859-5", "iso88595", "iso_8859-5", "iso_8859-5:1988"]
            ),
            (
                "ISO-8859-6",
                [
                    "arabic", "asmo-708", "csiso88596e", "csiso88596i", "csisolatinarabic", "ecma-114", "iso-8859-6", "iso-8859-6-e",
                    "iso-8859-6-i", "iso-ir-127", "iso8859-6", "iso88596", "iso_8859-6", "iso_8859-6:1987",
                ]
            ),
            (
                "ISO-8859-7",
                [
                    "csisolatingreek", "ecma-118", "elot_928", "greek", "greek8", "iso-8859-7", "iso-ir-126", "iso8859-7", "iso88597",
                    "iso_8859-7", "iso_8859-7:1987", "sun_eu_greek",
                ]
            ),
            (
                "ISO-8859-8",
                [
                    "csiso88598e", "csisolatinhebrew", "hebrew", "iso-8859-8", "iso-8859-8-e", "iso-ir-138", "iso8859-8", "iso88598",
                    "iso_8859-8", "iso_8859-8:1988", "visual",
                ]
            ),
            ("ISO-8859-8-I", ["csiso88598i", "iso-8859-8-i", "logical"]),
            ("ISO-8859-10", ["csisolatin6", "iso-8859-10", "iso-ir-157", "iso8859-10", "iso885910", "l6", "latin6"]),
            ("ISO-8859-13", ["iso-8859-13", "iso8859-13", "iso885913"]),
            ("ISO-8859-14", ["iso-8859-14", "iso8859-14", "iso885914"]),
            ("ISO-8859-15", ["csisolatin9", "iso-8859-15", "iso8859-15", "iso885915", "iso_8859-15", "l9"]),
            ("ISO-8859-16", ["iso-8859-16"]),
            ("KOI8-R", ["cskoi8r", "koi", "koi8", "koi8-r", "koi8_r"]),
            ("KOI8-U", ["koi8-ru", "koi8-u"]),
            ("macintosh", ["csmacintosh", "mac", "macintosh", "x-mac-roman"]),
            ("windows-874", ["dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"]),
            ("windows-1250", ["cp1250", "windows-1250", "x-cp1250"]),
            ("windows-1251", ["cp1251", "windows-1251", "x-cp1251"]),
            (
                "windows-1252",
                [
                    "ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1", "iso-ir-100", "iso8859-1",
                    "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1", "us-ascii", "windows-1252", "x-cp1252",
                ]
            ),
            ("windows-1253", ["cp1253", "windows-1253", "x-cp1253"]),
            (
                "windows-1254",
                [
                    "cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9", "iso88599", "iso_8859-9", "iso_8859-9:1989", "l5",
                    "latin5", "windows-1254", "x-cp1254",
                ]
            ),
            ("windows-1255", ["cp1255", "windows-1255", "x-cp1255"]),
            ("windows-1256", ["cp1256", "windows-1256", "x-cp1256"]),
            ("windows-1257", ["cp1257", "windows-1257", "x-cp1257"]),
            ("windows-1258", ["cp1258", "windows-1258", "x-cp1258"]),
            ("x-mac-cyrillic", ["x-mac-cyrillic", "x-mac-ukrainian"]),
            ("GBK", ["chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk", "iso-ir-58", "x-gbk"]),
            ("gb18030", ["gb18030"]),
            ("Big5", ["big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"]),
            ("EUC-JP", ["cseucpkdfmtjapanese", "euc-jp", "x-euc-jp"]),
            ("ISO-2022-JP", ["csiso2022jp", "iso-2022-jp"]),
            ("Shift_JIS", ["csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j", "x-sjis"]),
            (
                "EUC-KR",
                [
                    "cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987", "ks_c_5601-1989", "ksc5601",
                    "ksc_5601", "windows-949",
                ]
            ),
            ("replacement", ["csiso2022kr", "hz-gb-2312", "iso-2022-cn", "iso-2022-cn-ext", "iso-2022-kr", "replacement"]),
            ("UTF-16BE", ["unicodefffe", "utf-16be"]),
            ("UTF-16LE", ["csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"]),
            ("x-user-defined", ["x-user-defined"]),
        ]
        var names: [String: String] = [:]
        for (name, labels) in table {
            for label in labels { names[label] = name }
        }
        return names
    }()

    /// The glibc iconv converter that decodes this encoding as the standard's decoder does:
    /// `CP932` for Shift_JIS (the NEC and IBM rows included), `EUC-JP-MS` for EUC-JP,
    /// `GB18030` for GBK, `CP949` for EUC-KR, `BIG5-HKSCS` for Big5. Nil where unitool decodes
    /// by itself (UTF-8, the replacement encoding, x-user-defined).
    var iconvDecoderName: String? {
        switch name {
        case "UTF-8", "replacement", "x-user-defined": return nil
        case "ISO-8859-8-I": return "ISO-8859-8"
        case "macintosh": return "MACINTOSH"
        case "x-mac-cyrillic": return "MAC-CYRILLIC"
        case "windows-874": return "CP874"
        case "GBK", "gb18030": return "GB18030"
        case "Big5": return "BIG5-HKSCS"
        case "EUC-JP": return "EUC-JP-MS"
        case "Shift_JIS": return "CP932"
        case "EUC-KR": return "CP949"
        default:
            if name.hasPrefix("windows-") { return "CP" + name.dropFirst("windows-".count) }
            return name
        }
    }

    /// The iconv converter for encoding a form: as the decoder, except that GBK's encoder never
    /// writes gb18030's four-byte sequences.
    var iconvEncoderName: String? {
        name == "GBK" ? "GBK" : iconvDecoderName
    }

    /// The single-byte Windows code pages, whose undefined bytes (`81`, `8D`, ...) the standard
    /// maps to the C1 control of the same number instead of an error.
    var mapsUndefinedBytesToC1: Bool { name.hasPrefix("windows-") && name != "windows-874" }
}
