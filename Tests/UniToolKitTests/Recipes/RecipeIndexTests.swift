import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// The recipe index: the lists of commands kept between runs, trusted only while no recipe changed.
@Suite("The recipe index")
struct RecipeIndexTests {
    /// A recipe folder of the demo's portal, grades and loans, in a sandbox.
    static func folder(in sandbox: Sandbox) throws -> URL {
        let recipes = sandbox.root.appendingPathComponent("recipes")
        let folder = recipes.appendingPathComponent("demo")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["portal.yaml", "grades.yaml", "loans.yaml"] {
            try FileManager.default.copyItem(
                at: Fixtures.recipes.appendingPathComponent("demo/\(name)"), to: folder.appendingPathComponent(name))
        }
        return recipes
    }

    @Test("the lists are the catalog's: each command's summary, its actions, and whether it runs without arguments")
    func listingsAreTheCatalogs() throws {
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        let listings = RecipeIndex.listings(of: catalog)
        let demo = try #require(listings["demo"])
        #expect(demo.map(\.command) == catalog.recipes(of: "demo").map(\.command))
        let loans = try #require(demo.first { $0.command == "loans" })
        let recipe = try catalog.recipe(portal: "demo", command: "loans")
        #expect(loans.summary == recipe.summary)
        #expect(loans.actions.map(\.name) == recipe.actions.map(\.name))
        #expect(loans.runsWithoutArguments == recipe.runsWithoutArguments)
        #expect(demo.contains { !$0.runsWithoutArguments }, "some demo command needs an argument (catalogue's query)")
    }

    @Test("written and read back unchanged, tabs, line ends and backslashes in any field included")
    func roundTrip() throws {
        let index = RecipeIndex(
            stamps: [
                "/a\tb/c\\d": FileStamp(device: 64_769, inode: 42, size: 12, modified: 1_795_000_000, modifiedNanoseconds: 123_456_789)
            ],
            listings: [
                "uni": [
                    .init(command: "grades", summary: "Grades\tper term\nand more \\ less", runsWithoutArguments: true, actions: []),
                    .init(
                        command: "loans", summary: "Loans", runsWithoutArguments: false, actions: [("renew", "Renew\none"), ("all", "")]),
                ]
            ])
        #expect(RecipeIndex(text: index.text) == index)
        #expect(RecipeIndex(text: "something else\n") == nil)
        #expect(RecipeIndex(text: index.text + "stamp\t1\tnot-a-number\t1\t1\t1\t/x\n") == nil, "a damaged file is no index")
    }

    @Test("an index is written only once its recipes have settled: a change within the same clock tick could hide")
    func racyStamps() throws {
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        func stamp(secondsAgo: Double) -> FileStamp {
            let time = now.timeIntervalSince1970 - secondsAgo
            return FileStamp(
                device: 1, inode: 1, size: 1, modified: Int(time.rounded(.down)),
                modifiedNanoseconds: Int((time - time.rounded(.down)) * 1_000_000_000))
        }
        #expect(RecipeIndex.maySave(["/a": stamp(secondsAgo: 60), "/b": stamp(secondsAgo: 3)], now: now))
        #expect(!RecipeIndex.maySave(["/a": stamp(secondsAgo: 60), "/b": stamp(secondsAgo: 0.5)], now: now))
        #expect(!RecipeIndex.maySave(["/a": stamp(secondsAgo: -10)], now: now), "a time in the future is no settled one")
    }

    @Test("trusted while nothing changed; an edited, added or removed recipe, or another version, makes it stale")
    func staleness() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recipes = try Self.folder(in: sandbox)
        let file = sandbox.root.appendingPathComponent("cache/recipe-index")
        let stamps = RecipeIndex.stamps(of: [recipes])
        #expect(stamps.keys.contains(recipes.appendingPathComponent("demo/grades.yaml").path))
        let index = RecipeIndex(stamps: stamps, listings: RecipeIndex.listings(of: try RecipeCatalog(directories: [recipes])))
        try index.save(to: file)
        #expect(RecipeIndex.load(from: file, expecting: RecipeIndex.stamps(of: [recipes])) == index)

        // An edit of the same size still changes the modification time.
        let grades = recipes.appendingPathComponent("demo/grades.yaml")
        let text = try String(contentsOf: grades, encoding: .utf8)
        try text.replacingOccurrences(of: "summary: Grades for a term", with: "summary: Grades for a tErm").write(
            to: grades, atomically: false, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(5)], ofItemAtPath: grades.path)
        #expect(RecipeIndex.load(from: file, expecting: RecipeIndex.stamps(of: [recipes])) == nil)

        try RecipeIndex(stamps: RecipeIndex.stamps(of: [recipes]), listings: index.listings).save(to: file)
        #expect(RecipeIndex.load(from: file, expecting: RecipeIndex.stamps(of: [recipes])) != nil)
        try Data("command: extra\nfetch: /x\nrows: //tr\nfields:\n  a: { xpath: td }\n".utf8)
            .write(to: recipes.appendingPathComponent("demo/extra.yaml"))
        #expect(RecipeIndex.load(from: file, expecting: RecipeIndex.stamps(of: [recipes])) == nil, "a recipe was added")

        try RecipeIndex(stamps: RecipeIndex.stamps(of: [recipes]), listings: index.listings).save(to: file)
        try FileManager.default.removeItem(at: recipes.appendingPathComponent("demo/extra.yaml"))
        #expect(RecipeIndex.load(from: file, expecting: RecipeIndex.stamps(of: [recipes])) == nil, "a recipe was removed")

        // A hidden recipe is read by the catalog, so it is stamped too.
        try Data("command: hidden\nfetch: /x\nrows: //tr\nfields:\n  a: { xpath: td }\n".utf8)
            .write(to: recipes.appendingPathComponent("demo/.draft.yaml"))
        #expect(RecipeIndex.stamps(of: [recipes]).keys.contains(recipes.appendingPathComponent("demo/.draft.yaml").path))

        let current = RecipeIndex.stamps(of: [recipes])
        try RecipeIndex(version: "0.0.0-other", stamps: current, listings: index.listings).save(to: file)
        #expect(RecipeIndex.load(from: file, expecting: current) == nil, "another unitool wrote it")
    }
}
