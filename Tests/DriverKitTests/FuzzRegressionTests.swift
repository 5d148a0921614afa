import Foundation
import Testing
import DriverKit

/// Inputs the fuzzers (fuzz/run.sh) reported, kept so that what they showed stays fixed.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// Reported as a 15 s timeout by the driver target while the machine was starved of memory by another
    /// process; it runs in milliseconds. A chunk-size byte, then driver lines with mangled bytes (0x82 runs, a
    /// NUL, a bad ISO 8601 duration), as a confused driver could write them.
    static let mangledLines = Data(base64Encoded: [
        "AHN1Y2Nlc3NybyJ9fX0KeyJpZCI6OCwibWV0aG9kIjoicGVyZm9ybSIsInBhcmFtcyI6eyJhY2NvdW50IjoiZnJlc2giLCJjYXNl",
        "IjoiZnJlc2gvcHJvIiwiaW5kZXgiOjIsInN0ZXAiOnsiYWN0aW9uIjoiYWR2YW5jZVRpbWUiLCJieSI6IlAxRSJ9fX0Ke4KCgoKC",
        "goKCgoKCgoKCgoKCdG9yZWtpdG1hdHJgeC5wMm8ifX19CnsiaWQiOjgsIm1ldGhvZCI6InBlcmZvcm0iLCJwYXJhbXMiOnsiYWNj",
        "b3VudCI6ImZyZXNoIiwiY2FzZSI6ImZyZXNoL3BybyIsImluZGV4IjoyLCJzdGVwIjp7ImFjdGlvbiI6ImFkdmFuY2VUaW1lIiwi",
        "YnkiOiJQMUUifX19CnsiaWRtZXRob2QibnQiOiJmiWV9fX0KeyJpZCI6OCwibWV0aG9kIjoicGVyZm9ybSIsInBhcmFtcyI6eyJh",
        "Y2NvdW50IjoiZnJlc2giLCJjYXNlIjoiZnJlc2gvcHJvIiwiaW5kZXgiOjIsInN0ZXAiOnsiYWN0aW9uIjoiYWR2YW5jZVRpbWUi",
        "LCJieSI6IlAxRSJ9fX0Ke4KCgoKCgoKCgoKCgoKCgoKCdG9yZWtpdG1hdHJgeC5wMm8ifX19CnsiaWQiOjgsIm1ldGhvZCI6InBl",
        "cmZvcm0ifQp7ImlkIjo4LCJtZXRob2QiOiJwZXJmb3JtIiwicGFyYW1zIjp7ImFjY291bnQiOiJmcmVzaCIsImNhc2UiOiJmcmVz",
        "aC9wcm8iLCJpbmRleCI6Miwic3RlcCI6eyJhY3Rpb24iOiJhZHZhbtPT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT",
        "09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT09PT",
        "Y2VUaW1lIiwiYnkiOiJQMUUifX19CnuCgoKCgoKCgoKCgoKCgoKCgnRvcmVraXRtYXRyYHgucDJvIn19fQp7ImlkIjo4LCJtZXRo",
        "b2QiOiJwZXJmb3JtIiwicGFyYW1zIjp7ImFjY291bnQiOiJmcmVzaCIsImNhc2UiOiJmcmVzaC9wcm8iLCJpbmRleCI6Miwic3Rl",
        "cCI6eyJhY3Rpb24iOiJhZHZhbmNlVGltZSIsImJ5IjoiUDFFIn19fQp7ImlkbWV0aG9kIm50IjoiZollc2giLCJjYXNlIjoiZnKb",
        "jJfPcHJvIiwiaW5kZXgiOjEsInN0ZXAiOnsiYWN0aQp7ImlkIjo5LCJtZXRobysiOnsiaWQiOjEsIm1ldGhvZCI6LCJpbml0aWFs",
        "aXplIiwiSW50cGFyYW1zIjp7InByb3RvY29sVmVyc2kic3VjY2Vzc3JvIn19fQp7ImlkIjo4LCJtZXRob2QiOiJwZXJmb3JtIiwi",
        "cGFyYW1zIjp7ImFjY291bnQiOiJmcmVzaCIsImNhc2UiOiJmcmVzaC9wcm8iLCJpbmRleCI6Miwic3RlcCI6eyJhY3Rpb24iOiJh",
        "ZHZhbmNlVGltZSIsImIi7WRtZf////8KMAo2Ngo2NgoKCgoOJgpwcm1hdAoKAQAKCgoKCgoKCgoKCgqpCjY2NjY2NjY2NjY2NjY2",
        "NwoKU3RyaW5nCgqKCgoKAgoKCgp+CvwKcHIKCgoKCjAwMDAwMDAwMDAwMDAwCss2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2",
        "NjY2NjY2NjY2JAAAAAAAAAA2NjY2NjY2NgoKCgoKCgoKCooKCgoKOwoKigowCgFACgoKZ2dnZ2dnZ2dnZ2dnZ2dnZ2dGbG9hZ2dn",
        "Z2dnZ2dnZ2dnZ2dnZ2dnZzXKyf//ycnJMDAwCss2NjY2NjY2NjY2NjYAfX19cm8ifX19CnsiaWQiujcwMDAwMDAwbyIsIjoiU3UK",
        "CgoKCjEKCjY2NjY2NjY2NjY2NjY2NjY2NjY2NjY2NjYKClN0cmluZwoKigoKCgoKCgoKfgr8CnByCgoKCgowMDAwMDAwMAoBQAoK",
        "CmdnZ21ldGhvrf///////wFkIjoicmVzc2gvAIj+AAAAJtlUewAAciIsIm86IlN1CgoKCgoxCgo2NjY2NjY2NjY2NjY2NjY2NjY2",
        "NjY2NjY2CgpTf1si7WRtZf////8KMAo2Ngo2NgoKCgoOJgpwcm1hdAoKAQAKCgoKCgoKCn9zb24iOiJu////////////////////",
        "////BAAA////////////////////////////////////////////////////////////////////////////////CgoKCqkKNjYA",
        "AAAAAAA2NjY2NjY2NgoKCgoKCgoKCooKCgoKCgoKigowCgFACgoKZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ2dnZ///////////////",
        "/////////////9//////byBjbG9jayIsInN0YW9yIjp7ImNAAAAAAAAAAG9kZSI6LTE2MzUwLCJtZXNzYWdlIjoidGhlLCJwYXki",
        "OiJQMUUifX19CnuCgoKCgoKCgoKCgoKCgoKCgnRvcmVraXRtYXRyYHgucDJvIn19fQp7ImlkIjo4LCJtZXRob2QiOiJwZXJmb3Jt",
        "IiwicGFyYW1zIjp7ImFjY291bnQiOiJmcmVzaCIsImNhc2UiOiJmcmVzaC9wcm8iLCJpbmRleCI6Miwic3RlcCI6eyJhY3Rpb24i",
        "OiJhZHZhbmNlVGltZSIsImJ5IjoiUDFFIn19fQosInBhcmFtcyI6eyJhY2MHeyJpZCI6MiyicmVzdWx0Ijp7Im91bnQiYWN0aW9u",
        "cyI6WyJsYXVuY2giLCJwdXJjaDoiZmFzZSIsInJlZnVuZCJyZXNo",
    ].joined()).map { [UInt8]($0) } ?? []

    @Test("Mangled driver lines reported as slow split and parse at once, each to a result or a clear error", .timeLimit(.minutes(1)))
    func mangledLinesReportedSlow() throws {
        let input = Self.mangledLines
        try #require(input.count == 2214)
        var splitter = LineSplitter(maximumLength: input[0] & 0x40 == 0 ? DriverProtocol.maximumLineBytes : 48)
        let chunk = Int(input[0] & 0x3F) + 1
        var pieces: [LineSplitter.Piece] = []
        var offset = 1
        while offset < input.count {
            pieces += splitter.append(input[offset..<min(input.count, offset + chunk)])
            offset += chunk
        }
        pieces += splitter.finish()
        var outputs = 0
        var codes: [Int] = []
        for case .line(let line) in pieces {
            if (try? DriverOutput.parse(line)) != nil { outputs += 1 }
            if case .failure(let refusal) = DriverRequest.parse(line) { codes.append(refusal.error.code) }
        }
        // Every piece is a line; none is a driver's output, and every one is refused as a request with one of
        // the protocol's error codes.
        #expect(pieces.count == 68)
        #expect(outputs == 0)
        #expect(codes.count == 68)
        #expect(Set(codes).isSubset(of: [DriverError.parseError, DriverError.invalidRequest, DriverError.invalidParams]))
    }
}
