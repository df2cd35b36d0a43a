/// A call of a recipe's action (`loans renew 31000103`, `library request --title …`), checked
/// once against the recipe whatever the front end, as `RecipeRequest` is for a run: the action
/// exists, its argument is given exactly when it takes one, and its named values are strings it
/// knows, the required ones not empty. Each mistake names the parameter in the front end's words
/// (`parameters.title` over JSON-RPC, `title` for an MCP tool, `--title` on the command line).
public struct ActionRequest: Sendable {
    public let action: ActionSpec
    public let argument: String
    public let parameters: [String: String]

    /// - Parameters:
    ///   - argument: the action's one positional value (a barcode), nil when not given.
    ///   - parameters: its named values, each a string.
    public init(
        recipe: DataRecipe, action name: String, argument: ArgumentValue?, parameters: [(String, ArgumentValue)],
        naming: ArgumentNaming
    ) throws(ArgumentProblem) {
        guard let action = recipe.actions.first(where: { $0.name == name }) else {
            let known = recipe.actions.map(\.name).joined(separator: ", ")
            throw ArgumentProblem(
                path: naming.parameter("action"),
                message: known.isEmpty
                    ? localized("'\(recipe.command)' has no action '\(name)'")
                    : localized("'\(recipe.command)' has no action '\(name)' (actions: \(known))"))
        }
        self.action = action
        let words = "'\(recipe.command) \(action.name)'"
        let argumentPath = naming.parameter(naming == .commandLine ? action.argument : "argument")
        switch argument {
        case nil, .null?:
            guard !action.takesArgument else {
                throw ArgumentProblem(path: argumentPath, message: localized("\(words) needs its \(action.argument)"))
            }
            self.argument = ""
        case .string(let text)?:
            guard action.takesArgument else {
                throw ArgumentProblem(path: argumentPath, message: localized("\(words) takes no argument"))
            }
            guard !text.isEmpty else {
                throw ArgumentProblem(path: argumentPath, message: localized("\(words) needs its \(action.argument)"))
            }
            self.argument = text
        case let other?:
            throw ArgumentProblem(path: argumentPath, message: localized("'\(argumentPath)' must be a string, not \(other.typeName)"))
        }
        var values: [String: String] = [:]
        for (parameter, value) in parameters {
            let path = naming.actionValue(parameter)
            guard action.parameters.contains(where: { $0.name == parameter }) else {
                let taken = action.parameters.map { naming.actionValue($0.name) }.joined(separator: ", ")
                throw ArgumentProblem(
                    path: path,
                    message: action.parameters.isEmpty
                        ? localized("'\(path)' is not a value \(words) takes; it takes none")
                        : localized("'\(path)' is not a value \(words) takes (it takes: \(taken))"))
            }
            switch value {
            case .null: continue
            case .string(let text): values[parameter] = text
            default: throw ArgumentProblem(path: path, message: localized("'\(path)' must be a string, not \(value.typeName)"))
            }
        }
        if let missing = action.missingParameters(values).first {
            let path = naming.actionValue(missing)
            throw ArgumentProblem(path: path, message: localized("'\(path)' is required by \(words)"))
        }
        self.parameters = values
    }
}

extension ArgumentNaming {
    /// An action's named value: `parameters.title` in JSON-RPC, `title` for an MCP tool, `--title`.
    public func actionValue(_ name: String) -> String {
        switch self {
        case .rpc: return "parameters.\(name)"
        case .mcp: return name
        case .commandLine: return "--\(name)"
        }
    }
}
