import Foundation

/// Where a command writes: artifacts to stdout, diagnostics, progress and summaries to stderr.
///
/// Colour only on a terminal and never when `NO_COLOR` is set; `--quiet` keeps only errors and the summary.
public final class Console: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is guarded by `lock`; the file handles are thread-safe.
    private let lock = NSLock()
    private let out: FileHandle
    private let err: FileHandle
    public let colour: Bool
    public let errIsTerminal: Bool
    public var quiet = false
    public var verbose = false
    private var captured: [String]?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                out: FileHandle = .standardOutput, err: FileHandle = .standardError) {
        self.out = out
        self.err = err
        errIsTerminal = isatty(err.fileDescriptor) == 1
        colour = errIsTerminal && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
    }

    /// Writes an artifact (JSON, Markdown, a root certificate) to stdout.
    public func output(_ text: String) {
        write(text, to: out)
    }

    public func outputData(_ data: Data) {
        lock.withLock { out.write(data) }
    }

    /// A progress or summary line on stderr (suppressed by `--quiet` unless `always`).
    /// `text` is only built when the line is shown.
    public func info(_ text: @autoclosure () -> String, always: Bool = false) {
        guard !quiet || always else { return }
        write(text() + "\n", to: err)
    }

    /// Text for a person at the terminal (a guided run's instructions and questions), never suppressed.
    public func prompt(_ text: String) {
        write(text, to: err)
    }

    /// A line shown only with `--verbose`; `text` is only built then.
    public func detail(_ text: @autoclosure () -> String) {
        guard verbose else { return }
        write(text() + "\n", to: err)
    }

    /// `error: message` on stderr.
    public func error(_ text: String) {
        write(paint("error:", .red) + " " + text + "\n", to: err)
    }

    /// `warning: message` on stderr.
    public func warning(_ text: String) {
        guard !quiet else { return }
        write(paint("warning:", .yellow) + " " + text + "\n", to: err)
    }

    public enum Colour: String {
        case red = "31"
        case green = "32"
        case yellow = "33"
        case grey = "90"
        case bold = "1"
    }

    public func paint(_ text: String, _ colour: Colour) -> String {
        self.colour ? "\u{1B}[\(colour.rawValue)m\(text)\u{1B}[0m" : text
    }

    private func write(_ text: String, to handle: FileHandle) {
        lock.withLock { handle.write(Data(text.utf8)) }
    }

    /// `text` with control characters (C0, DEL, C1) written as `\u{1B}`: text from matrices and drivers
    /// reaches a terminal only as text, never as escape sequences.
    static func visible(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var out = ""
        for scalar in text.unicodeScalars {
            if isControl(scalar) {
                out += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }
}
