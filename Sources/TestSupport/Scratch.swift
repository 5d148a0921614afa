import Foundation

/// Scratch directories for tests that touch the file system.
public enum Scratch {
    /// A fresh temporary directory; remove it with `FileManager.default.removeItem(at:)`.
    public static func directory() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("reporters-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}
