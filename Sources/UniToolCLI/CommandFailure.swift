import ArgumentParser
import UniToolHost
import UniToolKit

/// The one error path of the command line: whatever a command threw is reported once, as two
/// lines on stderr (or JSON when the output format is JSON), and becomes the exit code. A
/// `UniToolError` speaks for itself; anything else is swift-argument-parser's word on the
/// arguments, a usage error that points at the command's help.
enum CommandFailure {
    static func exitCode(
        for error: any Error, command: String, arguments: [String], parserMessage: (any Error) -> String = GlobalOptions.message(for:)
    ) -> Int32 {
        let json = Dispatcher.wantsJSON(arguments)
        switch error {
        case let exit as CommandExit:
            return exit.code
        case let error as UniToolError:
            return ErrorReporter.report(error, json: json)
        default:
            return ErrorReporter.report(
                UniToolError(.usage, parserMessage(error), hint: localized("see 'unitool \(command) --help'")), json: json)
        }
    }
}
