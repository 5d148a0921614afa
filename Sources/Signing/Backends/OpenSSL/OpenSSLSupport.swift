#if !canImport(CryptoKit)
import COpenSSL
import Foundation

/// Helpers around OpenSSL's thread-local error queue and memory BIOs, for the Linux backends of this package.
package enum OpenSSLSupport {
    /// Drains the calling thread's OpenSSL error queue into one line (empty when there was nothing).
    package static func drainErrors() -> String {
        var reasons: [String] = []
        while true {
            let code = ERR_get_error()
            if code == 0 { break }
            var buffer = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &buffer, buffer.count)
            reasons.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        return reasons.joined(separator: "; ")
    }

    /// Builds an error and attaches (and clears) whatever OpenSSL queued.
    package static func error(_ code: SignedDataError.Code, _ message: String) -> SignedDataError {
        SignedDataError(code, message, detail: drainErrors())
    }

    /// Runs `body` with a read-only memory BIO over `bytes`; the BIO is freed afterwards.
    package static func withReadBIO<R>(
        _ bytes: some DataProtocol,
        _ body: (OpaquePointer) throws -> R
    ) throws -> R {
        let contiguous = [UInt8](bytes)
        guard contiguous.count <= Int(Int32.max) else {
            throw SignedDataError(.cryptoFailure, "The input is \(contiguous.count) bytes, more than OpenSSL's memory buffers take.")
        }
        return try contiguous.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else {
                throw error(.cryptoFailure, "Could not allocate an OpenSSL memory buffer.")
            }
            defer { BIO_free(bio) }
            return try body(bio)
        }
    }

    /// Runs `body` with a writable memory BIO and returns what it wrote.
    package static func collectBIO(_ body: (OpaquePointer) throws -> Bool) throws -> [UInt8] {
        guard let bio = BIO_new(BIO_s_mem()) else {
            throw error(.cryptoFailure, "Could not allocate an OpenSSL memory buffer.")
        }
        defer { BIO_free(bio) }
        guard try body(bio) else {
            throw error(.cryptoFailure, "OpenSSL could not write to a memory buffer.")
        }
        var start: UnsafePointer<CChar>?
        let length = skm_bio_mem_contents(bio, &start)
        guard let start, length > 0 else { return [] }
        return start.withMemoryRebound(to: UInt8.self, capacity: length) {
            Array(UnsafeBufferPointer(start: $0, count: length))
        }
    }

    /// Encodes an OpenSSL object with an `i2d_*` function into DER bytes.
    package static func encodeDER(
        _ encode: (UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>?) -> Int32
    ) throws -> [UInt8] {
        let length = encode(nil)
        guard length > 0 else {
            throw error(.cryptoFailure, "OpenSSL could not DER-encode an object.")
        }
        var bytes = [UInt8](repeating: 0, count: Int(length))
        let written = bytes.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return encode(&cursor)
        }
        guard written == length else {
            throw error(.cryptoFailure, "OpenSSL wrote \(written) DER bytes where \(length) were announced.")
        }
        return bytes
    }
}
#endif
