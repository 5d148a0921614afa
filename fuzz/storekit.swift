// libFuzzer harness: a `.storekit` file through StoreKitConfigurationReader.read, compiled into one module with
// Sources/MatrixModel by fuzz/run.sh. Any input must give a configuration or diagnostics, never a crash or a hang.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStoreKit(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let (configuration, diagnostics) = StoreKitConfigurationReader.read(bytes, file: "fuzz.storekit")
    for diagnostic in diagnostics { _ = diagnostic.rendered }
    if let configuration {
        for product in configuration.products { _ = configuration.product(product.productID) }
    }
    return 0
}
