import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

@Suite("Recipes built on platform recipes (use:)")
struct RecipeComposerTests {
    let platforms: URL

    init() throws {
        platforms = FileManager.default.temporaryDirectory.appendingPathComponent("platforms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: platforms.appendingPathComponent("lib"), withIntermediateDirectories: true)
        try """
        platform: idp
        parameters:
          entity_id: { help: "the IdP's entityID" }
          button: { default: proceed }
        login:
          start: /platform-start
          pages:
            - { name: wrong password, when: "//p[@class='error']", fail: wrong_credentials }
            - { name: where are you from, when: "//form[@id='ds']", fill: { entityID: "{{entity_id}}" } }
            - { name: sign in, when: "//form[.//input[@name='u']]", fill: { u: "{{username}}", p: "{{password}}" }, submit: ".//button[@name='{{button}}']" }
        """.write(to: platforms.appendingPathComponent("idp.yaml"), atomically: true, encoding: .utf8)
        try """
        platform: lib/loans
        command: loans
        summary: Loans from the library system
        fetch: /opac/user
        rows: "//table[@id='checkouts']/tbody/tr"
        fields:
          title:   { xpath: "td[@class='title']", required: true }
          barcode: { xpath: "td[@class='barcode']", key: true }
          due:     { xpath: "td[@class='due']", type: date, format: dd/MM/yyyy }
        """.write(to: platforms.appendingPathComponent("lib/loans.yaml"), atomically: true, encoding: .utf8)
    }

    func portal(_ login: String) throws -> PortalRecipe {
        try PortalRecipe.load(
            file: "uni/portal.yaml", text: "portal: uni\nbase_url: https://portal.example.edu\nlogin:\n" + login, platforms: platforms)
    }

    @Test("the platform's rules come first; a rule of the same name takes its place, new ones follow; parameters are filled")
    func loginComposition() throws {
        let recipe = try portal(
            """
              use: idp
              with: { entity_id: "https://idp.example.edu/idp" }
              start: /home
              pages:
                - { name: sign in, when: "//form[@id='login']", fill: { u: "{{username}}", p: "{{password}}" } }
                - { name: survey, when: "//a[@id='later']", follow: "//a[@id='later']", after_login: true }
            """)
        #expect(recipe.login.pages.map(\.name) == ["wrong password", "where are you from", "sign in", "survey"])
        #expect(recipe.login.pages[2].when == "//form[@id='login']", "the university's rule replaced the platform's")
        #expect(recipe.login.start == "/home")
        if case .fill(let values, _) = recipe.login.pages[1].action {
            #expect(values.first?.1.source == "https://idp.example.edu/idp")
        } else {
            Issue.record("not a fill: \(recipe.login.pages[1].action)")
        }
        #expect(recipe.platform?.summary == "idp: 3 rules from it (1 replaced), 1 of its own")
    }

    @Test(
        "a platform's default parameter applies; a missing one, an unknown one and an unknown platform are named",
        arguments: [
            ("  use: idp\n", "needs 'entity_id'"),
            ("  use: idp\n  with: { entity_id: x, colour: red }\n", "'colour' is not a parameter of 'idp'"),
            ("  use: cas\n", "there is no platform recipe 'cas'"),
            ("  use: ../etc/passwd\n", "is not a platform name"),
        ])
    func mistakes(login: String, complaint: String) {
        do {
            _ = try portal(login)
            Issue.record("accepted: \(login)")
        } catch {
            #expect("\(error)".contains(complaint), "\(error)")
        }
    }

    @Test("a data recipe on a platform recipe: its keys win, and fields merge by name")
    func dataComposition() throws {
        let recipe = try DataRecipe.load(
            file: "uni/loans.yaml",
            text: """
                use: lib/loans
                summary: Our library's loans
                fields:
                  due:    { xpath: "td[@class='date_due']", type: date, format: yyyy-MM-dd }
                  branch: { xpath: "td[@class='branch']" }
                """, portal: "uni", platforms: platforms)
        #expect(recipe.command == "loans" && recipe.summary == "Our library's loans")
        #expect(recipe.columns == ["title", "barcode", "due", "branch"])
        #expect(recipe.primary.fields[2].xpath == "td[@class='date_due']")
        #expect(recipe.keyFields == ["barcode"])
        #expect(recipe.platform?.summary == "lib/loans: 3 fields from it (1 replaced), 1 of its own")
    }

    @Test("the bundled Shibboleth platform composes into a valid login")
    func bundledShibboleth() throws {
        let recipe = try PortalRecipe.load(
            file: "uni/portal.yaml",
            text:
                "portal: uni\nbase_url: https://portal.example.edu\nlogin: { use: shibboleth-idp, done_when: { xpath: \"//a[@id='logout']\" } }\n",
            platforms: RecipeComposer.platformsDirectory(bundled: Fixtures.recipes))
        #expect(recipe.login.pages.map(\.name).contains("attribute release"))
        #expect(RecipeComposer.available(in: RecipeComposer.platformsDirectory(bundled: Fixtures.recipes)).contains("shibboleth-idp"))
    }
}

@Suite("The example universities and the platforms they build on, offline")
struct ExampleUniversitiesOfflineTests {
    static let examples = Fixtures.root.appendingPathComponent("Recipes/examples")

