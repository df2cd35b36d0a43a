import Testing

@testable import WebEncoding

@Suite("Encoding labels, as the WHATWG Encoding Standard maps them")
struct EncodingLabelTests {
    @Test(
        "labels servers use map to what browsers decode",
        arguments: [
            ("Shift_JIS", "Shift_JIS"), ("sjis", "Shift_JIS"), ("x-sjis", "Shift_JIS"), ("ms_kanji", "Shift_JIS"),
            ("windows-31j", "Shift_JIS"), ("ISO-8859-1", "windows-1252"), ("latin1", "windows-1252"),
            ("US-ASCII", "windows-1252"), ("EUC-KR", "EUC-KR"), ("windows-949", "EUC-KR"), ("GB2312", "GBK"),
            ("GBK", "GBK"), ("gb18030", "gb18030"), ("euc-jp", "EUC-JP"), ("utf8", "UTF-8"), ("  UTF-8\n", "UTF-8"),
            ("iso-8859-9", "windows-1254"), ("tis-620", "windows-874"), ("utf-16", "UTF-16LE"), ("big5-hkscs", "Big5"),
            ("iso-2022-kr", "replacement"), ("koi8-ru", "KOI8-U"), ("latin2", "ISO-8859-2"),
        ] as [(String, String)])
    func labels(label: String, name: String) {
        #expect(WebEncoding(label: label)?.name == name)
    }

    @Test("a label the standard does not know is no encoding")
    func unknownLabels() {
        #expect(WebEncoding(label: "klingon") == nil)
        #expect(WebEncoding(label: "") == nil)
        #expect(WebEncoding(label: "utf 8") == nil)
    }

    @Test("forms on UTF-16 and replacement pages are sent in UTF-8")
    func outputEncoding() {
        #expect(WebEncoding.utf16LE.outputEncoding == .utf8)
        #expect(WebEncoding(label: "iso-2022-kr")!.outputEncoding == .utf8)
        #expect(WebEncoding.shiftJIS.outputEncoding == .shiftJIS)
    }
}

@Suite("Decoding as browsers decode: extensions included, bad bytes replaced, never cut short")
struct DecodingTests {
    private func decode(_ label: String, _ bytes: [UInt8]) -> (String, Int) {
        let decoded = WebEncoding(label: label)!.decode(bytes)
        return (String(decoding: decoded.utf8, as: UTF8.self), decoded.errors)
    }

    @Test(
        "bytes where the label's strict encoding and the browser's differ",
        arguments: [
            // NEC special characters under "Shift_JIS": Windows-31J.
            ("Shift_JIS", [0x87, 0x54, 0x87, 0x55, 0x87, 0x40], "ⅠⅡ①"),
            // NEC-selected IBM extension and IBM extension rows.
            ("sjis", [0xED, 0x40, 0xFA, 0x40], "纊ⅰ"),
            ("ISO-8859-1", [0x80, 0x41, 0x81], "€A\u{81}"),
            ("windows-1250", [0x8A, 0xE8], "Šč"),
            ("EUC-KR", [0x81, 0x41, 0xB0, 0xA1], "갂가"),
            ("GB2312", [0xA1, 0xA1, 0x81, 0x30, 0x81, 0x30], "\u{3000}\u{80}"),
            ("EUC-JP", [0xAD, 0xA1, 0xC6, 0xFC], "①日"),
            ("Big5", [0xA4, 0x40], "一"),
            ("windows-1251", [0xC0, 0xE1], "Аб"),
            ("x-user-defined", [0x41, 0x80], "A\u{F780}"),
        ] as [(String, [UInt8], String)])
    func browserDecoding(label: String, bytes: [UInt8], expected: String) {
        let (text, errors) = decode(label, bytes)
        #expect(text == expected)
        #expect(errors == 0)
    }

