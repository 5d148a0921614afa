// libFuzzer harness: bytes a driver process or the runner could write on the driver protocol's pipes, split into
// lines by LineSplitter in chunks of every size, each line read as a driver's output (DriverOutput.parse, what
// the runner reads) and as a request (DriverRequest.parse, what a driver built on DriverKit reads). Linked by
// fuzz/run.sh against Sources/DriverKit and the modules below it. The first byte picks the chunk size and the
// line limit. Any input must give lines, overlong-line reports and parse errors: never a crash or a hang.
import DriverKit
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDriver(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let chunk = Int(data[0] & 0x3F) + 1
    let limit = data[0] & 0x40 == 0 ? DriverProtocol.maximumLineBytes : 48
    var splitter = LineSplitter(maximumLength: limit)
    var pieces: [LineSplitter.Piece] = []
    var offset = 1
    while offset < size {
        let end = min(size, offset + chunk)
        pieces += splitter.append(UnsafeBufferPointer(start: data + offset, count: end - offset))
        offset = end
    }
    pieces += splitter.finish()
    for piece in pieces {
        switch piece {
        case .line(let line):
            if line.count > limit || line.isEmpty || line.contains(0x0A) { violation("a line of \(line.count) bytes came out of the splitter") }
            _ = try? DriverOutput.parse(line)
            _ = DriverRequest.parse(line)
        case .overlong(let prefix):
            if prefix.count > 256 { violation("an overlong line's prefix has \(prefix.count) bytes") }
        }
    }
    return 0
}

/// Reports a broken property to libFuzzer, which saves the input: a message, then an abort.
func violation(_ message: String) -> Never {
    FileHandle.standardError.write(Data(("fuzz: " + message + "\n").utf8))
    abort()
}
