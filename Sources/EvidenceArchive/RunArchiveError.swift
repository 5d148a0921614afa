/// A run could not be packed into, or unpacked from, an archive.
///
/// `message` says what went wrong and what to do next; `code` lets callers pick the exit status.
public struct RunArchiveError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which step failed. Extensible: new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name, e.g. `outputExists`.
        public let name: String

        /// No `tar` executable on `PATH`.
        public static let tarUnavailable = Code(name: "tarUnavailable")
        /// `tar` ran and failed.
        public static let tarFailed = Code(name: "tarFailed")
        /// The output file exists and overwriting was not asked for.
        public static let outputExists = Code(name: "outputExists")
        /// A file could not be written (the output, or a temporary file).
        public static let cannotWrite = Code(name: "cannotWrite")
        /// The run directory holds something other than regular files and directories.
        public static let unsupportedFile = Code(name: "unsupportedFile")
        /// The file is not a `matrix archive` (not a gzip tar, or no readable `archive.json`).
        public static let notAnArchive = Code(name: "notAnArchive")
        /// An archive entry would land outside the directory it is unpacked into, or is a link, a device or
        /// anything else a run archive never holds.
        public static let unsafeEntry = Code(name: "unsafeEntry")
        /// The archive would expand past its ``ArchiveLimits``, or took too long to unpack.
        public static let limitExceeded = Code(name: "limitExceeded")
        /// Packing or unpacking stopped on a signal; nothing it wrote is left.
        public static let interrupted = Code(name: "interrupted")
        /// No `gzip` executable on `PATH` to decompress an archive.
        public static let gzipUnavailable = Code(name: "gzipUnavailable")

        public var description: String { name }
    }

    /// Which step failed.
    public var code: Code
    /// The file or directory concerned.
    public var path: String
    /// What went wrong and what to do next.
    public var message: String

    /// An error with its code, the path concerned, and a message that says what to do.
    public init(_ code: Code, path: String, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String { message }

    /// The work on `path` stopped on a signal.
    package static func interrupted(_ path: String) -> RunArchiveError {
        RunArchiveError(.interrupted, path: path, message: "stopped on a signal while working on \(path); nothing it wrote is left")
    }
}
