import Foundation
import Testing
import UniToolTestSupport

/// The reader behind `EndToEndTests/DocumentedExamplesTests`: it finds the documents' examples
/// and splits each line as a shell would.
@Suite("Documented examples: the line reader")
struct DocumentedExamplesReaderTests {
    @Test("the documents have demo examples, and the line reader reads them as a shell would")
    func found() throws {
        #expect(try DocumentedExamples.examples().count >= 30)
        #expect(
            DocumentedExamples.words(#"unitool --portal demo syllabus --search "information theory"  # a comment"#)
                == ["unitool", "--portal", "demo", "syllabus", "--search", "information theory"])
        #expect(
            DocumentedExamples.words("unitool --portal demo news --format csv > news.csv") == [
                "unitool", "--portal", "demo", "news", "--format", "csv",
            ])
        #expect(DocumentedExamples.words("unitool --portal demo grades | head") == nil)
    }
}
