/// What the service is doing right now, for whoever asked: the CLI's status line on a terminal,
/// JSON-RPC's `$/progress` notifications.
///
/// A task-local rather than a property of the connection, because the JSON-RPC server shares one
/// connection between concurrent requests and each request wants its own progress. Child tasks
/// (the terms of a `--term all` run) inherit it.
public enum ServiceProgress {
    public typealias Reporter = @Sendable (String) -> Void

    @TaskLocal static var reporter: Reporter?

    /// Runs `body` with `reporter` told what the service does meanwhile. Front ends call this
    /// rather than the task-local itself: `TaskLocal.withValue` specialized into another module
    /// crashed the release build (SIGSEGV in `swift_task_localValuePush`, Swift 6.3 on Linux).
    public static func reporting<T: Sendable>(to reporter: Reporter?, _ body: () async throws -> T) async throws -> T {
        try await $reporter.withValue(reporter, operation: body)
    }

    /// Tells the current caller, if it listens. Messages are plain sentences without a final
    /// full stop ("signing in to Demo University: page 3 of the login").
    static func report(_ message: @autoclosure () -> String) {
        reporter?(message())
    }
}

/// "1 record", "2 records": a count with its noun, in the plural where English wants one.
public enum Plural {
    public static func count(_ number: Int, _ noun: String, plural: String? = nil) -> String {
        "\(number) \(number == 1 ? noun : plural ?? Self.plural(of: noun))"
    }

    static func plural(of noun: String) -> String {
        if noun.hasSuffix("s") || noun.hasSuffix("x") || noun.hasSuffix("ch") || noun.hasSuffix("sh") { return noun + "es" }
        if noun.hasSuffix("y"), let before = noun.dropLast().last, !"aeiou".contains(before) { return noun.dropLast() + "ies" }
        return noun + "s"
    }
}
