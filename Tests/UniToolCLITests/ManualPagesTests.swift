import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

@testable import UniToolCLI

/// The reference an installed unitool carries: a man page per command, and the exit codes,
/// environment and files in unitool(1) and `unitool help TOPIC`. (PluginsAndConfigTests checks
/// that the committed pages are current and that groff reads them without a warning.)
@Suite("Man pages and help topics: every command, every exit code")
struct ManualPagesTests {
    let pages = Dictionary(uniqueKeysWithValues: ManualPages.all().map { ($0.name, $0.text) })

    @Test("every built-in command, and watch, has a page of its own")
    func everyCommandHasAPage() {
        for command in Dispatcher.builtins.keys.sorted() + ["watch"] {
            #expect(pages["unitool-\(command).1"] != nil, "no unitool-\(command).1")
        }
        let watch = pages["unitool-watch.1"] ?? ""
        #expect(watch.contains(".SH SYNOPSIS") && watch.contains(".SH OPTIONS") && watch.contains(".SH EXAMPLES"))
        #expect(watch.contains("\\-\\-due\\-within") && watch.contains("\\-\\-exec"))
    }

    @Test("every exit code of UniToolError stands under EXIT STATUS, with its name")
    func exitStatusComplete() throws {
        let root = try #require(pages["unitool.1"])
        let section = try #require(root.range(of: ".SH EXIT STATUS")).upperBound
        let exitStatus = root[section...].prefix { _ in true }.components(separatedBy: ".SH ENVIRONMENT").first ?? ""
        for kind in UniToolError.Kind.allCases {
            #expect(exitStatus.contains(".B \(kind.exitCode)\n\(ManualPages.escape(kind.rawValue)):"), "\(kind)")
        }
        #expect(root.contains(".SH ENVIRONMENT") && root.contains("UNITOOL_PASSWORD_COMMAND") && root.contains(".SH FILES"))
    }

    @Test("-h, --help is listed once on every page")
    func helpOnce() {
        for (name, text) in pages {
            #expect(text.components(separatedBy: ".B \\-h, \\-\\-help\n").count <= 2, "\(name)")
        }
    }

    @Test("the exit code table of docs/USING.md has every code with its name, as help exit-codes does")
    func readmeTable() throws {
        let readme = try String(contentsOf: Fixtures.root.appendingPathComponent("docs/USING.md"), encoding: .utf8)
        let text = try #require(HelpTopics.text("exit-codes"))
        for kind in UniToolError.Kind.allCases {
            let code = String(kind.exitCode)
            #expect(
                readme.contains("| \(code.padding(toLength: max(code.count, 2), withPad: " ", startingAt: 0)) | `\(kind.rawValue)` |"),
                "\(kind)")
            #expect(text.contains("  \(code.padding(toLength: 4, withPad: " ", startingAt: 0))\(kind.rawValue) "), "\(kind)")
        }
    }

    @Test("help topics lists every topic, each of which answers; the faults help environment names are faults the demo takes")
    func topicsKnowThemselves() throws {
        let list = try #require(HelpTopics.text("topics"))
        for name in HelpTopics.names {
            #expect(list.contains("  \(name) "), "\(name) missing from help topics:\n\(list)")
            #expect(HelpTopics.text(name) != nil)
        }
        #expect(Set(HelpTopics.summaries.map(\.name)) == Set(HelpTopics.names))
        for fault in HelpTopics.exampleFaults {
            let concrete = fault.replacingOccurrences(of: "=MS", with: "=5")
            #expect(throws: Never.self, "help environment names '\(fault)'") { try DemoFaults(parsing: concrete) }
        }
        let environment = try #require(HelpTopics.text("environment"))
        #expect(environment.contains(HelpTopics.exampleFaults.joined(separator: ", ")))
    }
}
