import Foundation

/// Refuses private files (credentials, `.p8` keys, accounts files) that lie inside a git work tree, where a
/// `git add .` would commit them.
///
/// A file is refused when it is inside the work tree that contains the current directory, or inside any work
/// tree of its own (a directory above it holds `.git`). Paths are made absolute against the current directory
/// and symbolic links are resolved first, so `../repo/key.p8` and a link into the repository are caught too.
///
/// Apple: "don’t store keys in a code repository" —
/// https://developer.apple.com/documentation/appstoreserverapi/creating-api-keys-to-authorize-api-requests
public struct RepositoryGuard: Sendable {
    /// The directory relative paths are resolved against (the process's current directory by default).
    public let currentDirectory: String

    /// Creates a guard for `currentDirectory`.
    public init(currentDirectory: String = FileManager.default.currentDirectoryPath) {
        self.currentDirectory = currentDirectory
    }

    /// `path` made absolute against ``currentDirectory``, with `~` expanded, `.`/`..` removed and symbolic
    /// links resolved.
    public func resolve(_ path: String) -> String {
        let expanded = (path as NSString).expandingTildeInPath
        let absolute = expanded.hasPrefix("/") ? expanded : (currentDirectory as NSString).appendingPathComponent(expanded)
        return URL(fileURLWithPath: absolute).standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// The root of the git work tree that contains `directory` (the nearest ancestor, itself included, that
    /// holds a `.git` directory or file), or `nil`.
    public static func workTreeRoot(containing directory: String) -> String? {
        var candidate = URL(fileURLWithPath: directory).standardizedFileURL.path
        while true {
            if FileManager.default.fileExists(atPath: (candidate as NSString).appendingPathComponent(".git")) {
                return candidate
            }
            let parent = (candidate as NSString).deletingLastPathComponent
            if parent == candidate || parent.isEmpty { return nil }
            candidate = parent
        }
    }

    /// Checks that `path` is outside every git work tree it could be committed to.
    ///
    /// - Parameters:
    ///   - path: The file as the user gave it.
    ///   - what: What the file is, for the message ("credentials file", "private key").
    /// - Returns: The resolved absolute path.
    /// - Throws: ``CredentialsError`` (`.insideRepository`) naming the work tree and where to move the file.
    @discardableResult
    public func check(_ path: String, what: String) throws(CredentialsError) -> String {
        let resolved = resolve(path)
        let roots = [Self.workTreeRoot(containing: resolve(currentDirectory)),
                     Self.workTreeRoot(containing: (resolved as NSString).deletingLastPathComponent)]
        for case let root? in roots where Self.isInside(resolved, root) {
            throw CredentialsError(
                .insideRepository,
                "refusing to read the \(what) \(path): it is inside the git work tree \(root), where it could be committed; "
                    + "move it outside the repository (for example to ~/.config/storekit-matrix/) and pass that path"
            )
        }
        return resolved
    }

    private static func isInside(_ path: String, _ root: String) -> Bool {
        root == "/" || path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }
}
