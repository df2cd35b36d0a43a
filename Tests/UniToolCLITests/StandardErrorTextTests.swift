import Testing
import UniToolHost

@Suite("Messages on stderr wrapped for a narrow terminal")
struct StandardErrorTextTests {
    @Test("a message breaks at spaces within the width; its continuation is indented under it; a hint keeps its own indent")
    func wrapsAtWords() {
        let text =
            "unitool: error: the portal at https://campus.example.edu did not answer in time\n"
            + "  hint: the portal may be overloaded; try again later\n"
        let wrapped = StandardErrorText.wrapped(text, width: 40)
        #expect(
            wrapped == """
                unitool: error: the portal at
                  https://campus.example.edu did not
                  answer in time
                  hint: the portal may be overloaded;
                    try again later

                """)
        for line in wrapped.split(separator: "\n") { #expect(line.count <= 40, "\(line)") }
    }

    @Test("a word longer than the line stays whole on a line of its own; no width, or a short line, is left as it is")
    func longWordsAndNoTerminal() {
        let path = "/home/student/.local/state/unitool/sessions/demo/alice.json"
        #expect(StandardErrorText.wrapped("unitool: note: wrote \(path)\n", width: 30) == "unitool: note: wrote\n  \(path)\n")
        #expect(StandardErrorText.wrapped("unitool: note: a long line for a pipe", width: nil) == "unitool: note: a long line for a pipe")
        #expect(StandardErrorText.wrapped("short\n", width: 40) == "short\n")
    }

    @Test("Japanese text is measured in terminal cells, two a character")
    func wideCharacters() {
        let wrapped = StandardErrorText.wrapped("unitool: note: 第一食堂 北食堂 第二食堂", width: 24)
        #expect(wrapped == "unitool: note: 第一食堂\n  北食堂 第二食堂")
    }
}
