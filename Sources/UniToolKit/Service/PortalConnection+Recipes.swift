import Foundation
import LibXML
import Logging
import Synchronization

/// The recipe runner of a connection: options resolved, pages followed, records extracted and
/// filtered; actions filled and submitted. Every call passes the terms gate: a data run while its
/// first page is fetched (`whileCheckingTerms`), an action before anything is sent.
extension PortalConnection {
    /// Runs a data recipe: resolves its options, fetches its pages, extracts typed records and
    /// keeps those its filter options allow.
    ///
    /// An option resolved to several values (`--term all`) runs the recipe once per value, at the
    /// same time (within the session's per-host cap), and joins the records in the portal's order.
    ///
    /// The options are checked first, as every front end's request is (`RecipeRequest`), and
    /// named in the command line's words: for a caller with options of its own (a watch, a test).
    public func run(
        _ recipe: DataRecipe, options given: [String: String], source sourceName: String? = nil,
        today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        try await run(recipe, try RecipeRequest.commandLine(recipe, options: given, source: sourceName), today: today)
    }

    /// Runs a request a front end has checked already (`PortalService.execute`): nothing is
    /// checked twice. Its shape (fields, sort, summary) is the caller's to apply, and so is its
    /// record in the history (`RunHistory`, a step after the run): the connection never writes it.
    public func run(_ recipe: DataRecipe, _ request: RecipeRequest, today: String = RecordExtractor.localToday()) async throws
        -> RecordSet
    {
        let given = request.options
        let sourceName = request.source
        guard let source = recipe.source(named: sourceName) else {
            let named = sourceName ?? ""
            let names = recipe.sources.compactMap(\.name).joined(separator: ", ")
            throw UniToolError(
                .usage, localized("'\(named)' is not a source of '\(recipe.command)'"),
                hint: localized("use one of: \(names)"))
        }
        do {
            return try await whileCheckingTerms {
                try await HTTPSession.$commandHeaders.withValue(recipe.headers) {
                    try await RecipeRunner(connection: self).run(recipe, options: given, source: source, today: today)
                }
            }
        } catch let error as UniToolError where error.kind == .portalUnreachable || error.kind == .portalTimeout {
            // Offline, the values the portal listed last time still tell a typo from an outage.
            if let unknown = RecipeRunner(connection: self).unknownValueAsLastSeen(of: recipe, given: given) { throw unknown }
            throw error
        }
    }

    /// A recipe's path as an address on its service (`service: lms`), or on the portal.
    func address(_ path: String, of recipe: DataRecipe) throws -> String {
        guard let url = URL(string: path, relativeTo: portal.base(ofService: recipe.service))?.absoluteURL else {
            throw UniToolError(.recipeInvalid, localized("\(recipe.file): '\(path)' is not a valid path or URL"))
        }
        return url.absoluteString
    }

    /// Where a body the recipe filled in may be repeated by a 307 or 308 redirect: the portal's
    /// own origins only. The portal may send the browser elsewhere, but not with the recipe's values.
    func bodyMayGoTo(_ kind: OriginPolicy.RequestKind, recipe: String) -> @Sendable (URL) throws -> Void {
        let policy = originPolicy
        return { url in if let refusal = policy.refusal(kind, to: url, recipe: recipe) { throw refusal } }
    }

    /// The error of a page that no longer matches its recipe, with the page saved for the user
    /// to look at (`DriftReport`): the one place a drift report is written.
    func drifted(_ error: UniToolError, on document: Document, recipe: DataRecipe) -> UniToolError {
        DriftReport.save(error, document: document, recipe: recipe, in: driftReports, scrubber: session.scrubber, logger: logger)
    }

    /// Fills and submits an action's form (`ActionRunner.perform`).
    public func perform(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String] = [:],
        listed: RecordSet? = nil, today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        try await ActionRunner(connection: self).perform(
            action, of: recipe, argument: argument, parameters: parameters, listed: listed, today: today)
    }

    /// What an action would change (`ActionRunner.preview`).
    public func preview(
        _ action: ActionSpec, of recipe: DataRecipe, argument: String, parameters: [String: String] = [:],
        today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        try await ActionRunner(connection: self).preview(action, of: recipe, argument: argument, parameters: parameters, today: today)
    }
}
