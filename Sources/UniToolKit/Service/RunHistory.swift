import Foundation
import Logging

/// The history's step after a live run, as Scrapy's item pipelines follow its spiders: the
/// answer recorded once the run has it, and an unreachable portal's error told where the last
/// answer is. `PortalService` and `Watcher` put it around the engine's run, so the engine
/// (`PortalConnection`, `RecipeRunner`) never writes the history.
struct RunHistory: Sendable {
    let history: HistoryStore?
    let logger: Logger

    /// Runs `run` and records its answer under the question `request` asks of `recipe` on
    /// `portal` as `user` (a public command's answer is the same for everyone, and is kept
    /// without a user). A failure to record is logged: the answer stands.
    func recording(
        _ recipe: DataRecipe, _ request: RecipeRequest, portal: String, user: String, _ run: () async throws -> RecordSet
    ) async throws -> RecordSet {
        let question = HistoryStore.optionsKey(recipe.effectiveOptions(request.options), source: request.historySource)
        let owner = recipe.historyUser(user)
        let records: RecordSet
        do {
            records = try await run()
        } catch let error as UniToolError where error.kind == .portalUnreachable || error.kind == .portalTimeout {
            // The last answer is there to be had.
            if let last = try? history?.latest(portal: portal, user: owner, recipe: recipe.command, options: question) {
                throw error.adding(
                    note: localized(
                        "'--offline' answers from the history, as of \(HistoryStore.age(of: last.ranAt)) (\(HistoryStore.timestamp(last.ranAt)))"
                    )
                )
            }
            throw error
        }
        do {
            try history?.record(portal: portal, user: owner, recipe: recipe.command, options: question, records: records)
        } catch {
            logger.warning("\(localized("not recorded in the history: \(error)"))")
        }
        return records
    }

    /// The engine's run of a checked request on `connection`, its answer recorded (`recording`)
    /// in `history`: the one live run of `PortalService` and `Watcher`.
    static func run(
        _ recipe: DataRecipe, _ request: RecipeRequest, on connection: PortalConnection, history: HistoryStore?,
        today: String = RecordExtractor.localToday()
    ) async throws -> RecordSet {
        try await RunHistory(history: history, logger: connection.logger).recording(
            recipe, request, portal: connection.portal.id, user: connection.user
        ) { try await connection.run(recipe, request, today: today) }
    }
}
