import Foundation
import LibXML
import Logging
import Testing
import UniToolKit
import UniToolTestSupport

@Suite(
    "Drift reports", .enabled(if: Needs.testSandbox, "writes to the XDG cache"))
struct DriftReportTests {
    @Test("two drift reports of the same recipe in the same second are two files; neither overwrites the other")
    func sameSecondReportsAreKept() throws {
        let recipe = try RecipeCatalog(directories: [Fixtures.recipes]).recipe(portal: "demo", command: "grades")
        let document = try Document(html: "<html><body><p>changed</p></body></html>", url: "http://127.0.0.1:1/grades")
        let error = UniToolError(.layoutChanged, "the page changed")
        let logger = Logger(label: "test")
        func reports() -> Set<String> {
            Set(
                ((try? FileManager.default.contentsOfDirectory(atPath: DriftReport.directory.path)) ?? []).filter {
                    $0.hasPrefix("demo-grades-")
                })
        }
        let before = reports()
        _ = DriftReport.save(error, document: document, recipe: recipe, logger: logger)
        _ = DriftReport.save(error, document: document, recipe: recipe, logger: logger)
        #expect(reports().subtracting(before).count == 2)
    }
}
