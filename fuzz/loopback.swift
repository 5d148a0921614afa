// libFuzzer harness: bytes a local client could send to the loopback App Store Server API, or a backend could answer
// the runner with, read by the loopback HTTP/1.1 reader from a socket as the server and the client read them
// (LoopbackHTTPServer.readRequest, LoopbackHTTPClient.readResponse), within small limits. A request that reads is
// checked as the loopback Server API checks it before anything else (BearerTokenCheck, which runs before the bearer
// token is known to be good); a response that reads is written again as the server writes one and read back. Linked by
// fuzz/run.sh with Sources/LoopbackHTTP and Sources/LoopbackServerAPI/BearerTokenCheck.swift in this module. The first
// byte's low bit picks the direction. Any input must give a message or an HTTPWireFailure: never a crash, a hang, or a
// message over the limits.
import Foundation
import SignedData

let limits = HTTPLimits(headerBytes: 4096, bodyBytes: 16 << 10, timeout: .seconds(5), headTimeout: .seconds(5))
let key = try? P256PrivateKey.generate()
let tokens = key.map { key in
    BearerTokenCheck(credentials: ServerAPICredentials(keyId: "KEY1", issuerId: "issuer", bundleId: "com.example.app", publicKey: key.publicKey),
                     now: { 1_800_000_000 })
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLoopback(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    // A socket pair's buffer takes 64 KiB at once, so the whole input is written before it is read.
    guard size > 0, size <= 64 << 10 else { return 0 }
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    if data[0] & 1 == 0 {
        guard var reader = wireReader(of: bytes) else { return 0 }
        do throws(HTTPWireFailure) {
            let request = try LoopbackHTTPServer.readRequest(&reader)
            if request.body.count > limits.bodyBytes { violation("a request body of \(request.body.count) bytes was read") }
            if request.headers.count > 100 { violation("\(request.headers.count) header fields were read") }
            _ = request.path
            _ = request.queryItems
            _ = tokens?.problem(authorization: request.header("Authorization"))
        } catch {
            _ = error.description
        }
    } else {
        guard var reader = wireReader(of: bytes) else { return 0 }
        do throws(HTTPWireFailure) {
            let response = try LoopbackHTTPClient.readResponse(&reader, method: data[0] & 2 == 0 ? "GET" : "HEAD")
            if !(100...599).contains(response.status) { violation("status \(response.status) was read") }
            if response.body.count > limits.bodyBytes { violation("a response body of \(response.body.count) bytes was read") }
            // Written as the server writes a response, it reads back the same.
            guard var again = wireReader(of: LoopbackHTTPServer.bytes(of: response)) else { return 0 }
            let reread = try LoopbackHTTPClient.readResponse(&again, method: "GET")
            if reread.status != response.status || reread.body != response.body {
                violation("a response written again read back as \(reread.status) with \(reread.body.count) bytes")
            }
        } catch {
            _ = error.description
        }
    }
    return 0
}

/// A reader of `bytes`, written to one end of a socket pair that is then closed.
func wireReader(of bytes: [UInt8]) -> HTTPWireReader? {
    var fds: [Int32] = [0, 0]
    guard socketpair(AF_UNIX, LoopbackSocket.streamType, 0, &fds) == 0 else { return nil }
    var size: Int32 = 256 << 10
    _ = setsockopt(fds[1], SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    do {
        let writer = LoopbackSocket(fd: fds[1])
        writer.makeNonBlocking()
        try? writer.write(bytes, until: .now + .seconds(1))
    }
    let socket = LoopbackSocket(fd: fds[0])
    socket.makeNonBlocking()
    return HTTPWireReader(socket: socket, limits: limits, deadline: .now + .seconds(2), headDeadline: .now + .seconds(2))
}

/// Reports a broken property to libFuzzer, which saves the input: a message, then an abort.
func violation(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("fuzz: " + message + "\n").utf8))
    abort()
}
