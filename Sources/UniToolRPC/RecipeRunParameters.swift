import Foundation
import UniToolKit

/// `recipes.run`'s parameters as a `RecipeRequest`: the params converted, then the one check
/// every front end runs, before any request is sent. Each mistake is -32602 and names the
/// parameter as the client wrote it (`options.trem`), in protocol words, never the command line's.
public struct RecipeRunParameters: Sendable, Equatable {
    public var request: RecipeRequest

    public var options: [String: String] { request.options }
    public var source: String? { request.source }
    public var summary: Bool { request.summary }
    public var sort: [SortKey]? { request.sort }
    public var fields: [String]? { request.fields }

    /// Checks `params` (the request's params object) against the recipe.
    public init(checking params: JSONValue?, against recipe: DataRecipe) throws {
        try self.init(Params(RPCRequest(id: nil, method: "recipes.run", params: params)), recipe: recipe)
    }

    init(_ params: Params, recipe: DataRecipe) throws {
        let options = try params.object("options") ?? []
        let shape = params.members.filter { ["source", "summary", "fields", "sort"].contains($0.key) }
        do {
            request = try RecipeRequest(
                recipe: recipe, options: options.map { ($0.key, $0.value.argument) }, shape: shape.map { ($0.key, $0.value.argument) },
                naming: .rpc)
        } catch {
            throw RPCError.invalidParams(error.message)
        }
    }
}

extension JSONValue {
    /// The value as the request model takes it.
    public var argument: ArgumentValue {
        switch self {
        case .string(let text): return .string(text)
        case .bool(let flag): return .bool(flag)
        case .number(let number): return number.rounded() == number && abs(number) < 1e15 ? .integer(Int(number)) : .number(number)
        case .numberLiteral(let text): return Int(text).map(ArgumentValue.integer) ?? .number(Double(text) ?? .nan)
        case .array(let items): return .array(items.map(\.argument))
        case .null: return .null
        case .object: return .object
        }
    }

    /// A schema as JSON-RPC writes it.
    public init(_ schema: SchemaJSON) {
        switch schema {
        case .string(let text): self = .string(text)
        case .integer(let number): self = .number(Double(number))
        case .bool(let flag): self = .bool(flag)
        case .array(let items): self = .array(items.map(JSONValue.init))
        case .object(let members): self = .object(members.map { ($0.0, JSONValue($0.1)) })
        }
    }
}
