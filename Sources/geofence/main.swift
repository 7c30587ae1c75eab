import Foundation
import Geofence

let status = CommandLine.run(Array(CommandLine.arguments.dropFirst()))
exit(status)