    @Test("every example's recipes load, and each is under 30 lines of YAML")
    func small() throws {
        let catalog = try RecipeCatalog(directories: [Self.examples])
        for name in ["uni-shib-moodle-koha", "uni-keycloak-koha", "uni-cas-moodle", "shib-demo", "kc-demo"] {
            #expect(catalog.portals[name] != nil, "\(name)")
            let folder = Self.examples.appendingPathComponent(name)
            let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".yaml") }
            let lines = try files.map { try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8) }
                .flatMap { $0.split(separator: "\n") }.filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }
            #expect(lines.count < 30, "\(name): \(lines.count) lines")
        }
        let loans = try catalog.recipe(portal: "uni-shib-moodle-koha", command: "loans")
        #expect(loans.platform?.platform == "koha/loans" && loans.service == "library")
    }

    @Test("the platforms' data recipes pass their saved pages (Koha, Moodle's AJAX, grades and calendar, RSS)")
    func savedPages() throws {
        let catalog = try RecipeCatalog(directories: [Self.examples], only: "uni-shib-moodle-koha")
        let cases = RecipeTester.cases(in: catalog)
        #expect(cases.count == 5)
        for testCase in cases {
            let outcome = RecipeTester.run(testCase, update: false)
            #expect(outcome.passed, "\(outcome.name): \(outcome.detail ?? "")")
        }
    }
}

@Suite("recipes new: a university's folder from its platforms")
struct RecipeScaffoldTests {
    /// The scaffold's files written to a folder of their own and read as lint reads them.
    static func catalog(of scaffold: RecipeScaffold) throws -> RecipeCatalog {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("scaffold-\(UUID().uuidString)/\(scaffold.portal)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder.deletingLastPathComponent()) }
        for file in scaffold.files { try file.text.write(to: folder.appendingPathComponent(file.name), atomically: true, encoding: .utf8) }
        return try RecipeCatalog(directories: [folder.deletingLastPathComponent()])
    }

    @Test("the folder it writes loads as lint loads it, platforms composed, services declared")
    func loads() throws {
        var scaffold = try RecipeScaffold(
            portal: "myuni", name: "My \"Quoted\" University", baseURL: URL(string: "https://campus.myuni.edu")!,
            identityProvider: "keycloak",
            idpURL: URL(string: "https://sso.myuni.edu/realms/students")!)
        scaffold.lms = ("moodle", URL(string: "https://moodle.myuni.edu")!)
        scaffold.library = ("koha", URL(string: "https://opac.myuni.edu/")!)
        scaffold.newsFeed = "/news/rss"
        let catalog = try Self.catalog(of: scaffold)
        let portal = try catalog.portal("myuni")
        #expect(portal.name == "My \"Quoted\" University")
        #expect(portal.platform?.platform == "keycloak" && portal.credentialTargets == ["idp"])
        #expect(portal.services["lms"]?.absoluteString == "https://moodle.myuni.edu/")
        #expect(Set(catalog.dataRecipes["myuni"]!.keys) == ["courses", "loans", "news"])
        #expect(try catalog.recipe(portal: "myuni", command: "courses").service == "lms")
    }

    @Test("a news feed on another origin of the university is declared as a service, so its recipe may reach it")
    func feedElsewhere() throws {
        var scaffold = try RecipeScaffold(
            portal: "myuni", name: nil, baseURL: URL(string: "https://campus.myuni.edu")!, identityProvider: "keycloak",
            idpURL: URL(string: "https://sso.myuni.edu/realms/students")!)
        scaffold.newsFeed = "https://www.myuni.edu/news/rss"
        let catalog = try Self.catalog(of: scaffold)
        let portal = try catalog.portal("myuni")
        #expect(portal.services["news"]?.absoluteString == "https://www.myuni.edu/")
        #expect(try catalog.recipe(portal: "myuni", command: "news").service == "news")
        #expect(OriginPolicy(portal: portal).refusal(.fetch, to: URL(string: "https://www.myuni.edu/news/rss")!) == nil)
        // A feed on the portal itself needs no service.
        scaffold.newsFeed = "https://campus.myuni.edu/news/rss"
        #expect(!scaffold.files.contains { $0.text.contains("news: { base_url") })
    }

    @Test(
        "an unknown product, a bad name or an address that is none is a usage error",
        arguments: [
            ("myuni", "okta", "https://idp.edu"), ("My Uni", "shibboleth", "https://idp.edu"), ("myuni", "shibboleth", "idp.edu"),
        ])
    func mistakes(portal: String, idp: String, address: String) {
        #expect {
            try RecipeScaffold(
                portal: portal, name: nil, baseURL: URL(string: "https://campus.edu")!, identityProvider: idp, idpURL: URL(string: address)!
            )
        } throws: { ($0 as? UniToolError)?.kind == .usage }
    }
}
