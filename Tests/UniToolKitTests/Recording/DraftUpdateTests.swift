import Foundation
import Testing

@testable import UniToolKit

/// `recipes new --from-har FILE --update`: what a new recording's draft does to a folder the
/// person may have edited, decided from the folder's `.draft.sha256` alone.
@Suite("Recording: --update adds a new recording to a folder, keeping the person's edits")
struct DraftUpdateTests {
    static func data(_ text: String) -> Data { Data(text.utf8) }

    static let portal = """
        portal: myuni
        name: "myuni"
        base_url: "https://portal.example.edu"
        # Where the password (and any code) was posted in the recording; nowhere else.
        credentials_may_go_to: [idp]

        login:
          use: unitool-demo
          start: "/home"
          done_when: { xpath: "//a[@id='logout']" }

        """

    @Test("the manifest is sha256sum's format, read back the same; a line of another shape is an error that says what to do")
    func manifest() throws {
        let made = DraftManifest(files: [("portal.yaml", Self.data("a")), ("Fixtures/grades/recorded.html", Self.data("b"))])
        #expect(made.text.hasPrefix("3e23e8160039594a33894f6564e1b1348bbd7a0088d42c4acb73eeaed59c009d  Fixtures/grades/recorded.html\n"))
        #expect(try DraftManifest(parsing: made.text) == made)
        #expect(throws: UniToolError.self) { try DraftManifest(parsing: "not a hash  portal.yaml\n") }
    }

    @Test("added when new; replaced when not edited since; kept with FILE.new beside when edited; left alone when not made again")
    func decisions() throws {
        let old = DraftManifest(files: [
            ("grades.yaml", Self.data("grades v1")), ("whoami.yaml", Self.data("whoami v1")), ("old.yaml", Self.data("old")),
        ])
        let onDisk = [
            "grades.yaml": Self.data("grades v1 # my edit"), "whoami.yaml": Self.data("whoami v1"), "same.yaml": Self.data("same"),
            "old.yaml": Self.data("old"),
        ]
        let plan = DraftUpdate(
            manifest: old, onDisk: onDisk,
            files: [
                ("grades.yaml", Self.data("grades v2")), ("whoami.yaml", Self.data("whoami v2")), ("loans.yaml", Self.data("loans")),
                ("same.yaml", Self.data("same")),
            ])
        let by = Dictionary(uniqueKeysWithValues: plan.entries.map { ($0.path, $0) })
        #expect(by["loans.yaml"]?.outcome == .added && by["loans.yaml"]?.write == Self.data("loans"))
        #expect(by["whoami.yaml"]?.outcome == .updated && by["whoami.yaml"]?.write == Self.data("whoami v2"))
        let kept = try #require(by["grades.yaml"])
        #expect(kept.outcome == .kept && kept.write == nil && kept.beside == Self.data("grades v2"), "\(kept)")
        #expect(kept.why.contains("edited by you") && kept.why.contains("grades.yaml.new"), "\(kept.why)")
        #expect(by["same.yaml"]?.outcome == .unchanged && by["same.yaml"]?.write == nil)
        #expect(by["old.yaml"] == nil, "a command recorded before is not touched")
        // The edited file stays the person's at the next update: its old hash is kept.
        #expect(plan.manifest.hashes["grades.yaml"] == old.hashes["grades.yaml"])
        #expect(plan.manifest.hashes["loans.yaml"] == DraftManifest.hash(Self.data("loans")))
        #expect(plan.manifest.hashes["old.yaml"] == old.hashes["old.yaml"])
    }

    @Test("without a manifest (deleted, or a folder written by hand) every existing file is kept as the person's")
    func noManifest() {
        let plan = DraftUpdate(manifest: nil, onDisk: ["grades.yaml": Self.data("mine")], files: [("grades.yaml", Self.data("new"))])
        #expect(plan.entries.first?.outcome == .kept && plan.entries.first?.write == nil)
        #expect(plan.entries.first?.why.contains(".draft.sha256") == true)
        #expect(plan.manifest.hashes["grades.yaml"] == nil)
    }

    @Test("portal.yaml: the person's, with the new services, password destinations and today: items added; more differences beside it")
    func portalMerge() throws {
        let edited = Self.portal.replacingOccurrences(of: "start: \"/home\"", with: "start: \"/home\"\n  # my note")
        let new =
            Self.portal.replacingOccurrences(
                of: "credentials_may_go_to: [idp]", with: "credentials_may_go_to: [idp, \"https://mfa.example.edu\"]"
            )
            .replacingOccurrences(
                of: "\nlogin:", with: "services:\n  library: { base_url: \"https://opac.example.edu/\" }\n\nlogin:")
            + "\ntoday:\n  - title: \"Loans\"\n    command: loans\n    show: due\n"
        let plan = DraftUpdate(
            manifest: DraftManifest(files: [("portal.yaml", Self.data(Self.portal))]), onDisk: ["portal.yaml": Self.data(edited)],
            files: [("portal.yaml", Self.data(new))])
        let entry = try #require(plan.entries.first)
        #expect(entry.outcome == .merged, "\(entry)")
        let merged = String(decoding: entry.write ?? Data(), as: UTF8.self)
        #expect(merged.contains("# my note"), "the edit kept: \(merged)")
        #expect(merged.contains("services:\n  library: { base_url: \"https://opac.example.edu/\" }\n\nlogin:"), "\(merged)")
        #expect(merged.contains("credentials_may_go_to: [idp, \"https://mfa.example.edu\"]"), "\(merged)")
        #expect(merged.contains("today:\n  - title: \"Loans\"\n    command: loans\n"), "\(merged)")
        #expect(entry.beside == nil, "nothing else differs: \(entry.why)")
        #expect(plan.manifest.hashes["portal.yaml"] == DraftManifest.hash(Self.data(Self.portal)), "still the person's")
        // The new recording's login differs in more (another start): its version goes beside.
        let other = Self.portal.replacingOccurrences(of: "start: \"/home\"", with: "start: \"/portal\"")
        let differs = DraftUpdate(
            manifest: DraftManifest(files: [("portal.yaml", Self.data(Self.portal))]), onDisk: ["portal.yaml": Self.data(edited)],
            files: [("portal.yaml", Self.data(other))])
        #expect(differs.entries.first?.beside == Self.data(other) && differs.entries.first?.write == nil, "\(differs.entries)")
        #expect(differs.entries.first?.why.contains("portal.yaml.new") == true)
    }

