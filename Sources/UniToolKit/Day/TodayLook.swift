/// Whether a `today` is a person looking, and so moves "since you last looked".
///
/// The mark belongs to the person: a status-bar script that runs `today --refresh --json` every
/// minute must not use up what is new before the person sees it (issue 50). So only the screen
/// for people, printed to a terminal, marks by itself; JSON, CSV, pipes and files never do. An
/// explicit `--mark-seen` marks from anywhere (`unitool today | less`), and `--no-mark-seen`
/// peeks at a terminal without marking. The decision is made here, once, from plain inputs.
public struct TodayLook: Equatable, Sendable {
    /// Why the mark moves or stays, for `-v` and the tests.
    public enum Reason: String, Equatable, Sendable {
        /// `--mark-seen`.
        case asked
        /// `--no-mark-seen`.
        case declined
        /// The screen for people on a terminal.
        case personAtTerminal
        /// Standard output is a pipe or a file: a script, or a person who can say `--mark-seen`.
        case notTerminal
        /// JSON, JSON Lines or CSV: output for programs, even on a terminal.
        case formatForPrograms
    }

    public let marksSeen: Bool
    public let reason: Reason

    /// One line for `-v`: whether the mark moves, and why.
    public var explanation: String {
        let why: String
        switch reason {
        case .asked: why = "--mark-seen"
        case .declined: why = "--no-mark-seen"
        case .personAtTerminal: why = "the screen on a terminal"
        case .notTerminal: why = "standard output is not a terminal; --mark-seen moves it"
        case .formatForPrograms: why = "output for programs; --mark-seen moves it"
        }
        return "'since you last looked' \(marksSeen ? "moves to now" : "stays where it was") (\(why))"
    }

    /// - Parameters:
    ///   - markSeen: `--mark-seen` (true), `--no-mark-seen` (false), or neither (nil).
    ///   - standardOutputIsTerminal: whether standard output is a terminal.
    ///   - format: the output format asked for (`--json`, `--format`); `.table` is the screen.
    public init(markSeen: Bool?, standardOutputIsTerminal: Bool, format: OutputFormat) {
        if let markSeen {
            (marksSeen, reason) = (markSeen, markSeen ? .asked : .declined)
        } else if format != .table {
            (marksSeen, reason) = (false, .formatForPrograms)
        } else if !standardOutputIsTerminal {
            (marksSeen, reason) = (false, .notTerminal)
        } else {
            (marksSeen, reason) = (true, .personAtTerminal)
        }
    }
}
