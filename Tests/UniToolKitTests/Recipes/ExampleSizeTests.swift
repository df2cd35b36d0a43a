import Foundation
import Testing
import UniToolTestSupport

/// The example universities show how little a university is on platform recipes (issue 35):
/// each folder, every file counted, is at most 30 lines.
@Suite("Example universities stay small")
struct ExampleSizeTests {
    static let folders: [URL] = ["Recipes/examples", "Examples/recipes"].flatMap { parent -> [URL] in
        let root = Fixtures.root.appendingPathComponent(parent)
        return ((try? FileManager.default.contentsOfDirectory(at: root, includingPropertiesForKeys: nil)) ?? [])
            .filter(\.hasDirectoryPath).sorted { $0.path < $1.path }
    }

    @Test("every example is at most 30 lines of recipes", arguments: folders)
    func size(_ folder: URL) throws {
        let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil).filter {
            $0.pathExtension == "yaml"
        }
        #expect(!files.isEmpty)
        let lines = try files.reduce(0) { total, file in
            total + (try String(contentsOf: file, encoding: .utf8)).split(separator: "\n", omittingEmptySubsequences: false).count - 1
        }
        #expect(lines <= 30, "\(folder.lastPathComponent): \(lines) lines")
    }

    @Test("there are examples to measure")
    func found() { #expect(Self.folders.count >= 8) }
}
