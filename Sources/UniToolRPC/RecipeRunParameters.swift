import Foundation
import UniToolKit

/// `recipes.run`'s parameters, checked against the recipe before any request is sent.
///
/// The command line checks the same things later, in its own words ("'grades' has no option
/// --trem", "see 'unitool grades --help'", exit code 64), which mean nothing to a front end. Here
/// every mistake is -32602 and names the parameter as the client wrote it (`options.trem`).
public struct RecipeRunParameters: Sendable, Equatable {
    /// Option values by name, each a string as the recipe's options are text.
    public var options: [String: String]
    public var source: String?
    public var summary: Bool
    /// `sort: ["due", "-title"]`; nil keeps the recipe's own order.
    public var sort: [SortKey]?
    /// The fields to keep, in this order; nil for all.
    public var fields: [String]?

    /// The parameters `recipes.run` takes, besides `progressToken`.
    public static let names = ["portal", "user", "recipe", "options", "source", "summary", "fields", "sort", "offline"]

    /// Checks `params` (the request's params object) against the recipe.
    public init(checking params: JSONValue?, against recipe: DataRecipe) throws {
        try self.init(Params(RPCRequest(id: nil, method: "recipes.run", params: params)), recipe: recipe)
    }

    init(_ params: Params, recipe: DataRecipe) throws {
        options = try Self.options(params.object("options") ?? [], recipe: recipe)
        source = try params.string("source")
        if let source, recipe.source(named: source) == nil {
            let names = recipe.sources.compactMap(\.name)
            throw RPCError.invalidParams(
                "'source' \"\(source)\" is not a source of '\(recipe.command)'"
                    + (names.isEmpty ? "; it has only one" : " (its sources: \(names.joined(separator: ", ")))"))
        }
        summary = try params.bool("summary") ?? false
        let columns: [String]
        if summary {
            guard let totals = recipe.totals else {
                throw RPCError.invalidParams("'\(recipe.command)' has no totals, so 'summary' does not apply")
            }
            columns = totals.groupBy + totals.fields.map(\.name)
        } else {
            columns = recipe.columns
        }
        sort = try params.stringList("sort").map { $0.flatMap(SortKey.parse) }
        for key in sort ?? [] where !columns.contains(key.field) {
            throw RPCError.invalidParams(
                "'sort' names '\(key.field)', which \(summary ? "the summary of " : "")'\(recipe.command)' does not have (fields: \(columns.joined(separator: ", ")))"
            )
        }
        fields = try params.stringList("fields")
        for name in fields ?? [] where !name.isEmpty && !columns.contains(name) {
            throw RPCError.invalidParams(
                "'fields' names '\(name)', which \(summary ? "the summary of " : "")'\(recipe.command)' does not have (fields: \(columns.joined(separator: ", ")))"
            )
        }
    }

    /// Each option must be one the recipe declares, given as a string, and one of its allowed
    /// values when it has a list of them (a filter's value one its filter reads); an option
    /// without a default must be given.
    static func options(_ members: [(key: String, value: JSONValue)], recipe: DataRecipe) throws -> [String: String] {
        var values: [String: String] = [:]
        for member in members {
            guard let option = recipe.options.first(where: { $0.name == member.key }) else {
                let known = recipe.options.map(\.name)
                throw RPCError.invalidParams(
                    "'options.\(member.key)' is not an option of '\(recipe.command)'"
                        + (known.isEmpty ? "; it takes none" : " (its options: \(known.joined(separator: ", ")))"))
            }
            if member.value == .null { continue }
            guard case .string(let value) = member.value else {
                throw RPCError.invalidParams("'options.\(member.key)' must be a string, not \(member.value.typeName)")
            }
            if !option.allowedValues.isEmpty, !option.allowedValues.contains(value), option.resolve[value] == nil {
                throw RPCError.invalidParams(
                    "'options.\(member.key)' must be one of: \((option.allowedValues + option.resolve.keys.sorted()).joined(separator: ", "))"
                )
            }
            if option.filter != nil {
                // A filter's value is checked (a date, a weekday, a number of days within range)
                // by the one parser every front end uses, before anything is asked of the portal.
                do {
                    _ = try RecordFilter(option: option, value: value)
                } catch let error as UniToolError {
                    throw RPCError.invalidParams("'options.\(member.key)': \(error.message)" + (error.hint.map { "; \($0)" } ?? ""))
                }
            }
            values[member.key] = value
        }
        for option in recipe.options where option.filter == nil && option.defaultValue == nil && values[option.name] == nil {
            throw RPCError.invalidParams("'options.\(option.name)' is required by '\(recipe.command)'")
        }
        return values
    }
}
