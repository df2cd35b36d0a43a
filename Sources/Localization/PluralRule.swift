/// A catalog's plural rule: which of its forms a count takes, from the `Plural-Forms` header
/// (`nplurals=2; plural=(n != 1);`), the C expression gettext defines.
///
/// Parsed once into a tree and evaluated per count. Only what gettext's grammar allows is read:
/// `n`, unsigned numbers, `! * / % + - < > <= >= == != && || ?:` and parentheses. An expression
/// that does not parse, or a form number out of range, means the English rule.
public struct PluralRule: Sendable, Equatable {
    public let formCount: Int
    let expression: Expression

    /// English's rule: one, and every other count.
    public static let english = PluralRule(formCount: 2, expression: .binary("!=", .count, .number(1)))

    init(formCount: Int, expression: Expression) {
        self.formCount = formCount
        self.expression = expression
    }

    /// The rule of a `Plural-Forms` value, or nil when it is not one.
    public init?(header: String) {
        var formCount: Int?
        var source: String?
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingSpaces }
            guard pair.count == 2 else { continue }
            if pair[0] == "nplurals" { formCount = Int(pair[1]) }
            if pair[0] == "plural" { source = pair[1] }
        }
        guard let formCount, formCount >= 1, let source else { return nil }
        var parser = Parser(source)
        guard let expression = parser.parse() else { return nil }
        self.init(formCount: formCount, expression: expression)
    }

    /// The form for `count`: 0 for the first (`msgstr[0]`).
    public func form(for count: Int) -> Int {
        let value = expression.evaluate(UInt64(clamping: max(count, 0)))
        return value < UInt64(formCount) ? Int(value) : 0
    }

    indirect enum Expression: Sendable, Equatable {
        case count
        case number(UInt64)
        case not(Expression)
        case binary(String, Expression, Expression)
        case conditional(Expression, Expression, Expression)

        func evaluate(_ n: UInt64) -> UInt64 {
            switch self {
            case .count: return n
            case .number(let value): return value
            case .not(let operand): return operand.evaluate(n) == 0 ? 1 : 0
            case .conditional(let test, let then, let otherwise):
                return test.evaluate(n) != 0 ? then.evaluate(n) : otherwise.evaluate(n)
            case .binary(let operation, let left, let right):
                let a = left.evaluate(n)
                if operation == "&&" { return a != 0 && right.evaluate(n) != 0 ? 1 : 0 }
                if operation == "||" { return a != 0 || right.evaluate(n) != 0 ? 1 : 0 }
                let b = right.evaluate(n)
                switch operation {
                case "*": return a &* b
                case "/": return b == 0 ? 0 : a / b
                case "%": return b == 0 ? 0 : a % b
                case "+": return a &+ b
                case "-": return a &- b
                case "<": return a < b ? 1 : 0
                case ">": return a > b ? 1 : 0
                case "<=": return a <= b ? 1 : 0
                case ">=": return a >= b ? 1 : 0
                case "==": return a == b ? 1 : 0
                default: return a != b ? 1 : 0
                }
            }
        }
    }

    /// Recursive descent over C's precedence: `?:`, `||`, `&&`, equality, relation, additive,
    /// multiplicative, unary `!`, primary.
    struct Parser {
        private let characters: [Character]
        private var position = 0

        init(_ source: String) { characters = Array(source) }

        mutating func parse() -> Expression? {
            guard let expression = conditional() else { return nil }
            skipSpaces()
            return position == characters.count ? expression : nil
        }

        private mutating func conditional() -> Expression? {
            guard let test = binary(level: 0) else { return nil }
            guard take("?") else { return test }
            guard let then = conditional(), take(":"), let otherwise = conditional() else { return nil }
            return .conditional(test, then, otherwise)
        }

        private static let levels: [[String]] = [["||"], ["&&"], ["==", "!="], ["<=", ">=", "<", ">"], ["+", "-"], ["*", "/", "%"]]

        private mutating func binary(level: Int) -> Expression? {
            guard level < Self.levels.count else { return unary() }
            guard var left = binary(level: level + 1) else { return nil }
            while let operation = Self.levels[level].first(where: { peek($0) }) {
                _ = take(operation)
                guard let right = binary(level: level + 1) else { return nil }
                left = .binary(operation, left, right)
            }
            return left
        }

        private mutating func unary() -> Expression? {
            if peek("!"), !peek("!=") {
                _ = take("!")
                return unary().map(Expression.not)
            }
            skipSpaces()
            if take("(") {
                guard let inner = conditional(), take(")") else { return nil }
                return inner
            }
            if take("n") { return .count }
            var digits = ""
            while position < characters.count, let digit = characters[position].wholeNumberValue, characters[position].isASCII {
                digits.append(String(digit))
                position += 1
            }
            return UInt64(digits).map(Expression.number)
        }

        private mutating func skipSpaces() {
            while position < characters.count, characters[position].isWhitespace { position += 1 }
        }

        private mutating func peek(_ token: String) -> Bool {
            skipSpaces()
            let end = position + token.count
            return end <= characters.count && String(characters[position..<end]) == token
        }

        private mutating func take(_ token: String) -> Bool {
            guard peek(token) else { return false }
            position += token.count
            return true
        }
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop(while: { $0.isWhitespace }).reversed().drop(while: { $0.isWhitespace }).reversed())
    }
}
