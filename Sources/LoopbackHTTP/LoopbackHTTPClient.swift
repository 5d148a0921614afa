import Foundation

/// Sends one HTTP/1.1 request to a port of 127.0.0.1 and reads the answer within ``HTTPLimits``: the status
/// line and header fields, then a body by `Content-Length`, by chunks or to the end of the stream. Redirects are
/// not followed. What comes back is untrusted: it is bounded here and validated by the caller.
public enum LoopbackHTTPClient {
    /// Sends `request` to 127.0.0.1:`port` and returns the answer or why there is none. The blocking exchange
    /// runs on a thread of its own; the calling task waits without holding a thread. Cancelling the task ends
    /// the exchange within a tenth of a second with ``HTTPWireFailure/cancelled``.
    public static func send(_ request: HTTPRequest, port: UInt16, limits: HTTPLimits) async -> Result<HTTPResponse, HTTPWireFailure> {
        let cancellation = CancellationFlag()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                LoopbackThread.start {
                    continuation.resume(returning: exchange(request, port: port, limits: limits, cancellation: cancellation))
                }
            }
        } onCancel: {
            cancellation.set()
        }
    }

    static func exchange(_ request: HTTPRequest, port: UInt16, limits: HTTPLimits,
                         cancellation: CancellationFlag? = nil) -> Result<HTTPResponse, HTTPWireFailure> {
        let deadline = ContinuousClock.now + limits.timeout
        let socket: LoopbackSocket
        do {
            socket = try LoopbackSocket.connect(port: port, deadline: deadline, cancellation: cancellation)
        } catch {
            return .failure(HTTPWireFailure(error))
        }
        var reader = HTTPWireReader(socket: socket, limits: limits, deadline: deadline)
        do throws(HTTPWireFailure) {
            let framingFields = ["host", "content-length", "connection", "transfer-encoding"]
            var fields = request.headers.filter { !framingFields.contains($0.name.lowercased()) }
            fields.insert(("Host", "127.0.0.1:\(port)"), at: 0)
            if !request.body.isEmpty || request.method == "POST" || request.method == "PUT" {
                fields.append(("Content-Length", String(request.body.count)))
            }
            fields.append(("Connection", "close"))
            try reader.write(HTTPWire.head("\(request.method) \(request.target) HTTP/1.1", fields) + request.body)
            return .success(try readResponse(&reader, method: request.method))
        } catch {
            return .failure(error)
        }
    }

    static func readResponse(_ reader: inout HTTPWireReader, method: String) throws(HTTPWireFailure) -> HTTPResponse {
        while true {
            let lines = try reader.readHead()
            // Only HTTP/1.1 is spoken (docs/server-environment.md: an answer that is not HTTP/1.1 is INVALID_RESPONSE).
            let start = lines[0].split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            guard start.count >= 2, start[0] == "HTTP/1.1", let status = HTTPWire.decimal(start[1], digits: 3), start[1].count == 3,
                  (100...599).contains(status) else {
                throw .malformed("the status line is not HTTP/1.1 NNN: \(HTTPWire.excerpt(lines[0]))")
            }
            let fields = try HTTPWire.fields(lines[1...])
            if (100...199).contains(status) { continue }
            var response = HTTPResponse(status: status, headers: fields)
            if method == "HEAD" || status == 204 || status == 304 { return response }
            switch try HTTPWire.framing(fields, isResponse: true) {
            case .length(let count): response.body = try reader.readBody(length: count)
            case .chunked: response.body = try reader.readChunkedBody()
            case .toEnd: response.body = try reader.readToEnd()
            }
            return response
        }
    }
}
