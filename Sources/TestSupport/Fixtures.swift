import Foundation

/// Files the tests read, found from this source file's location rather than from bundle resources.
///
/// Fixtures live in `Tests/MatrixModelTests/Fixtures/`; real Xcode StoreKit configuration files are in its
/// `storekit/` folder under the names they have in the shared fixture set.
public enum Fixtures {
    /// The package's root directory (the one that holds `Package.swift`).
    public static let packageDirectory: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // TestSupport
        .deletingLastPathComponent()  // Sources
        .deletingLastPathComponent()

    /// `Tests/MatrixModelTests/Fixtures`.
    public static let directory: URL = packageDirectory
        .appendingPathComponent("Tests", isDirectory: true)
        .appendingPathComponent("MatrixModelTests", isDirectory: true)
        .appendingPathComponent("Fixtures", isDirectory: true)

    /// `Tests/MatrixModelTests/Fixtures/storekit`: real `.storekit` files, format versions 1.0 to 6.3.
    public static let storeKitDirectory: URL = directory.appendingPathComponent("storekit", isDirectory: true)

    /// The fixture at `relativePath` below ``directory``, e.g. `storekit/tikhop__Mercato__Mercato.storekit`.
    public static func url(_ relativePath: String) -> URL {
        directory.appendingPathComponent(relativePath)
    }

    /// The bytes of the fixture at `relativePath` below ``directory``.
    ///
    /// - Throws: the file system's error when the fixture cannot be read.
    public static func bytes(_ relativePath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: url(relativePath)))
    }

    /// The names of the `.storekit` files in ``storeKitDirectory``, sorted.
    public static func storeKitFileNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: storeKitDirectory.path)
            .filter { $0.hasSuffix(".storekit") }
            .sorted()
    }
}
