import Foundation

/// An event a channel did not take, kept in the history and sent again on the next runs of the
/// same watch: a command that failed once (a notification daemon not up yet, a mail queue
/// full) must not cost the user the event.
public struct PendingDelivery: Sendable, Equatable, Codable {
    /// The channel's ``WatchChannel/identity``: the same channel on a later run.
    public var channel: String
    public var event: WatchEvent
    /// How many runs have tried it so far.
    public var attempts: Int

    public init(channel: String, event: WatchEvent, attempts: Int) {
        self.channel = channel
        self.event = event
        self.attempts = attempts
    }
}

/// One run's deliveries: the events kept from earlier runs first, then the new ones, each to
/// every channel. What failed is kept for the next run, until ``maximumAttempts`` runs have
/// tried it; then it is given up and reported, never dropped without a word.
public struct WatchDelivery: Sendable {
    /// Runs that try one event on one channel before it is given up.
    public static let maximumAttempts = 10
    /// Events kept per watch at most: a channel that never works must not grow the history
    /// without end. The oldest go first, reported.
    public static let maximumPending = 200

    public struct Failure: Sendable {
        public var channel: String
        public var event: WatchEvent
        public var error: UniToolError
        /// The runs that have tried it, this one included.
        public var attempts: Int
    }

    /// What happened, for the run's summary line and its exit code.
    public struct Report: Sendable {
        /// Deliveries that went through, per channel name, in the order the channels were given.
        public var delivered: [(channel: String, count: Int)] = []
        /// Every delivery that failed in this run, kept or given up.
        public var failures: [Failure] = []
        /// What is kept for the next run.
        public var pending: [PendingDelivery] = []
        /// What this run gave up (tried ``maximumAttempts`` times, or beyond ``maximumPending``).
        public var givenUp: [PendingDelivery] = []
        /// Events kept from earlier runs that went through now.
        public var redelivered = 0

        public init() {}
    }

    public let channels: [any WatchChannel]

    public init(channels: [any WatchChannel]) { self.channels = channels }

    /// Delivers `pending` (from earlier runs) and then `events` to the channels. A pending event
    /// whose channel is not given this time is kept as it is, untried.
    public func deliver(_ events: [WatchEvent], pending: [PendingDelivery]) async -> Report {
        var report = Report()
        var counts: [String: Int] = [:]
        func attempt(_ event: WatchEvent, on channel: any WatchChannel, attemptsBefore: Int) async {
            do {
                try await channel.deliver(event)
                counts[channel.name, default: 0] += 1
                if attemptsBefore > 0 { report.redelivered += 1 }
            } catch {
                let failure = Self.channelError(error, channel: channel)
                let attempts = attemptsBefore + 1
                report.failures.append(Failure(channel: channel.name, event: event, error: failure, attempts: attempts))
                let kept = PendingDelivery(channel: channel.identity, event: event, attempts: attempts)
                if attempts >= Self.maximumAttempts { report.givenUp.append(kept) } else { report.pending.append(kept) }
            }
        }
        for kept in pending {
            guard let channel = channels.first(where: { $0.identity == kept.channel }) else {
                report.pending.append(kept)
                continue
            }
            await attempt(kept.event, on: channel, attemptsBefore: kept.attempts)
        }
        for event in events {
            for channel in channels { await attempt(event, on: channel, attemptsBefore: 0) }
        }
        if report.pending.count > Self.maximumPending {
            report.givenUp += report.pending.prefix(report.pending.count - Self.maximumPending)
            report.pending.removeFirst(report.pending.count - Self.maximumPending)
        }
        report.delivered = channels.map(\.name).reduce(into: []) { list, name in
            if let count = counts[name], !list.contains(where: { $0.channel == name }) { list.append((name, count)) }
        }
        return report
    }

    /// ``deliver(_:pending:)`` with what the history keeps for `watch`: what failed before is
    /// tried again, and what fails now is kept in its place.
    public func deliver(_ events: [WatchEvent], watch: String, history: HistoryStore?) async throws -> Report {
        let kept = try history?.pendingDeliveries(ofWatch: watch) ?? []
        let report = await deliver(events, pending: kept)
        try history?.save(pendingDeliveries: report.pending, ofWatch: watch)
        return report
    }

    /// A channel's failure as unitool reports it: its own error where it has one (a webhook's
    /// timeout is exit 21), otherwise `channel_failed`.
    static func channelError(_ error: any Error, channel: any WatchChannel) -> UniToolError {
        if let error = error as? UniToolError { return error }
        return UniToolError(
            .channelFailed, "\(channel.name): \(error)", hint: localized("run 'unitool watch ... --test' to try the channel alone"))
    }

    /// One line for a person at a terminal: what the run found and where it went.
    /// `"loans: 3 events (2 due_soon, 1 changed); delivered to --exec"`, `"grades: nothing new"`.
    public static func summary(command: String, events: [WatchEvent], report: Report) -> String {
        guard !events.isEmpty || !report.failures.isEmpty || report.redelivered > 0 else { return localized("\(command): nothing new") }
        var kinds: [(WatchEvent.Kind, Int)] = []
        for event in events {
            if let index = kinds.firstIndex(where: { $0.0 == event.kind }) { kinds[index].1 += 1 } else { kinds.append((event.kind, 1)) }
        }
        // The kinds are the events' own names (`due_soon`), as the JSON Lines give them.
        let counted = kinds.map { "\($0.1) \($0.0.rawValue)" }.joined(separator: ", ")
        let count = events.count
        var line =
            events.isEmpty
            ? localized("\(command): nothing new")
            : localized("\(command): \(count) event (\(counted))", plural: "\(command): \(count) events (\(counted))", count: count)
        if report.redelivered > 0 {
            let redelivered = report.redelivered
            line +=
                "; "
                + localized(
                    "\(redelivered) kept from earlier runs went through", plural: "\(redelivered) kept from earlier runs went through",
                    count: redelivered)
        }
        if !report.delivered.isEmpty {
            let channels = report.delivered.map(\.channel).joined(separator: ", ")
            line += "; " + localized("delivered to \(channels)")
        }
        let failed = Set(report.failures.map(\.channel)).sorted().joined(separator: ", ")
        if !failed.isEmpty {
            line += "; " + localized("\(failed) failed")
            if !report.pending.isEmpty {
                let pending = report.pending.count
                line +=
                    ", "
                    + localized(
                        "\(pending) kept to try again on the next run", plural: "\(pending) kept to try again on the next run",
                        count: pending)
            }
        }
        return line
    }
}
