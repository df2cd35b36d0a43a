import Foundation
import LibXML
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

    @Test(
        "the university's rules come first, then the platform's; one of the same name replaces the platform's; rules that send a secret go last; parameters are filled"
    )
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
        #expect(recipe.login.pages.map(\.name) == ["survey", "wrong password", "where are you from", "sign in"])
        #expect(recipe.login.pages[3].when == "//form[@id='login']", "the university's rule replaced the platform's")
        #expect(recipe.login.start == "/home")
        if case .fill(let values, _) = recipe.login.pages[2].action {
            #expect(values.first?.1.source == "https://idp.example.edu/idp")
        } else {
            Issue.record("not a fill: \(recipe.login.pages[2].action)")
        }
        #expect(recipe.platform?.summary == "idp: 3 rules from it (1 replaced), 1 of its own")
        #expect(recipe.platform?.ruleOrigins["wrong password"] == "idp" && recipe.platform?.ruleOrigins["survey"] == nil)
    }

    @Test("a page that shows an error and the login form again stops at the error, whoever wrote either rule and in whatever order")
    func errorBeforePassword() throws {
        // The portal's own error rule, written after the platform's sign-in rule would have
        // been tried before it was, and a platform whose error rule comes after its sign-in.
        let page = try Document(
            html:
                "<html><body><p class='refused'>Service not allowed</p><form id='f'><input name='u'><input name='p' type='password'></form></body></html>"
        )
        let own = try portal(
            """
              use: idp
              with: { entity_id: x }
              pages:
                - { name: refused service, when: "//p[@class='refused']", fail: error }
            """)
        #expect(try own.login.rule(matching: page)?.rule.name == "refused service")
        let late = try PortalRecipe.load(
            file: "uni/portal.yaml",
            text: """
                portal: uni
                base_url: https://portal.example.edu
                login:
                  pages:
                    - { name: sign in, when: "//form[.//input[@name='p']]", fill: { u: "{{username}}", p: "{{password}}" } }
                    - { name: one-time code, when: "//form[.//input[@name='otp']]", fill: { otp: "{{totp}}" } }
                    - { name: refused service, when: "//p[@class='refused']", fail: error }
                """)
        #expect(late.login.pages.map(\.name) == ["refused service", "sign in", "one-time code"])
        #expect(try late.login.rule(matching: page)?.rule.name == "refused service")
    }

    @Test("use: a list of platforms: the protocol's rules and the product's, each taking the parameters it declares")
    func platformList() throws {
        try """
        platform: proto
        parameters:
          callback: { help: "the client's callback path" }
        login:
          pages:
            - { name: form post, when: "//form[.//input[@name='code']]", auto_submit: true }
            - { name: refused, when: "//p[@id='error']", fail: error }
        """.write(to: platforms.appendingPathComponent("proto.yaml"), atomically: true, encoding: .utf8)
        let recipe = try portal(
            """
              use: [proto, idp]
              with: { callback: /cb, entity_id: "https://idp.example.edu/idp" }
            """)
        #expect(recipe.login.pages.map(\.name) == ["form post", "refused", "wrong password", "where are you from", "sign in"])
        #expect(recipe.platform?.platform == "proto + idp")
        #expect(recipe.platform?.ruleOrigins["form post"] == "proto" && recipe.platform?.ruleOrigins["sign in"] == "idp")
        for (login, complaint) in [
            (
                "  use: [proto, idp]\n  with: { callback: /cb, entity_id: x, colour: red }\n",
                "'colour' is not a parameter of 'proto' or 'idp'"
            ),
            ("  use: [idp, idp]\n  with: { entity_id: x }\n", "names a platform twice"),
            ("  use: []\n", "name a platform"),
        ] {
            #expect(throws: UniToolError.self, "\(login)") { try portal(login) }
            do { _ = try portal(login) } catch { #expect("\(error)".contains(complaint), "\(error)") }
        }
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

@Suite("A field that overrides a platform's field")
struct FieldOverrideTests {
    static let platforms = RecipeComposer.platformsDirectory(bundled: Fixtures.recipes)

    /// One Koha checkouts row, as opac-user.tt writes it: the due date's data-order is the stored
    /// date and time.
    static let page = """
        <html><body><table id="checkoutst"><tbody><tr>
        <td class="title"><a class="title" href="/cgi-bin/koha/opac-detail.pl?biblionumber=7"><span class="biblio-title">Algebra</span></a></td>
        <td class="date_due" data-order="2026-07-04 23:59:00"> 07/04/2026 </td>
        <td class="barcode">39020004417</td>
        </tr></tbody></table></body></html>
        """

    func loans(due: String) throws -> DataRecipe {
        try DataRecipe.load(
            file: "uni/loans.yaml", text: "use: koha/loans\nfields:\n  due: \(due)\n", portal: "uni", platforms: Self.platforms)
    }

    @Test("its own xpath and format read the value its own way: the platform's regex is not applied to it")
    func ownChain() throws {
        let recipe = try loans(
            due:
                #"{ xpath: "td[contains(@class, 'date_due')]/@data-order", type: datetime, format: "yyyy-MM-dd HH:mm:ss", required: true }"#
        )
        let due = try #require(recipe.primary.fields.first { $0.name == "due" })
        #expect(due.regex == nil, "the platform's regex, written for its own element, was kept: \(due.regex ?? "")")
        let records = try RecordExtractor(recipe: recipe).extract(from: try Document(html: Self.page)).records
        #expect(records.count == 1)
        let value = try #require(records.first?["due"])
        guard case .datetime(let text) = value else {
            Issue.record("not a datetime: \(value)")
            return
        }
        #expect(text.hasPrefix("2026-07-04T23:59:00"), "\(text)")
        #expect(recipe.warnings.allSatisfy { !$0.contains("'due'") }, "\(recipe.warnings)")
    }

    @Test("with extends: true it adds to the platform's chain; a field giving part of a chain without xpath is warned about")
    func extendsAndMixing() throws {
        let extended = try loans(due: #"{ xpath: "td[contains(@class, 'date_due')]/@data-order", extends: true }"#)
        let due = try #require(extended.primary.fields.first { $0.name == "due" })
        #expect(due.regex != nil && due.format == "yyyy-MM-dd", "extends keeps the platform's regex and format")
        let mixed = try loans(due: #"{ format: "yyyy-MM-dd", timezone: Europe/Vienna }"#)
        #expect(
            mixed.warnings.contains { $0.contains("field 'due' gives its own format, timezone over the platform's") }, "\(mixed.warnings)")
        let bare = try DataRecipe.load(
            file: "uni/loans.yaml", text: "use: koha/loans\nfields:\n  renewals_left: { xpath: \"td[5]\" }\n", portal: "uni",
            platforms: Self.platforms)
        #expect(
            bare.warnings.contains {
                $0.contains("field 'renewals_left' gives its own xpath, so the platform's type: integer no longer applies")
            }, "\(bare.warnings)")
        #expect(throws: UniToolError.self, "extends takes true or false") {
            try loans(due: #"{ xpath: "td[2]", extends: sometimes }"#)
        }
        #expect(throws: UniToolError.self, "extends beside replace: true contradicts it") {
            try loans(due: #"{ xpath: "td[2]", extends: true, replace: true }"#)
        }
        #expect(throws: UniToolError.self) {
            try loans(due: "{ xpath: td[1] }\n  shelf: { xpath: td[2], extends: true }")
        }
    }
}
