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

    @Test("each target has a seed corpus", arguments: FuzzTarget.allCases)
    func corpusExists(target: FuzzTarget) {
        #expect(Self.inputs(target).count >= 3, "Fuzz/Corpus/\(target.rawValue) should hold seed inputs")
    }

    @Test("every committed input runs without a crash or a broken invariant", arguments: FuzzTarget.allCases)
    func replay(target: FuzzTarget) throws {
        for input in Self.inputs(target) {
            let bytes = Array(try Data(contentsOf: input))
            #expect(throws: Never.self, "\(target.rawValue): \(input.lastPathComponent)") { try target.run(bytes) }
        }
    }
}
