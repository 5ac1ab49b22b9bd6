import FFmpeg
import Foundation

/// A file's SHA-256, read in 1 MiB pieces and digested by libavutil: what a batch manifest
/// records of each output.
package enum FileDigest {
    /// The SHA-256 of the file at `path` as 64 lower-case hexadecimal digits; nil when it cannot
    /// be read.
    /// - Parameters:
    ///   - path: the file.
    ///   - isCancelled: polled between pieces: a batch stopped by a signal must not wait for the
    ///     digest of a large output (it throws `CancellationError` then).
    package static func sha256(ofFileAt path: String, isCancelled: () -> Bool = { false }) throws -> String? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0, let digest = SHA256Digest() else {
            if descriptor >= 0 { close(descriptor) }
            return nil
        }
        defer { close(descriptor) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            if isCancelled() { throw CancellationError() }
            let count = read(descriptor, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if count == 0 { break }
            digest.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
        return digest.hexDigest()
    }
}
