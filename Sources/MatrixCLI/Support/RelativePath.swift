import Foundation

/// Paths relative to a directory, for the references a generated matrix writes.
enum RelativePath {
    /// The path of `target` as seen from `directory` (both relative to the working directory, or absolute):
    /// `from(directory: "matrices", to: "Products.storekit")` is `../Products.storekit`.
    static func from(directory: String, to target: String) -> String {
        let cwd = FileManager.default.currentDirectoryPath
        func components(_ path: String) -> [String] {
            let absolute = path.hasPrefix("/") ? path : cwd + "/" + path
            var result: [String] = []
            for part in absolute.split(separator: "/") {
                switch part {
                case ".": continue
                case "..": if !result.isEmpty { result.removeLast() }
                default: result.append(String(part))
                }
            }
            return result
        }
        let from = components(directory.isEmpty ? "." : directory)
        let to = components(target)
        var common = 0
        while common < from.count, common < to.count, from[common] == to[common] { common += 1 }
        let parts = Array(repeating: "..", count: from.count - common) + to[common...]
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }
}
