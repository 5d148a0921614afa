// libFuzzer harness: a matrix file through MatrixLoader.load, compiled into one module with Sources/MatrixModel
// by fuzz/run.sh. Any input must give a matrix or diagnostics: never a crash, a hang or unbounded memory.
import Foundation

/// The catalog a matrix that names a file gets: the file at $FUZZ_CATALOG (fuzz/run.sh passes
/// matrices/Products.storekit), so that matrices are checked against real products; a matrix whose catalog is
/// inline does not use it.
let catalogBytes: [UInt8]? = ProcessInfo.processInfo.environment["FUZZ_CATALOG"].flatMap { FileManager.default.contents(atPath: $0) }.map { [UInt8]($0) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzMatrix(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let result = MatrixLoader.load(bytes, file: "fuzz.json") { path in
        guard let catalogBytes else { return .unreadable(reason: "\(path): no such file") }
        return .contents(catalogBytes, displayPath: path)
    } checkClock: { text in
        text.hasPrefix("sandbox:") || text == "real" || text == "testflight" || text.hasPrefix("xcode") ? nil : "unknown clock \(text)"
    }
    // Every diagnostic renders, and a loaded matrix has no error.
    for diagnostic in result.diagnostics { _ = diagnostic.rendered }
    if result.matrix != nil, result.diagnostics.contains(where: { $0.severity == .error }) {
        violation("a matrix was loaded despite an error")
    }
    return 0
}

/// Reports a broken property to libFuzzer, which saves the input: a message, then an abort.
func violation(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("fuzz: " + message + "\n").utf8))
    abort()
}
