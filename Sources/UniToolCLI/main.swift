import Foundation
import UniToolHost
import UniToolKit

// unitool's entry point. Everything happens in `Dispatcher`; see docs/ARCHITECTURE.md.
ProcessHardening.apply()
// The person's language, before any text is made: help texts are rendered as the commands are parsed.
Translation.setProcessDefault(.forProcessEnvironment())
let code = await Dispatcher(arguments: GlobalOptions.joiningDashedValues(Array(CommandLine.arguments.dropFirst()))).run()
exit(code)
