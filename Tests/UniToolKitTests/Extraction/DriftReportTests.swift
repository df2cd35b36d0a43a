import Foundation
import LibXML
import Logging
import Testing
import UniToolKit
import UniToolTestSupport

/// Drift reports in a sandbox of the test's own, so the suite runs anywhere.
@Suite("Drift reports")
struct DriftReportTests {
    @Test("two drift reports of the same recipe in the same second are two files; neither overwrites the other")
    func sameSecondReportsAreKept() throws {
        let recipe = try RecipeCatalog(directories: [Fixtures.recipes]).recipe(portal: "demo", command: "grades")
        let document = try Document(html: "<html><body><p>changed</p></body></html>", url: "http://127.0.0.1:1/grades")
        let error = UniToolError(.layoutChanged, "the page changed")
        let logger = Logger(label: "test")
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let folder = sandbox.locations.driftReports
        func reports() -> Set<String> {
            Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix("demo-grades-") })
        }
        _ = DriftReport.save(error, document: document, recipe: recipe, in: folder, logger: logger)
        _ = DriftReport.save(error, document: document, recipe: recipe, in: folder, logger: logger)
        #expect(reports().count == 2)
    }
}
