import Foundation
import Testing
import UniToolKit

@testable import UniToolCLI

/// The options of saved watches (`--save`, `--name`, `--all --now`, `list`, `remove NAME`), as
/// the watch's parser tells them from the recipe's and the global ones.
@Suite("Saved watches' options")
struct WatchSavedOptionsTests {
    @Test("--save and --name belong to the watch; the recipe's options stay for the recipe")
    func save() throws {
        let options = try WatchCommandRunner.Options(parsing: ["grades", "--term", "current", "--save", "--name", "fall-grades"])
        #expect(options.command == "grades" && options.save && options.name == "fall-grades")
        #expect(options.rest == ["--term", "current"])
        for refused in [["grades", "--name", "x"], ["--all", "--save"], ["grades", "--save", "--name", "a b"], ["grades", "--now"]] {
            #expect(throws: UniToolError.self, "\(refused)") { try WatchCommandRunner.Options(parsing: refused) }
        }
    }

    @Test("list and remove are the watch's subcommands; remove's name is left for it")
    func subcommands() throws {
        let remove = try WatchCommandRunner.Options(parsing: ["remove", "loans", "--portal", "demo"])
        #expect(remove.subcommand == "remove" && remove.command == nil && remove.rest == ["loans", "--portal", "demo"])
        #expect(WatchInstaller.ownArguments(remove.rest) == ["loans"])
        #expect(try WatchCommandRunner.Options(parsing: ["list", "--json"]).subcommand == "list")
        let now = try WatchCommandRunner.Options(parsing: ["--all", "--now"])
        #expect(now.all && now.now)
    }

    @Test("each subcommand's --help is its own")
    func help() {
        #expect(WatchCommandRunner.helpText(for: "install").contains("--directory <dir>"))
        #expect(!WatchCommandRunner.helpText(for: "install").contains("--due-within"))
        #expect(WatchCommandRunner.helpText(for: "remove").contains("USAGE: unitool watch remove <name>"))
        #expect(WatchCommandRunner.helpText(for: nil).contains("--save"))
    }

    @Test("the wait until the next watch is due, for people")
    func waits() {
        #expect(WatchCommandRunner.shownWait(30) == "under a minute")
        #expect(WatchCommandRunner.shownWait(12 * 60) == "12m")
        #expect(WatchCommandRunner.shownWait(65 * 60) == "1h 5m")
        #expect(WatchCommandRunner.shownWait(3 * 86_400) == "3d")
    }
}
