import Synchronization
import UniToolKit

/// An `Interaction` that answers from a script and remembers what it was asked: the person at
/// the terminal, played by a test. `PortalService` is driven with it in process, so a test sees
/// every question the service asks, in order, without a terminal or a child process.
public final class ScriptedInteraction: Interaction {
    /// What the service asked or told, in order.
    public enum Event: Sendable, Equatable {
        case progress(String)
        case terms(version: String?)
        case password(question: String)
        case oneTimeCode(question: String)
        case wait(String)
        case confirm(action: String, argument: String)
    }

    private let acceptsTerms: Bool
    private let confirms: Bool
    private let codes: Mutex<[String]>
    private let password: String?
    private let log = Mutex<[Event]>([])
    public let termsRefusalHint: String?

    /// - Parameters:
    ///   - acceptsTerms: the answer to terms not yet accepted.
    ///   - codes: the one-time codes typed, one per question; none means nobody can type.
    ///   - confirms: the answer to an action.
    ///   - termsRefusalHint: the front end's own hint for refused terms.
    ///   - password: the password typed when the service asks for one; nil means nobody can type.
    public init(
        acceptsTerms: Bool = false, password: String? = nil, codes: [String] = [], confirms: Bool = true, termsRefusalHint: String? = nil
    ) {
        self.password = password
        self.acceptsTerms = acceptsTerms
        self.confirms = confirms
        self.codes = Mutex(codes)
        self.termsRefusalHint = termsRefusalHint
        canTypeOneTimeCode = !codes.isEmpty
    }

    public var events: [Event] { log.withLock { $0 } }

    /// The named values each confirmation was asked with (a purchase request's title and ISBN), in order.
    public var confirmedValues: [[String: String]] { shownValues.withLock { $0 } }
    private let shownValues = Mutex<[[String: String]]>([])
    /// The progress messages alone.
    public var progressMessages: [String] {
        events.compactMap {
            if case .progress(let message) = $0 { return message }
            return nil
        }
    }

    public func progress(_ message: String) { log.withLock { $0.append(.progress(message)) } }

    public func acceptTerms(_ status: TermsStatus, through connection: PortalConnection) async throws -> Bool {
        log.withLock { $0.append(.terms(version: status.current?.version)) }
        return acceptsTerms
    }

    public var canTypePassword: Bool { password != nil }

    public func typePassword(_ question: String) -> Secret? {
        log.withLock { $0.append(.password(question: question)) }
        return password.map(Secret.init)
    }

    public let canTypeOneTimeCode: Bool

    public func typeOneTimeCode(_ question: String) -> String? {
        log.withLock { $0.append(.oneTimeCode(question: question)) }
        return codes.withLock { $0.isEmpty ? nil : $0.removeFirst() }
    }

    public func explainWait(_ message: String) { log.withLock { $0.append(.wait(message)) } }

    public func confirm(_ action: ActionSpec, argument: String, parameters: [String: String], on portal: PortalRecipe) async throws
        -> Bool
    {
        log.withLock { $0.append(.confirm(action: action.name, argument: argument)) }
        shownValues.withLock { $0.append(parameters) }
        return confirms
    }
}
