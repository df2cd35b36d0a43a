import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

@testable import UniToolCLI

/// Every duration and count is range-checked where its text is read, once, in UniToolKit: a
/// number too large for the arithmetic after it is a usage error naming the range, never a trap.
@Suite("Input bounds: durations and counts are checked where they are read")
struct InputBoundsTests {
    static let news: DataRecipe = {
        let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])
        return try! catalog.recipe(portal: "demo", command: "news")
    }()

    static var since: OptionSpec { news.options.first { $0.name == "since" }! }

    /// Numbers of days that once crashed every front end, and ones just past the range.
    static let tooFar = ["9999999999999999d", "99999999999999999999999d", "36501d", "9223372036854775807d"]

    @Test("a number of days is read within 0 to 36500; past it, a usage error names the range", arguments: tooFar)
    func daysOutOfRange(text: String) {
        do {
            _ = try InputBounds.span(text, option: "--since")
            Issue.record("'\(text)' was accepted")
        } catch let error as UniToolError {
            #expect(error.kind == .usage)
            #expect(error.message.contains("from 0 to 36500"), "\(error.message)")
            #expect(error.message.contains("--since"), "\(error.message)")
        } catch {
            Issue.record("not a UniToolError: \(error)")
        }
    }

    @Test("spans within the range are read; other text is left to the caller's other forms")
    func spansWithinRange() throws {
        #expect(try InputBounds.span("7d", option: "--since") == .init(count: 7, unit: .days))
        #expect(try InputBounds.span("36500d", option: "--since")?.seconds == 36_500 * 86_400)
        #expect(try InputBounds.span("0d", option: "--since")?.count == 0)
        #expect(try InputBounds.span("12h", option: "--since") == nil, "hours only where the caller allows them")
        #expect(try InputBounds.span("12h", option: "--since", units: [.days, .hours]) == .init(count: 12, unit: .hours))
        for other in ["today", "2026-11-01", "d", "-7d", "+7d", "7 d", "７d", ""] {
            #expect(try InputBounds.span(other, option: "--since") == nil, "\(other)")
        }
        do {
            _ = try InputBounds.span("876001h", option: "--since", units: [.days, .hours])
            Issue.record("876001h was accepted")
        } catch let error as UniToolError {
            #expect(error.kind == .usage && error.message.contains("from 0 to 876000"), "\(error.message)")
        }
    }

    /// The UniToolError that `body` throws, or nil when it throws nothing (or something else).
    func thrown(_ body: () throws -> Void) -> UniToolError? {
        do {
            try body()
            return nil
        } catch let error as UniToolError {
            return error
        } catch {
            return nil
        }
    }

    @Test("counts: within the range as they are; outside, a usage error naming the range")
    func counts() throws {
        #expect(try InputBounds.count("20", option: "--limit", in: InputBounds.searchResults) == 20)
        for text in ["0", "-1", "10001", "9223372036854775807", "99999999999999999999", "x"] {
            let error = thrown { _ = try InputBounds.count(text, option: "--limit", in: InputBounds.searchResults) }
            #expect(error?.kind == .usage && error?.message.contains("from 1 to 10000") == true, "\(text): \(String(describing: error))")
        }
        for value in [Int.min, -1, 0, 255, (1 << 30) + 1, Int.max] {
            let error = thrown { try InputBounds.count(value, option: "--max-message-bytes", in: InputBounds.messageBytes) }
            #expect(
                error?.kind == .usage && error?.message.contains("--max-message-bytes") == true, "\(value): \(String(describing: error))")
        }
        #expect(InputBounds.messageBytes.contains(RPCLimits.defaultMaxMessageBytes))
        #expect(InputBounds.unreadBytes.contains(RPCLimits.defaultMaxUnreadBytes))
    }

    @Test("the record filter, which the CLI, JSON-RPC and MCP share, refuses the span with a usage error instead of trapping")
    func recordFilter() throws {
        for text in Self.tooFar {
            do {
                _ = try RecordFilter(option: Self.since, value: text)
                Issue.record("'\(text)' was accepted")
            } catch let error as UniToolError {
                #expect(error.kind == .usage && error.message.contains("from 0 to 36500"), "\(error.message)")
            }
        }
        let now = Date(timeIntervalSince1970: 1_795_000_000)
        #expect(try RecordFilter(option: Self.since, value: "36500d", now: now).value.hasPrefix("19"))
    }

    @Test("the command line names the mistake while reading the arguments, before any request")
    func commandLineArguments() {
        do {
            _ = try RecipeInvocation(parsing: ["--since", "9999999999999999d"], recipe: Self.news)
            Issue.record("the invocation was accepted")
        } catch let error as UniToolError {
            #expect(error.kind == .usage && error.message.contains("from 0 to 36500"), "\(error.message)")
        } catch {
            Issue.record("not a UniToolError: \(error)")
        }
    }

    @Test("recipes.run's parameters refuse the span as invalid params (-32602), naming the option")
    func rpcParameters() {
        let params = JSONValue.object([("options", .object([("since", .string("9999999999999999d"))]))])
        do {
            _ = try RecipeRunParameters(checking: params, against: Self.news)
            Issue.record("the parameters were accepted")
        } catch let error as RPCError {
            #expect(error.code == -32602)
            #expect(error.message.contains("options.since") && error.message.contains("from 0 to 36500"), "\(error.message)")
        } catch {
            Issue.record("not an RPCError: \(error)")
        }
    }

    @Test("history's --since reads days and hours within the same range")
    func historySince() {
        for text in ["9999999999999999d", "876001h"] {
            do {
                _ = try HistoryReport.start(of: text)
                Issue.record("'\(text)' was accepted")
            } catch let error as UniToolError {
                #expect(error.kind == .usage && error.message.contains("out of range"), "\(error.message)")
            } catch {
                Issue.record("not a UniToolError: \(error)")
            }
        }
    }
}