    @Test("a file 'recipes new' made and the person removed stays removed: kept deleted, not added again")
    func removedStaysRemoved() {
        let old = DraftManifest(files: [("whoami.yaml", Self.data("whoami v1"))])
        let plan = DraftUpdate(manifest: old, onDisk: [:], files: [("whoami.yaml", Self.data("whoami v2"))])
        let entry = plan.entries.first
        #expect(entry?.outcome == .keptDeleted && entry?.write == nil && entry?.beside == nil, "\(plan.entries)")
        #expect(entry?.why.contains("you removed it") == true)
        #expect(plan.manifest.hashes["whoami.yaml"] == old.hashes["whoami.yaml"], "still removed at the next update")
    }

    @Test("an unedited portal.yaml is replaced by the new one (a wrong password's fail rule), keeping the services only the old one had")
    func uneditedPortalReplaced() throws {
        let old = Self.portal.replacingOccurrences(
            of: "\nlogin:", with: "services:\n  library: { base_url: \"https://opac.example.edu/\" }\n\nlogin:")
        let new = Self.portal + "  fail:\n    - { xpath: \"//div[@id='flash']\", reason: wrong_password }\n"
        let plan = DraftUpdate(
            manifest: DraftManifest(files: [("portal.yaml", Self.data(old))]), onDisk: ["portal.yaml": Self.data(old)],
            files: [("portal.yaml", Self.data(new))])
        let entry = try #require(plan.entries.first)
        let written = String(decoding: entry.write ?? Data(), as: UTF8.self)
        #expect(entry.outcome == .updated && entry.beside == nil, "\(entry)")
        #expect(written.contains("reason: wrong_password") && written.contains("library: { base_url"), "\(written)")
        #expect(plan.manifest.hashes["portal.yaml"] == DraftManifest.hash(entry.write ?? Data()), "still unedited next time")
    }

    @Test(
        "an edited portal.yaml in block style: what is new is read as YAML (no duplicate key); a layout the merge cannot edit gets portal.yaml.new"
    )
    func portalInBlockStyle() throws {
        let block = Self.portal.replacingOccurrences(
            of: "\nlogin:",
            with: "services:\n  library:\n    base_url: \"https://opac.example.edu/\"\n"
                + "  lms:\n    base_url: \"https://lms.example.edu/\"\n\nlogin:")
        let new = Self.portal.replacingOccurrences(
            of: "\nlogin:",
            with: "services:\n  lms: { base_url: \"https://lms.example.edu/\" }\n"
                + "  mail: { base_url: \"https://mail.example.edu/\" }\n\nlogin:")
        let plan = DraftUpdate(
            manifest: DraftManifest(files: [("portal.yaml", Self.data(Self.portal))]), onDisk: ["portal.yaml": Self.data(block)],
            files: [("portal.yaml", Self.data(new))])
        let entry = try #require(plan.entries.first)
        let merged = String(decoding: entry.write ?? Data(), as: UTF8.self)
        #expect(entry.outcome == .merged, "\(entry)")
        #expect(merged.components(separatedBy: "  lms:").count == 2, "lms is there once: \(merged)")
        #expect(merged.contains("  mail: { base_url: \"https://mail.example.edu/\" }"), "\(merged)")
        #expect(DraftUpdate.PortalShape(merged).map { Set($0.services) } == ["library", "lms", "mail"])
        // services: written as a flow mapping on its own line: nothing the line edit can add to.
        let flow = Self.portal.replacingOccurrences(
            of: "\nlogin:", with: "services: { library: { base_url: \"https://opac.example.edu/\" } }\n\nlogin:")
        let unsafe = DraftUpdate(
            manifest: DraftManifest(files: [("portal.yaml", Self.data(Self.portal))]), onDisk: ["portal.yaml": Self.data(flow)],
            files: [("portal.yaml", Self.data(new))])
        let kept = try #require(unsafe.entries.first)
        #expect(kept.outcome == .kept && kept.write == nil && kept.beside == Self.data(new), "\(kept)")
        #expect(kept.why.contains("portal.yaml.new") && kept.why.contains("layout"), "\(kept.why)")
    }
}
