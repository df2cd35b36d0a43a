import Foundation
import Testing
import UniToolFuzzTargets
import UniToolTestSupport

/// Every input the fuzzers were seeded with, and every input that once made a target crash or
/// break an invariant, runs in the normal suite: a finding that was fixed stays fixed.
@Suite("Fuzz corpus and past findings replay cleanly")
struct FuzzCorpusReplayTests {
    static let fuzzFolder = Fixtures.root.appendingPathComponent("Fuzz")

    /// `Fuzz/Corpus/<target>/` (seeds, committed) and `Fuzz/Findings/<target>/` (inputs that
    /// failed once, each committed with the fix).
    static func inputs(_ target: FuzzTarget) -> [URL] {
        ["Corpus", "Findings"].flatMap { folder in
            let directory = fuzzFolder.appendingPathComponent(folder).appendingPathComponent(target.rawValue)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
            return names.filter { !$0.hasPrefix(".") }.sorted().map { directory.appendingPathComponent($0) }
        }
    }

    /// The hostile inputs each target's corpus must keep, one for each attack unitool was shown
    /// to resist, and the findings that were fixed: a corpus that lost one would replay
    /// nothing of that attack.
    static let required: [FuzzTarget: [String]] = [
        .extraction: [
            "billion-laughs.xml", "quadratic-entity.xml", "xxe-file.xml", "invalid-utf8.xml", "windows-31j.html", "utf16-bom.html",
            "deep-table.html", "combining-mark-in-a-feed-date.xml",
        ],
        .recipe: ["alias-bomb.yaml", "portal-id-colon.yaml", "portal.yaml"],
        .rpc: ["deep.jsonl", "bad-header.bin", "content-length.bin", "batch.jsonl", "number-overflows-to-infinity.jsonl"],
        .cookie: ["combining-mark-crashed-dateformatter", "crash-empty-attribute-after-semicolon", "huge-max-age-broke-the-saved-session"],
        .form: ["login.html", "odd-actions.html", "saml-post.html"],
    ]

    @Test("each target's corpus keeps its seeds and the inputs of every attack and past finding", arguments: FuzzTarget.allCases)
    func corpusExists(target: FuzzTarget) {
        let names = Set(Self.inputs(target).map(\.lastPathComponent))
        #expect(names.count >= 3, "Fuzz/Corpus/\(target.rawValue) should hold seed inputs")
        for name in Self.required[target] ?? [] {
            #expect(names.contains(name), "\(target.rawValue) lost \(name)")
        }
    }

    @Test("every committed input runs without a crash or a broken invariant", arguments: FuzzTarget.allCases)
    func replay(target: FuzzTarget) throws {
        for input in Self.inputs(target) {
            let bytes = Array(try Data(contentsOf: input))
            #expect(throws: Never.self, "\(target.rawValue): \(input.lastPathComponent)") { try target.run(bytes) }
        }
    }
}