    @Test("an undecodable byte becomes U+FFFD and decoding goes on, an ASCII trail byte kept")
    func replacement() {
        #expect(decode("UTF-8", [0x61, 0xFF, 0x62]) == ("a\u{FFFD}b", 1))
        #expect(decode("Shift_JIS", [0x85, 0x41, 0x82, 0xA0]) == ("\u{FFFD}Aあ", 1))
        #expect(decode("Shift_JIS", [0x61, 0x82]) == ("a\u{FFFD}", 1))
        #expect(decode("EUC-JP", [0xA4, 0xA2, 0xFF, 0xA4, 0xA4]) == ("あ\u{FFFD}い", 1))
        #expect(decode("replacement", [0x41]) == ("\u{FFFD}", 1))
    }

    @Test("valid UTF-8 is passed through, a literal U+FFFD is no error")
    func utf8() {
        #expect(decode("UTF-8", Array("日本語 \u{FFFD}".utf8)) == ("日本語 \u{FFFD}", 0))
    }

    @Test("a long page in Shift_JIS decodes whole")
    func longPage() {
        let row: [UInt8] = [0x87, 0x54, 0x20, 0x82, 0xA0, 0x0A]
        let bytes = Array(repeating: row, count: 50_000).flatMap { $0 }
        let (text, errors) = decode("Shift_JIS", bytes)
        #expect(errors == 0)
        #expect(text.split(separator: "\n").count == 50_000)
        #expect(text.hasSuffix("Ⅰ あ\n"))
    }
}

@Suite("Encoding a form as browsers do")
struct FormEncodingTests {
    @Test("text in the page's encoding, unrepresentable characters as character references")
    func encode() {
        #expect(WebEncoding.shiftJIS.encodeForForm("線形代数") == [0x90, 0xFC, 0x8C, 0x60, 0x91, 0xE3, 0x90, 0x94])
        #expect(WebEncoding.shiftJIS.encodeForForm("Ⅰa") == [0x87, 0x54, 0x61])
        #expect(WebEncoding.shiftJIS.encodeForForm("é") == Array("&#233;".utf8))
        #expect(WebEncoding(label: "latin1")!.encodeForForm("€é日") == [0x80, 0xE9] + Array("&#26085;".utf8))
        #expect(WebEncoding.utf8.encodeForForm("日") == Array("日".utf8))
        #expect(WebEncoding.utf16LE.encodeForForm("日") == Array("日".utf8))
    }

    @Test("ISO-2022-JP switches back to ASCII at the end and before a character reference")
    func stateful() {
        let encoding = WebEncoding(label: "iso-2022-jp")!
        #expect(encoding.encodeForForm("日本") == [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42])
        let withReference = encoding.encodeForForm("日é")
        #expect(withReference == [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x1B, 0x28, 0x42] + Array("&#233;".utf8))
    }
}

@Suite("Sniffing: byte order mark, recipe, HTTP header, <meta> prescan, default")
struct EncodingSnifferTests {
    private func sniff(
        _ text: String, header: String? = nil, override: String? = nil, markup: EncodingSniffer.Markup = .html, prefix: [UInt8] = []
    ) -> (String, EncodingSniffer.Source) {
        let result = EncodingSniffer(markup: markup, headerLabel: header, overrideLabel: override).sniff(prefix + Array(text.utf8))
        return (result.encoding.name, result.source)
    }

    @Test("precedence: BOM, then the recipe, then the header, then the page, then UTF-8")
    func precedence() {
        let page = "<meta charset=euc-jp><p>x</p>"
        #expect(sniff(page, header: "sjis", override: "latin1", prefix: [0xEF, 0xBB, 0xBF]) == ("UTF-8", .byteOrderMark))
        #expect(sniff(page, header: "sjis", prefix: [0xFF, 0xFE]) == ("UTF-16LE", .byteOrderMark))
        #expect(sniff(page, header: "sjis", override: "latin1") == ("windows-1252", .recipe))
        #expect(sniff(page, header: "sjis") == ("Shift_JIS", .httpHeader))
        #expect(sniff(page, header: "no-such-charset") == ("EUC-JP", .meta))
        #expect(sniff(page) == ("EUC-JP", .meta))
        #expect(sniff("<p>x</p>") == ("UTF-8", .defaultUTF8))
    }

