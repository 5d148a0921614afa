import DriverKit
import MatrixEngine

/// The driver processes of an exec run: idle ones wait for the next case; a broken one is shut down and
/// replaced by a fresh one (started and initialized) when the next case needs it.
actor DriverPool {
    typealias Launcher = @Sendable () async throws(DriverFailure) -> (DriverConnection, InitializeResult)

    private let launch: Launcher
    private let timeout: Duration
    private var idle: [DriverConnection]
    private var busy: [ObjectIdentifier: DriverConnection] = [:]
    /// Set when a replacement driver failed to start: later cases fail at once instead of each waiting for it.
    private var restartFailure: String?

    init(first: DriverConnection, timeout: Duration, launch: @escaping Launcher) {
        self.idle = [first]
        self.timeout = timeout
        self.launch = launch
    }

    /// A usable driver for one case: an idle one, or a fresh one.
    ///
    /// - Throws: ``AdapterError`` when a fresh driver cannot be started or initialized.
    func checkOut() async throws(AdapterError) -> DriverConnection {
        while let connection = idle.popLast() {
            if await connection.isUsable {
                busy[ObjectIdentifier(connection)] = connection
                return connection
            }
            await connection.shutdown(timeout: timeout)
        }
        if let restartFailure { throw AdapterError(restartFailure) }
        do {
            let (connection, _) = try await launch()
            busy[ObjectIdentifier(connection)] = connection
            return connection
        } catch {
            let message = "the driver could not be restarted: \(error.message)"
            restartFailure = message
            throw AdapterError(message)
        }
    }

    /// Gives a driver back after its case: kept when usable, shut down otherwise.
    func checkIn(_ connection: DriverConnection) async {
        busy[ObjectIdentifier(connection)] = nil
        if await connection.isUsable {
            idle.append(connection)
        } else {
            await connection.shutdown(timeout: timeout)
        }
    }

    /// Shuts every driver down (busy ones too, after an interruption).
    func shutdown() async {
        let all = idle + Array(busy.values)
        idle = []
        busy = [:]
        restartFailure = "the run is over"
        for connection in all { await connection.shutdown(timeout: timeout) }
    }
}
