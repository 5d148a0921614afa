// The StoreKit 2 look-alike under StoreKit's own module name, so that a team's Store files keep `import StoreKit`
// and `StoreKit.`-qualified names (`StoreKit.Transaction`) when their tests build them against the embedded App
// Store. Like Apple's module, it brings Foundation with it (`Date`, `UUID`, `URL`).
//
// Depend on it (the `StoreKitLookAlike` product) only from a package that never builds your app: a module named
// StoreKit in a build shadows Apple's for every target of that build (docs/app-harness.md, "Where the look-alike
// may go").
@_exported import Foundation
@_exported import SimulatedStoreKit
