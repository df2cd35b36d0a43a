import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// Issue 53: `recipes new NAME --record URL` drives a real Chromium through a foreign portal, the
/// student played by a hook (Fixtures/browser-hooks/, each replaying what the student of one
/// recording in ../shared/foreign/recordings did), and must write the folder that `--from-har`
/// writes from that student's real recording. Two things may differ, and only they: the day
/// each visit was made (a fixture's `today`, and so the hashes of `.draft.sha256`) and the
/// recording's producer named in portal.yaml's first comment (unitool, Playwright).
///
/// Part of the recordings' suite, which runs its tests one at a time: both start and stop the
/// same portals on the same fixed ports.
extension ForeignRecordingsTests {
    struct Visit: Sendable, CustomTestStringConvertible {
        let recording: String
        let portal: String
        let start: String
        /// The recordings' browser settings (their README): the student's language and zone.
        let language: String
        var testDescription: String { recording }
    }

    static let visits = [
        Visit(recording: "saml-peer-alice", portal: "saml-peer", start: "http://127.0.0.1:8492/", language: "en_US.UTF-8"),
        Visit(recording: "campus-taro", portal: "campus", start: "http://127.0.0.1:8471/campus/", language: "ja_JP.UTF-8"),
        Visit(recording: "campus-hanako", portal: "campus", start: "http://127.0.0.1:8471/campus/", language: "ja_JP.UTF-8"),
        Visit(recording: "shib-portal-taro", portal: "shib-portal", start: "http://127.0.0.1:8481/campus/", language: "ja_JP.UTF-8"),
    ]

    /// A folder's files by path, each as its lines, without the lines that name the visit's day
    /// or the recording's producer; `.draft.sha256` (hashes of those files) is left out.
    static func contents(of folder: URL) throws -> [String: [String]] {
        var files: [String: [String]] = [:]
        let enumerator = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        for case let file as URL in enumerator?.allObjects ?? [] where !file.hasDirectoryPath {
            let path = String(file.standardizedFileURL.path.dropFirst(folder.standardizedFileURL.path.count + 1))
            guard path != ".draft.sha256" else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            files[path] = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).filter { line in
                !line.trimmingCharacters(in: .whitespaces).hasPrefix("\"today\":") && !line.hasPrefix("# From a browser's recording (")
            }
        }
        return files
    }

    @Test(
        "the folder of a live --record equals the folder of the student's recording",
        .enabled(if: Needs.check(FileManager.default.isExecutableFile(atPath: "/usr/bin/chromium"), "chromium")), arguments: visits)
    func recordedVisit(_ visit: Visit) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let recorded = sandbox.root.appendingPathComponent("recorded")
        let fromHar = sandbox.root.appendingPathComponent("from-har")
        let har = ForeignPortals.folder.appendingPathComponent("recordings/\(visit.recording).har")
        let hook = Fixtures.root.appendingPathComponent("Fixtures/browser-hooks/\(visit.recording).js")
        try await ForeignPortals.withRunning(visit.portal) {
            // A visit of up to 14 pages, a one-time code that may wait for its next period, on a
            // machine busy with the other suites: more than a command's usual minute.
            let made = try await Self.run(
                ["recipes", "new", "visit", "--record", visit.start, "--headless", "-o", recorded.path], in: sandbox,
                extra: [
                    "UNITOOL_BROWSER_HOOK": hook.path, "UNITOOL_BROWSER": "/usr/bin/chromium", "LANG": visit.language,
                    "LANGUAGE": String(visit.language.prefix(2)), "UNITOOL_LOCALEDIR": try CompiledCatalogs.folder.get().path,
                ], timeout: 300)
            try #require(made.exitCode == 0, "\(made)")
            // The student's language is unitool's too: the note in it, from the catalog.
            let note = "the recording was kept in memory only: nothing of your password or cookies was written"
            let catalogs = try CompiledCatalogs.folder.get().path
            let language = String(visit.language.prefix(2))
            let translated = Translation(preference: LanguagePreference(locales: [language]), directories: [catalogs]).message(note)
            #expect(made.stdout.contains(translated ?? note), "\(made)")
        }
        let converted = try await sandbox.run(["recipes", "new", "visit", "--from-har", har.path, "-o", fromHar.path])
        try #require(converted.exitCode == 0, "\(converted)")
        let live = try Self.contents(of: recorded.appendingPathComponent("visit"))
        let expected = try Self.contents(of: fromHar.appendingPathComponent("visit"))
        #expect(live.keys.sorted() == expected.keys.sorted())
        for path in expected.keys.sorted() where live[path] != expected[path] {
            Issue.record(
                "\(path) differs:\n--- --record\n\(live[path]?.joined(separator: "\n") ?? "(missing)")\n--- --from-har\n\(expected[path]!.joined(separator: "\n"))"
            )
        }
        // Nothing but the folder was written: no HAR, no browser profile.
        let written = sandbox.allFiles().map {
            String($0.standardizedFileURL.path.dropFirst(sandbox.root.standardizedFileURL.path.count + 1))
        }
        #expect(
            written.allSatisfy {
                $0.hasPrefix("recorded/") || $0.hasPrefix("from-har/") || $0.hasPrefix("config/") || $0.hasPrefix("data/")
            }, "\(written)")
        #expect(!written.contains { $0.hasSuffix(".har") })
    }
}
