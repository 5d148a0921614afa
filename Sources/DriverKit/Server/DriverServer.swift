import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The driver side of the protocol: reads requests, calls a ``Driver``, writes responses.
///
/// Rules it applies for the driver: requests before `initialize` (other than `shutdown`) are answered
/// `invalidRequest`; unknown methods `methodNotFound`; unreadable lines `parseError` or `invalidParams`;
/// a ``DriverError`` thrown by the driver becomes the error response as is, any other error becomes
/// `environmentError` with its description. The loop ends after answering `shutdown`, or at end of input
/// (after calling ``Driver/shutdown()``).
public enum DriverServer {
    /// How serving ended.
    public enum Ending: Sendable, Hashable {
        /// The runner sent `shutdown`.
        case shutdown
        /// The input ended without `shutdown` (the runner exited or closed the pipe).
        case endOfInput
        /// A response could not be written (the runner is gone).
        case outputFailed(String)
    }

    /// Serves `driver` over lines of input, writing each response with `write`.
    ///
    /// - Parameters:
    ///   - lines: request lines (see ``LineReader``).
    ///   - write: writes one line (newline included); throws when the output is gone.
    public static func serve(_ driver: some Driver, lines: some AsyncSequence<LineEvent, Never>,
                             write: @escaping @Sendable ([UInt8]) async throws -> Void) async -> Ending {
        var initialized = false
        for await event in lines {
            let reply: [UInt8]
            var ending: Ending?
            switch event {
            case .end:
                await driver.shutdown()
                return .endOfInput
            case .overlong:
                reply = DriverResponse.line(id: nil, error: DriverError(code: DriverError.invalidRequest,
                                                                        message: "the request line is longer than \(DriverProtocol.maximumLineBytes) bytes"))
            case .line(let bytes):
                switch DriverRequest.parse(bytes) {
                case .failure(let failure):
                    reply = DriverResponse.line(id: failure.id, error: failure.error)
                case .success(let request):
                    if case .shutdown = request.call { ending = .shutdown }
                    let answered = await answer(request, driver: driver, initialized: initialized, write: write)
                    if case .initialize = request.call, answered.succeeded { initialized = true }
                    reply = answered.line
                }
            }
            do {
                try await write(reply)
            } catch {
                await driver.shutdown()
                return .outputFailed(String(describing: error))
            }
            if let ending { return ending }
        }
        await driver.shutdown()
        return .endOfInput
    }

    /// Serves `driver` on the process's stdin and stdout.
    ///
    /// The protocol keeps stdout for itself: the process's descriptor 1 is moved to a private descriptor that only
    /// the responses reach, and descriptor 1 then points at stderr, so what the driver's code prints (`print()`,
    /// a logging library, C code writing to stdout) goes to the log instead of breaking the protocol.
    public static func serveStandardIO(_ driver: some Driver) async -> Ending {
        let writer = LineWriter(protocolOutput())
        let lines = LineReader.lines(from: FileHandle.standardInput.fileDescriptor)
        return await serve(driver, lines: lines) { try await writer.write($0) }
    }

    static func answer(_ request: DriverRequest, driver: some Driver, initialized: Bool,
                       write: @escaping @Sendable ([UInt8]) async throws -> Void) async -> (line: [UInt8], succeeded: Bool) {
        do {
            return (try await result(request, driver: driver, initialized: initialized, write: write), true)
        } catch let error as DriverError {
            return (DriverResponse.line(id: request.id, error: error), false)
        } catch {
            return (DriverResponse.line(id: request.id, error: .environment(String(describing: error))), false)
        }
    }

    /// The result line for `request`. - Throws: what the driver throws, or ``DriverError`` for protocol errors.
    static func result(_ request: DriverRequest, driver: some Driver, initialized: Bool,
                       write: @escaping @Sendable ([UInt8]) async throws -> Void) async throws -> [UInt8] {
        switch request.call {
        case .initialize(let params):
            guard params.protocolVersion == DriverProtocol.version else {
                throw DriverError.unavailable("this driver speaks protocol version \(DriverProtocol.version), not \(params.protocolVersion)")
            }
            return try DriverResponse.line(id: request.id, result: try await driver.initialize(params))
        case .shutdown:
            await driver.shutdown()
            return try DriverResponse.line(id: request.id, result: [String: String]())
        case .unknown(let method):
            throw DriverError(code: DriverError.methodNotFound, message: "unknown method \"\(method)\"")
        case .reset(let params):
            try requireInitialization(initialized, request)
            try await driver.reset(params)
            return try DriverResponse.line(id: request.id, result: [String: String]())
        case .perform(let params):
            try requireInitialization(initialized, request)
            let progress = DriverProgress(id: request.id) { line in try? await write(line) }
            return try DriverResponse.line(id: request.id, result: try await driver.perform(params, progress: progress))
        }
    }

    private static func requireInitialization(_ initialized: Bool, _ request: DriverRequest) throws(DriverError) {
        guard initialized else {
            throw DriverError(code: DriverError.invalidRequest, message: "\(request.call.method) before initialize")
        }
    }
}

extension DriverServer {
    /// The descriptor the protocol writes to: a duplicate of stdout, after which stdout is stderr. When the
    /// descriptors cannot be moved, stdout itself.
    static func protocolOutput() -> FileHandle {
        let descriptor = dup(STDOUT_FILENO)
        guard descriptor >= 0 else { return FileHandle.standardOutput }
        // Not inherited by what the driver starts: only this process speaks the protocol.
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        guard dup2(STDERR_FILENO, STDOUT_FILENO) >= 0 else {
            close(descriptor)
            return FileHandle.standardOutput
        }
        // What was printed before serving and still sits in stdio's buffer goes to the log too.
        fflush(nil)
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
    }
}
