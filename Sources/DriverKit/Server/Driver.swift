
/// An environment behind the driver protocol: fill in these methods and hand the value to ``DriverServer``.
///
/// The server calls the methods one at a time, in protocol order (`initialize`, then per case `reset` and
/// `perform` for each step, then `shutdown`), from one task; the driver needs no locking of its own. A macOS
/// XCTest host implements it with `SKTestSession`; `matrix driver local` implements it with the embedded
/// simulator.
public protocol Driver: AnyObject {
    /// Receives the matrix and describes the environment.
    ///
    /// - Throws: ``DriverError`` (`environmentUnavailable` when there is no device, simulator or session);
    ///   any other error is answered with code `environmentError` and its description.
    func initialize(_ params: InitializeParams) async throws -> InitializeResult

    /// Starts a case on fresh state (see ``ResetParams``).
    ///
    /// - Throws: ``DriverError``; the case is then recorded `error` at its first step and `blocked` after it.
    func reset(_ params: ResetParams) async throws

    /// Performs one step and observes the app and the store afterwards.
    ///
    /// - Parameter progress: announces that the step needs longer than the runner's step timeout.
    /// - Returns: the observation, or ``PerformResult/unsupported(reason:)``.
    /// - Throws: ``DriverError`` when the step could not be performed or observed (recorded `error`).
    func perform(_ params: PerformParams, progress: DriverProgress) async throws -> PerformResult

    /// The run is over; release what the driver holds. The server answers and returns after this.
    func shutdown() async
}

extension Driver {
    /// Does nothing: drivers without anything to release need not implement it.
    public func shutdown() async {}
}

/// Sends `progress` notifications for the request being performed.
public struct DriverProgress: Sendable {
    /// The request's `id`.
    public let id: Int
    let send: @Sendable ([UInt8]) async -> Void

    /// Creates a reporter for request `id` that writes notification lines with `send`.
    public init(id: Int, send: @escaping @Sendable ([UInt8]) async -> Void) {
        self.id = id
        self.send = send
    }

    /// Asks the runner to wait `waitMs` more (from now) for this request, with a note for people.
    public func wait(ms waitMs: Int64, message: String? = nil) async {
        struct Notification: Encodable {
            var method = DriverNotification.progress.rawValue
            var params: ProgressParams
        }
        if let line = try? DriverProtocol.line(Notification(params: ProgressParams(id: id, waitMs: waitMs, message: message))) {
            await send(line)
        }
    }
}
