#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Evidence or a report could not be written. The command line maps every such error to exit code 74.
///
/// `message` says what went wrong and what to do next; `code` lets callers tell the cases apart.
public struct EvidenceWriteError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which write failed. Extensible: new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name, e.g. `runDirectoryExists`.
        public let name: String

        /// The run directory already exists; evidence is never overwritten.
        public static let runDirectoryExists = Code(name: "runDirectoryExists")
        /// An environment or run id cannot be used as a directory name.
        public static let invalidPathComponent = Code(name: "invalidPathComponent")
        /// A directory could not be created.
        public static let cannotCreateDirectory = Code(name: "cannotCreateDirectory")
        /// A file could not be opened, written or renamed.
        public static let cannotWrite = Code(name: "cannotWrite")
        /// Written bytes could not be flushed to disk (`fsync`).
        public static let cannotSync = Code(name: "cannotSync")
        /// The writer was closed, or stopped after an earlier failure.
        public static let writerClosed = Code(name: "writerClosed")
        /// A file could not be read to compute its SHA-256.
        public static let cannotHash = Code(name: "cannotHash")
        /// A record could not be encoded as JSON.
        public static let cannotEncode = Code(name: "cannotEncode")

        public var description: String { name }
    }

    /// Which write failed.
    public var code: Code
    /// The file or directory concerned.
    public var path: String
    /// What went wrong and what to do next, in one or two sentences.
    public var message: String
    /// The `errno` of the failed system call, when there was one.
    public var systemError: Int32?

    /// An error with its code, the path concerned, a message saying what to do, and the `errno` if any.
    public init(_ code: Code, path: String, message: String, systemError: Int32? = nil) {
        self.code = code
        self.path = path
        self.message = message
        self.systemError = systemError
    }

    public var description: String { message }

    /// An error for a failed system call: the call's purpose, the system's words for `errno`, and advice.
    package static func system(_ code: Code, path: String, doing what: String, errno number: Int32) -> EvidenceWriteError {
        let reason = String(cString: strerror(number))
        let advice: String
        switch number {
        case ENOSPC, EDQUOT: advice = "free some disk space, then try again"
        case EACCES, EPERM, EROFS: advice = "make the reports directory writable or choose another one"
        case ENOENT, ENOTDIR: advice = "check that the reports directory exists and is a directory"
        default: advice = "check the reports directory and the disk"
        }
        return EvidenceWriteError(code, path: path, message: "cannot \(what) \(path): \(reason); \(advice)",
                                  systemError: number)
    }
}

/// Evidence could not be read back.
///
/// A file that cannot be opened or read has code `unreadable` (the command line's exit 66 when the user named
/// it); evidence with a damaged line before the last has code `corrupt`, a file that is not a regular file
/// `notRegularFile`, a line over the cap `lineTooLong` (exit 65).
public struct EvidenceReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which read failed. Extensible: new codes may be added.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        /// The code's stable name, e.g. `corrupt`.
        public let name: String

        /// The file cannot be opened or read.
        public static let unreadable = Code(name: "unreadable")
        /// A line other than the last is not a valid evidence record.
        public static let corrupt = Code(name: "corrupt")
        /// `run.json` is not a manifest this version can read.
        public static let unsupportedManifest = Code(name: "unsupportedManifest")
        /// A file of the run is a symbolic link, a FIFO, a device or a directory: `matrix` writes only regular
        /// files, and reading one of the others could hang, never end, or read outside the run directory.
        public static let notRegularFile = Code(name: "notRegularFile")
        /// A line of `evidence.jsonl` is longer than any record `matrix` writes.
        public static let lineTooLong = Code(name: "lineTooLong")

        public var description: String { name }
    }

    /// Which read failed.
    public var code: Code
    /// The file concerned.
    public var path: String
    /// 1-based line of the damaged record, for `corrupt`.
    public var line: Int?
    /// What went wrong and what to do next.
    public var message: String

    /// An error with its code, the file, the 1-based line for `corrupt`, and a message saying what to do.
    public init(_ code: Code, path: String, line: Int? = nil, message: String) {
        self.code = code
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String { message }

    /// The error for a file of a run that cannot be opened: `notRegularFile` or `unreadable`, in a message
    /// naming the file and saying what to do.
    package static func opening(_ path: String, _ problem: InputFile.Unreadable) -> EvidenceReadError {
        problem.isNotRegularFile
            ? EvidenceReadError(.notRegularFile, path: path,
                                message: "\(problem.about(path)); matrix writes only regular files in a run directory, so it was not written by matrix")
            : EvidenceReadError(.unreadable, path: path, message: "cannot read \(problem.about(path)); check the path and its permissions")
    }
}
