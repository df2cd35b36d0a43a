import Foundation

// unitool's entry point. Everything happens in `Dispatcher`; see docs/ARCHITECTURE.md.
ProcessHardening.apply()
let code = await Dispatcher(arguments: Array(CommandLine.arguments.dropFirst())).run()
exit(code)
