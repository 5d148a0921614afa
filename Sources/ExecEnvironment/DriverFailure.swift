import DriverKit

/// Why a request to a driver did not give a result.
enum DriverFailure: Error, Sendable {
    /// The driver could not be started.
    case launch(String)
    /// No answer within the deadline: the step timeout, or the wait the driver's last `progress` asked for
    /// (`waitMs`, `progressWait`); the driver was stopped.
    case timeout(method: String, seconds: Double, log: String?, progressWait: Bool = false)
    /// The driver's output ended (it exited, crashed or closed stdout).
    case exited(method: String, how: String, log: String?)
    /// A line that is not a protocol message, or an answer to a request never sent; the driver was stopped.
    case malformed(method: String, line: String, reason: String, log: String?)
    /// An error response; the driver stays usable.
    case response(method: String, DriverError)
    /// A result that does not have the method's documented shape; the driver stays usable.
    case badResult(method: String, detail: String)
    /// The request would be a line longer than the protocol allows; it was not sent.
    case requestTooLong(method: String, bytes: Int)
    /// The run was cancelled (Ctrl-C) while waiting.
    case cancelled

    /// Whether the driver can take further requests after this failure.
    var leavesDriverUsable: Bool {
        switch self {
        case .response, .badResult, .requestTooLong: true
        default: false
        }
    }

    /// A sentence for the evidence's reason or the console.
    var message: String {
        switch self {
        case .launch(let message):
            return message
        case .timeout(let method, let seconds, let log, let progressWait):
            let limit = progressWait ? "the \(Self.format(seconds)) s its last progress notification asked for (waitMs)" : "\(Self.format(seconds)) s"
            return "the driver did not answer \(method) within \(limit); it was stopped" + Self.suffix(log)
        case .exited(let method, let how, let log):
            return "the driver \(how) while handling \(method)" + Self.suffix(log)
        case .malformed(let method, let line, let reason, let log):
            return "the driver wrote a line that is not a protocol message while handling \(method) (\(reason)): \(line); it was stopped"
                + Self.suffix(log)
        case .response(let method, let error):
            return "the driver answered \(method) with error \(error.code): \(error.message)"
        case .badResult(let method, let detail):
            return "the driver's answer to \(method) does not have the documented shape: \(detail)"
        case .requestTooLong(let method, let bytes):
            return "the \(method) request would be a line of \(bytes) bytes, over the driver protocol's limit of "
                + "\(DriverProtocol.maximumLineBytes) bytes per line; it was not sent"
        case .cancelled:
            return "the run was interrupted"
        }
    }

    private static func suffix(_ log: String?) -> String {
        log.map { " — driver stderr: \($0)" } ?? ""
    }

    static func format(_ seconds: Double) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(format: "%.3g", seconds)
    }

    /// A driver's line for a message: quoted, control characters escaped, cut to `limit` characters.
    static func quote(_ bytes: [UInt8], limit: Int = 200) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        var quoted = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: quoted += String(format: "\\u%04x", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        let cut = text.unicodeScalars.count > limit
        return "\"" + quoted + (cut ? "…" : "") + "\"" + (cut ? " (\(bytes.count) bytes)" : "")
    }
}
