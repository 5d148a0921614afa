import Foundation

/// The JSON a command prints as its result: pretty-printed, sorted keys, unescaped slashes.
enum JSONOutput {
    /// `value` as the command prints it, without a final newline.
    ///
    /// - Throws: ``CommandFailure`` 70 when the value cannot be encoded (a bug): a command never prints an empty
    ///   result in place of the one it owes.
    static func encode(_ value: some Encodable) throws(CommandFailure) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(value)
        } catch {
            throw CommandFailure("cannot encode the result as JSON: \(error)", code: .software)
        }
    }
}