    @Test("decoding leaves the byte order mark out and uses the sniffed encoding")
    func decodeAfterSniffing() {
        let marked = EncodingSniffer(markup: .html, headerLabel: "sjis").decode([0xEF, 0xBB, 0xBF] + Array("<p>é</p>".utf8))
        #expect(marked.sniffed.source == .byteOrderMark && marked.sniffed.bomLength == 3)
        #expect(marked.decoded.utf8 == Array("<p>é</p>".utf8) && marked.decoded.errors == 0)
        // 0x82 0xA0 is あ in Shift_JIS, named only by the HTTP header.
        let labelled = EncodingSniffer(markup: .html, headerLabel: "Shift_JIS").decode([0x3C, 0x70, 0x3E, 0x82, 0xA0])
        #expect(labelled.sniffed.encoding == .shiftJIS && labelled.sniffed.source == .httpHeader)
        #expect(String(decoding: labelled.decoded.utf8, as: UTF8.self) == "<p>あ")
    }

    @Test(
        "the <meta> prescan reads what browsers read",
        arguments: [
            ("<META CHARSET='Shift_JIS'>", "Shift_JIS"),
            ("<meta http-equiv=\"Content-Type\" content=\"text/html; charset=EUC-JP\">", "EUC-JP"),
            ("<meta content='text/html;charset=\"x-sjis\"' http-equiv='content-type'>", "Shift_JIS"),
            ("<meta charset=utf-16>", "UTF-8"),
            ("<meta charset=x-user-defined>", "windows-1252"),
            ("<!-- <meta charset=euc-jp> --><meta charset=sjis>", "Shift_JIS"),
            ("<div title='<meta charset=euc-jp>'></div><meta charset=sjis>", "Shift_JIS"),
            ("<meta charset=nonsense><meta charset=latin2>", "ISO-8859-2"),
            ("<meta/charset=gbk>", "GBK"),
        ] as [(String, String)])
    func prescan(page: String, name: String) {
        #expect(sniff(page) == (name, .meta))
    }

    @Test(
        "what the prescan must not take for a declaration",
        arguments: [
            "<meta content='text/html; charset=sjis'>",  // content without http-equiv
            "<metadata charset=sjis>",
            "<p>charset=sjis</p>",
            String(repeating: " ", count: 1024) + "<meta charset=sjis>",  // past the first 1024 bytes
        ])
    func notDeclarations(page: String) {
        #expect(sniff(page) == ("UTF-8", .defaultUTF8))
    }

    @Test("XML: the declaration's encoding, after the BOM, the recipe and the header")
    func xml() {
        let feed = "<?xml version=\"1.0\" encoding=\"Shift_JIS\"?><rss/>"
        #expect(sniff(feed, markup: .xml) == ("Shift_JIS", .xmlDeclaration))
        #expect(sniff(feed, header: "euc-jp", markup: .xml) == ("EUC-JP", .httpHeader))
        #expect(sniff("<rss/>", markup: .xml) == ("UTF-8", .defaultUTF8))
        // A <meta> means nothing in XML.
        #expect(sniff("<rss><meta charset='sjis'/></rss>", markup: .xml) == ("UTF-8", .defaultUTF8))
    }

    @Test("charset= in a content attribute, quoted or not")
    func contentCharset() {
        #expect(EncodingSniffer.contentCharset("text/html; charset=Shift_JIS") == "Shift_JIS")
        #expect(EncodingSniffer.contentCharset("text/html; CHARSET = 'euc-jp'") == "euc-jp")
        #expect(EncodingSniffer.contentCharset("text/html; charset=\"unterminated") == nil)
        #expect(EncodingSniffer.contentCharset("text/html") == nil)
        #expect(EncodingSniffer.contentCharset("charsetx; charset=gbk;q") == "gbk")
    }
}
