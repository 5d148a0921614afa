import Foundation
import MatrixJSON
import Threading

/// Where a command writes: artifacts to stdout, diagnostics, progress and summaries to stderr.
///
/// Colour only on a terminal and never when `NO_COLOR` is set; `--quiet` keeps only errors and the summary.
/// Every text line it writes passes through ``TerminalText/visible(_:keepingLineBreaks:)`` first (newlines and
/// tabs kept), so nothing read from a file, a driver, a server or an archive reaches the terminal as an escape
/// sequence, a carriage return or a bidirectional override; colour is the console's own, added after escaping
/// (``Part/painted(_:_:)``). Only ``output(_:)`` and ``outputData(_:)`` write artifacts (JSON, Markdown,
/// certificates) byte for byte.
public final class Console: Sendable {
    /// What changes while a command runs: its verbosity, the first failure to write stdout and the annotations
    /// written. Held for the whole of a write, so that lines from parallel cases never interleave.
    private struct State {
        var quiet = false
        var verbose = false
        /// Why writing an artifact to stdout failed, once it has (a full disk, a closed pipe).
        var outputError: Int32?
        /// Annotations written so far, for ``GitHubAnnotations/limit``.
        var annotations = 0
    }

    private let state = Locked(State())
    private let out: FileHandle
    private let err: FileHandle
    /// Whether lines are coloured: on a terminal, without `NO_COLOR`, and not for `TERM=dumb`.
    public let colourful: Bool
    public let errIsTerminal: Bool
    /// Whether only errors and the summary are shown (`--quiet`).
    public var quiet: Bool {
        get { state.withLock { $0.quiet } }
        set { state.withLock { $0.quiet = newValue } }
    }
    /// Whether every step is shown (`--verbose`).
    public var verbose: Bool {
        get { state.withLock { $0.verbose } }
        set { state.withLock { $0.verbose = newValue } }
    }
    /// Whether stdout is a terminal: an artifact written there is shown as text (``output(_:)``).
    let outIsTerminal: Bool
    /// stdout was closed when the process started (see ``init(environment:out:err:outputClosed:)``).
    public let outputClosed: Bool
    /// The width help text wraps to (see ``terminalWidth(environment:descriptor:)``).
    public let width: Int
    /// Whether to write GitHub Actions annotations (`GITHUB_ACTIONS` is `true`; ``GitHubAnnotations``).
    public let annotates: Bool

