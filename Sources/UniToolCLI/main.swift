import Foundation
import UniToolHost

// unitool's entry point. Everything happens in `Dispatcher`; see docs/ARCHITECTURE.md.
ProcessHardening.apply()
let code = await Dispatcher(arguments: GlobalOptions.joiningDashedValues(Array(CommandLine.arguments.dropFirst()))).run()
exit(code)
