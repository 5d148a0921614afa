import Foundation
import MatrixCLI

exit(await MatrixCommand.main(CommandLine.arguments))