    /// - Parameter outputClosed: stdout was closed when the process started (its descriptor now holds
    ///   `/dev/null`, so that no file the command opens takes it): anything written to it counts as failed.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                out: FileHandle = .standardOutput, err: FileHandle = .standardError, outputClosed: Bool = false) {
        self.out = out
        self.err = err
        self.outputClosed = outputClosed
        errIsTerminal = isatty(err.fileDescriptor) == 1
        outIsTerminal = isatty(out.fileDescriptor) == 1
        colourful = errIsTerminal && environment["NO_COLOR"] == nil && environment["TERM"] != "dumb"
        width = Self.terminalWidth(environment: environment, descriptor: out.fileDescriptor)
        annotates = GitHubAnnotations.isEnabled(environment)
    }

    /// Writes a GitHub Actions workflow command line (``GitHubAnnotations``) on stderr when annotating, up to
    /// ``GitHubAnnotations/limit`` of them, then one warning saying how many were left out (counted as they come).
    func annotate(_ command: @autoclosure () -> String?) {
        guard annotates, let line = command() else { return }
        let count = state.withLock { state -> Int in
            state.annotations += 1
            return state.annotations
        }
        if count <= GitHubAnnotations.limit {
            write(Console.visible(line) + "\n", to: err)
        } else if count == GitHubAnnotations.limit + 1 {
            write(GitHubAnnotations.command(.warning, message: "more than \(GitHubAnnotations.limit) annotations; the rest are in the output and the reports",
                                            file: nil) + "\n", to: err)
        }
    }

    /// `COLUMNS` when it is a positive number, else the width of the terminal `descriptor` is (TIOCGWINSZ),
    /// else 80.
    public static func terminalWidth(environment: [String: String], descriptor: Int32) -> Int {
        if let text = environment["COLUMNS"], let columns = Int(text.trimmingCharacters(in: .whitespaces)), columns > 0 {
            return columns
        }
        if isatty(descriptor) == 1 {
            var size = winsize()
            #if os(Linux)
            let request = UInt(TIOCGWINSZ)
            #else
            let request: UInt = 0x4008_7468 // TIOCGWINSZ: _IOR('t', 104, struct winsize)
            #endif
            if ioctl(descriptor, request, &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        }
        return 80
    }

    /// Writes an artifact (JSON, Markdown, a root certificate) to stdout.
    /// Written as it is to a file or a pipe; to a terminal, as text (``TerminalText``, line breaks kept): a
    /// Markdown report of someone else's evidence cannot act on the terminal it is read on.
    public func output(_ text: String) {
        write(outIsTerminal ? TerminalText.visible(text, keepingLineBreaks: true) : text, to: out)
    }

    /// As ``output(_:)``: bytes as they are, except to a terminal.
    public func outputData(_ data: Data) {
        if outIsTerminal {
            write(TerminalText.visible(String(decoding: data, as: UTF8.self), keepingLineBreaks: true), to: out)
        } else {
            write(data, to: out)
        }
    }

    /// Why writing to stdout failed (`strerror`), or `nil` while every artifact reached it: the command then
    /// exits 74, as its output is incomplete.
    public var outputFailure: String? {
        state.withLock { $0.outputError }.map { String(cString: strerror($0)) }
    }

    /// Whether stdout's reader went away (`matrix … | head`): a choice of the user's, not worth a message.
    public var outputReaderLeft: Bool {
        state.withLock { $0.outputError == EPIPE }
    }

    /// Text for a person on stdout (a verification report's lines), escaped like every stderr line.
    public func outputText(_ text: String) {
        write(TerminalText.visible(text, keepingLineBreaks: true), to: out)
    }

    /// A progress or summary line on stderr (suppressed by `--quiet` unless `always`).
    /// `text` is only built when the line is shown.
    public func info(_ text: @autoclosure () -> String, always: Bool = false) {
        guard !quiet || always else { return }
        write(render([.text(text())]) + "\n", to: err)
    }

    /// A line on stderr made of parts, some in colour (suppressed by `--quiet` unless `always`).
    public func info(_ parts: [Part], always: Bool = false) {
        guard !quiet || always else { return }
        write(render(parts) + "\n", to: err)
    }

    /// `label text` on stderr with `label` in `colour`, shown even with `--quiet` when `always`.
    public func info(_ label: String, _ colour: Colour, _ text: String, always: Bool = false) {
        info([.painted(label, colour), .text(" " + text)], always: always)
    }

    /// Text for a person at the terminal (a guided run's instructions and questions), never suppressed.
    public func prompt(_ text: String) {
        write(render([.text(text)]), to: err)
    }

    /// A line shown only with `--verbose`; `text` is only built then.
    public func detail(_ text: @autoclosure () -> String) {
        guard verbose else { return }
        write(render([.text(text())]) + "\n", to: err)
    }

    /// `error: message` on stderr.
    public func error(_ text: String) {
        write(render([.painted("error:", .red), .text(" " + text)]) + "\n", to: err)
    }

    /// `warning: message` on stderr.
    public func warning(_ text: String) {
        guard !quiet else { return }
        write(render([.painted("warning:", .yellow), .text(" " + text)]) + "\n", to: err)
    }

    public enum Colour: String, Sendable {
        case red = "31"
        case green = "32"
        case yellow = "33"
        case grey = "90"
        case bold = "1"
    }

    /// A piece of a line: text as it is, or text in a colour (on a terminal that shows colour).
    public enum Part: Sendable {
        case text(String)
        case painted(String, Colour)
    }

    /// `text` with every character a terminal would act on written as `\u{…}`, line breaks included
    /// (``TerminalText``): for a value quoted inside a line of the console's own.
    static func visible(_ text: String) -> String {
        TerminalText.visible(text)
    }

    /// The parts escaped (``TerminalText``), then coloured: only the console writes escape sequences.
    func render(_ parts: [Part]) -> String {
        parts.map { part in
            switch part {
            case .text(let text): TerminalText.visible(text, keepingLineBreaks: true)
            case .painted(let text, let colour):
                colourful ? "\u{1B}[\(colour.rawValue)m\(TerminalText.visible(text, keepingLineBreaks: true))\u{1B}[0m"
                          : TerminalText.visible(text, keepingLineBreaks: true)
            }
        }.joined()
    }

    private func write(_ text: String, to handle: FileHandle) {
        write(Data(text.utf8), to: handle)
    }

    /// Writes with `write(2)`: a failure (a full disk, a closed pipe, a closed descriptor) is recorded for
    /// stdout and ignored for stderr, never fatal as `FileHandle.write` is. Progress that cannot be shown must
    /// not stop a run whose evidence is being written.
    private func write(_ data: Data, to handle: FileHandle) {
        state.withLock { state in
            if handle === out && outputClosed {
                if state.outputError == nil && !data.isEmpty { state.outputError = EBADF }
                return
            }
            let failed = data.withUnsafeBytes { bytes -> Int32? in
                var offset = 0
                while offset < bytes.count {
                    let written = Foundation.write(handle.fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    offset += written
                }
                return nil
            }
            if let failed, handle === out, state.outputError == nil { state.outputError = failed }
        }
    }
}
