import Foundation

extension InputFiles {
    /// The first `count` bytes of a regular file named on the command line (fewer when it is shorter), to tell
    /// file types apart without reading a large file whole.
    ///
    /// - Throws: ``CommandFailure`` 66 when the file cannot be opened or is not a regular file.
    static func readPrefix(_ path: String, count: Int) throws(CommandFailure) -> [UInt8] {
        var info = stat()
        guard stat(path, &info) == 0 else {
            throw CommandFailure("cannot read \(path): \(String(cString: strerror(errno)))", code: .noInput)
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw CommandFailure("cannot read \(path): not a regular file", code: .noInput)
        }
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw CommandFailure("cannot read \(path): permission denied or unreadable", code: .noInput)
        }
        defer { try? handle.close() }
        do {
            return [UInt8](try handle.read(upToCount: count) ?? Data())
        } catch {
            throw CommandFailure("cannot read \(path): \(error.localizedDescription)", code: .noInput)
        }
    }
}
