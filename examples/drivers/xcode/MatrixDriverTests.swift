// Not compiled by this package: an Xcode test target builds it (see README.md).
import DriverKit
import Foundation
import XCTest

/// Serves the StoreKit Testing driver to `matrix run --env exec` through a local TCP port (see README.md).
final class MatrixDriverTests: XCTestCase {
    func testServeMatrixDriver() async throws {
        let environment = ProcessInfo.processInfo.environment
        guard let port = environment["MATRIX_DRIVER_PORT"].flatMap(UInt16.init) else {
            throw XCTSkip("set TEST_RUNNER_MATRIX_DRIVER_PORT to serve a matrix run")
        }
        let socket = try await connect(port: port)
        let handle = FileHandle(fileDescriptor: socket, closeOnDealloc: true)
        let writer = LineWriter(handle)
        let driver = StoreKitTestingDriver(app: MyAppUnderTest(), configurationFile: "Products")
        let ending = await DriverServer.serve(driver, lines: LineReader.lines(from: socket)) { try await writer.write($0) }
        XCTAssertEqual(ending, .shutdown)
    }

    /// Connects to 127.0.0.1:`port`, retrying for a minute while the relay starts.
    func connect(port: UInt16) async throws -> Int32 {
        for _ in 0..<600 {
            let fd = Darwin.socket(AF_INET, SOCK_STREAM, 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Darwin.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            if connected == 0 { return fd }
            close(fd)
            try await Task.sleep(for: .milliseconds(100))
        }
        throw XCTSkip("no matrix relay on port \(port)")
    }
}
