// The careful store served over the driver protocol, so that every command-line feature (compare, shards,
// resume, score) runs against it:
//
//   swift build --product careful-store-driver
//   matrix run matrices/release.json --env exec --driver .build/debug/careful-store-driver
import AppHarness
import AppHarnessDriver
import Foundation
import StoreAppsHarness

// Store code may print as it likes: serveDriver keeps stdout for the protocol and sends what is printed to stderr,
// the driver's log (`matrix run --verbose` shows it).
print("careful-store-driver: serving the careful store")
exit(await AppHarness.serveDriver { CarefulStoreApp() })
