// The careful store served over the driver protocol, so that every command-line feature (compare, shards,
// resume, score) runs against it:
//
//   swift build --product careful-store-driver
//   matrix run matrices/release.json --env exec --driver .build/debug/careful-store-driver
import AppHarness
import Foundation
import StoreAppsHarness

exit(await AppHarness.serveDriver { CarefulStoreApp() })
