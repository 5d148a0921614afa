import Foundation
import DriverKit

/// One driver process and the conversation with it: one request at a time, each with a deadline.
///
/// Lines from the driver arrive from a reader task; a request waits for its response on a continuation that
/// the next line, the deadline's timer or cancellation resumes, so no thread is ever blocked on the driver.
/// After a timeout, a malformed line or the end of the driver's output the driver is killed and the
/// connection refuses further requests.
actor DriverConnection {
    let process: DriverProcess
    private let logLine: (@Sendable (String) -> Void)?
    private var queued: [LineEvent] = []
    /// The bytes of ``queued`` (``LineEvent/byteCount``).
    private var queuedBytes = 0
    /// The reader task, suspended while more than ``queueLimit`` bytes are queued: a driver that writes lines
    /// nobody asked for faster than they are handled then blocks on its own writes.
    private var roomWaiter: CheckedContinuation<Void, Never>?
    /// Bytes of lines that may wait for a request.
    static let queueLimit = 16 << 20
    /// How long lines written before a driver exited may take to arrive before its exit is taken as the end of
    /// its output.
    static let exitGrace: Duration = .milliseconds(250)
    private var ended = false
    private var waiter: Waiter?
    private var waiterToken = 0
    /// One timer per deadline, not per line: a driver may write many lines while a request waits.
    private var timer: (deadline: ContinuousClock.Instant, task: Task<Void, Never>)?
    private var nextID = 1
    /// Set when the driver can take no further requests.
    private(set) var failure: DriverFailure?

    private struct Waiter {
        var token: Int
        var continuation: CheckedContinuation<Wake, Never>
    }

    private enum Wake {
        case event(LineEvent)
        case timeout
        case cancelled
    }

    private init(process: DriverProcess, logLine: (@Sendable (String) -> Void)?) {
        self.process = process
        self.logLine = logLine
    }

    /// Starts the driver and reads its output.
    ///
    /// - Parameter logLine: receives the driver's stderr lines and progress messages.
    /// - Throws: ``DriverFailure/launch(_:)`` when it cannot be started.
    static func launch(_ arguments: [String], logLine: (@Sendable (String) -> Void)?) throws(DriverFailure) -> DriverConnection {
        let process: DriverProcess
        do {
            process = try DriverProcess.launch(arguments, logLine: logLine)
        } catch {
            throw .launch(error.message)
        }
        let connection = DriverConnection(process: process, logLine: logLine)
        Task {
            for await event in process.output { await connection.deliver(event) }
        }
        // A driver that exited while something it started holds its stdout open never sends the end of its
        // output: its exit ends the conversation instead, once what it wrote before has had time to arrive.
        process.whenExited {
            Task {
                try? await Task.sleep(for: exitGrace)
                await connection.deliver(.end)
            }
        }
        return connection
    }

    /// Whether the driver can take requests.
    var isUsable: Bool { failure == nil }

    /// Sends `call` and waits for its result.
    ///
    /// - Parameter timeout: how long to wait for the answer; `progress` notifications move the deadline.
    /// - Throws: ``DriverFailure``: `response` and `badResult` leave the driver usable; the others stop it.
    func call<Result: Decodable>(_ call: DriverCall, timeout: Duration, as type: Result.Type) async throws(DriverFailure) -> Result {
        if let failure { throw failure }
        let method = call.method
        let id = nextID
        nextID += 1
        let line: [UInt8]
        do {
            line = try DriverProtocol.line(DriverRequest(id: id, call: call))
        } catch {
            throw .badResult(method: method, detail: "the request cannot be encoded: \(error)")
        }
        // The driver would refuse the line (docs/driver-protocol.md): say so here, where it is true.
        guard line.count - 1 <= DriverProtocol.maximumLineBytes else { throw .requestTooLong(method: method, bytes: line.count - 1) }
        process.input.send(line)
        var deadline = ContinuousClock.now + timeout
        // The wait a progress notification asked for, when the last one set the deadline.
        var progressWait: Duration?
        while true {
            switch await next(until: deadline) {
            case .timeout:
                let timedOut = DriverFailure.timeout(method: method, seconds: Self.seconds(progressWait ?? timeout), log: nil,
                                                     progressWait: progressWait != nil)
                if method == DriverCall.shutdown.method {
                    // No answer to shutdown: the gentler end of section 7 follows (stdin closed, SIGTERM, SIGKILL).
                    failure = timedOut
                    throw timedOut
                }
                throw await stop(because: timedOut)
            case .cancelled:
                throw await stop(because: .cancelled)
            case .event(.end):
                let how = await process.waitForExit(upTo: .milliseconds(500)) ?? "closed its output"
                throw await stop(because: .exited(method: method, how: how, log: nil))
            case .event(.overlong(let prefix)):
                throw await stop(because: .malformed(method: method, line: DriverFailure.quote(prefix),
                                                     reason: "a line longer than \(DriverProtocol.maximumLineBytes) bytes", log: nil))
            case .event(.line(let bytes)):
                let output: DriverOutput
                do {
                    output = try DriverOutput.parse(bytes)
                } catch {
                    throw await stop(because: .malformed(method: method, line: DriverFailure.quote(bytes), reason: error.reason, log: nil))
                }
                switch output {
                case .otherNotification(let name):
                    logLine?("ignored notification \"\(name)\" (not defined by protocol version \(DriverProtocol.version))")
                case .progress(let progress):
                    guard progress.id == id else { continue }
                    let wait = progress.waitMs.map { Duration.milliseconds(min(max($0, 0), 86_400_000)) }
                    progressWait = wait
                    deadline = ContinuousClock.now + (wait ?? timeout)
                    if let message = progress.message { logLine?("progress: \(message)") }
                case .response(let response):
                    // An error with a null id is the driver failing to read the one request in flight.
                    guard response.id == id || response.id == nil else {
                        throw await stop(because: .malformed(
                            method: method, line: DriverFailure.quote(bytes),
                            reason: "it answers request \(response.id.map(String.init) ?? "null") while request \(id) waits", log: nil))
                    }
                    do {
                        return try response.result(as: Result.self)
                    } catch let error as DriverError {
                        throw .response(method: method, error)
                    } catch {
                        throw .badResult(method: method, detail: Self.describe(error))
                    }
                }
            }
        }
    }

    /// Ends the driver politely: `shutdown` (when it is usable), then end of input, then `SIGTERM`, then
    /// `SIGKILL` to its process group. Returns when the driver has exited (or after about 5 s).
    func shutdown(timeout: Duration) async {
        if failure == nil {
            _ = try? await call(.shutdown, timeout: min(timeout, .seconds(2)), as: IgnoredResult.self)
        }
        if failure == nil { failure = .launch("the driver was shut down") }
        process.input.close()
        if await process.waitForExit(upTo: .seconds(1)) == nil {
            process.signalGroup(SIGTERM)
            if await process.waitForExit(upTo: .seconds(1)) == nil {
                process.kill()
                _ = await process.waitForExit(upTo: .seconds(3))
            }
        }
        process.kill()  // whatever the driver left behind in its group
    }

    /// Kills the driver and records why it can take no further requests; returns the failure with its log.
    private func stop(because failure: DriverFailure) async -> DriverFailure {
        process.kill()
        await process.log.waitForEnd(upTo: .milliseconds(300))
        let log = process.log.text()
        let logged: DriverFailure = switch failure {
        case .timeout(let method, let seconds, _, let progressWait): .timeout(method: method, seconds: seconds, log: log, progressWait: progressWait)
        case .exited(let method, let how, _): .exited(method: method, how: how, log: log)
        case .malformed(let method, let line, let reason, _): .malformed(method: method, line: line, reason: reason, log: log)
        default: failure
        }
        self.failure = logged
        process.input.close()
        queued.removeAll()
        queuedBytes = 0
        roomWaiter?.resume()
        roomWaiter = nil
        return logged
    }

    private func deliver(_ event: LineEvent) async {
        if case .end = event {
            // The real end and the one the driver's exit stands for: whichever comes second is no news.
            if ended { return }
            ended = true
        }
        if let waiter {
            self.waiter = nil
            waiter.continuation.resume(returning: .event(event))
        } else if failure == nil {
            queued.append(event)
            queuedBytes += event.byteCount
            if queuedBytes > Self.queueLimit {
                await withCheckedContinuation { roomWaiter = $0 }
            }
        }
        // A stopped driver's remaining lines are read to its end and dropped, so that its reader finishes.
    }

    private func next(until deadline: ContinuousClock.Instant) async -> Wake {
        // A driver that never stops writing must not keep a request from timing out.
        if ContinuousClock.now >= deadline { return .timeout }
        if !queued.isEmpty {
            let event = queued.removeFirst()
            queuedBytes -= event.byteCount
            if queuedBytes <= Self.queueLimit, let roomWaiter {
                self.roomWaiter = nil
                roomWaiter.resume()
            }
            return .event(event)
        }
        if ended { return .event(.end) }
        if Task.isCancelled { return .cancelled }
        waiterToken += 1
        let token = waiterToken
        if timer?.deadline != deadline {
            timer?.task.cancel()
            timer = (deadline, Task {
                try? await Task.sleep(until: deadline, clock: .continuous)
                if !Task.isCancelled { self.deadlinePassed(deadline) }
            })
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                waiter = Waiter(token: token, continuation: continuation)
            }
        } onCancel: {
            Task { await self.wake(token, .cancelled) }
        }
    }

    /// Wakes the request waiting for `deadline`, if it still waits.
    private func deadlinePassed(_ deadline: ContinuousClock.Instant) {
        guard timer?.deadline == deadline else { return }
        timer = nil
        guard let waiter else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: .timeout)
    }

    private func wake(_ token: Int, _ reason: Wake) {
        guard let waiter, waiter.token == token else { return }
        self.waiter = nil
        waiter.continuation.resume(returning: reason)
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    /// A short account of why a result did not decode.
    static func describe(_ error: any Error) -> String {
        guard let decoding = error as? DecodingError else { return String(describing: error) }
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            return keys.isEmpty ? "" : " at /" + keys.joined(separator: "/")
        }
        switch decoding {
        case .keyNotFound(let key, let context): return "\"\(key.stringValue)\" is missing\(path(context))"
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            // Foundation's decoder reports a number of the wrong kind (1.5 for a whole number, 1e400) this way,
            // without the member's path.
            return "a member holds a value of the wrong kind, such as a fractional number where a whole number belongs "
                + "(the decoder does not say which member: \(context.debugDescription))"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.debugDescription + path(context)
        @unknown default: return String(describing: decoding)
        }
    }
}

/// A result whose content does not matter (`reset`, `shutdown`): any JSON value.
struct IgnoredResult: Decodable {
    init(from decoder: any Decoder) throws {}
}
