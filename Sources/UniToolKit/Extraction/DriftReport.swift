import Foundation
import LibXML
import Logging

/// Keeps the page a recipe no longer matched, so that its author can see what changed.
///
/// The page is saved under `$XDG_CACHE_HOME/unitool/drift/` with every form value emptied
/// (tokens, SAML messages, anything typed) and every secret of the session scrubbed (a `type: url`
/// address's token in its path, which `redactedForLog` keeps), and the error gains a line that
/// says where it is.
public enum DriftReport {
    /// Saves the page and returns the error with the file's path added. If the page cannot be
    /// saved, the original error is returned unchanged: the drift is the news, not the cache.
    public static func save(
        _ original: UniToolError, document: Document, recipe: DataRecipe, in directory: URL,
        scrubber: TraceScrubber = TraceScrubber(), logger: Logger
    ) -> UniToolError {
        let error = original
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        // The process id and a random part keep two reports of the same second apart (two
        // pages of one run, or two runs at once): neither may overwrite the other.
        let unique = "\(getpid())-\(String(UInt32.random(in: 0...UInt32.max), radix: 16))"
        let name = "\(recipe.portal)-\(recipe.command)-\(formatter.string(from: Date()))-\(unique).\(document.isXML ? "xml" : "html")"
        let file = directory.appendingPathComponent(name)
        do {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let source =
                document.url.map { "<!-- unitool drift report: \(recipe.file), page \(URL(string: $0)?.redactedForLog ?? "?") -->\n" } ?? ""
            let text = scrubber.scrubMessage(source) + scrubber.scrubPage(document.markupWithoutFormValues())
            try AtomicFile.write(Data(text.utf8), to: file, mode: 0o600)
        } catch {
            logger.warning("could not save the page for the drift report: \(error)")
            return original
        }
        return UniToolError(
            error.kind, error.message + "; " + localized("the page is saved at \(file.path)"),
            hint: (error.hint.map { $0 + "; " } ?? "") + localized("open the saved page to see what changed (form values are removed)"))
    }
}
