import CFFmpeg
import Foundation

/// SHA-256 (FIPS 180-4) computed by libavutil's `AVSHA`: the digest a batch manifest records of
/// every output, so that users can check outputs with `sha256sum -c`. Owns its context and
/// frees it once.
package final class SHA256Digest {
    private let context: OpaquePointer

    /// An empty digest, ready for bytes; nil only when libavutil cannot allocate one.
    package init?() {
        guard let context = av_sha_alloc() else { return nil }
        self.context = context
        av_sha_init(context, 256)
    }

    deinit { av_free(UnsafeMutableRawPointer(context)) }

    /// Adds the bytes of `buffer` to what is digested.
    package func update(_ buffer: UnsafeRawBufferPointer) {
        guard var base = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var remaining = buffer.count
        // av_sha_update takes an int count (size_t from FFmpeg 6): fed in pieces under 1 GiB.
        while remaining > 0 {
            let piece = min(remaining, 1 << 30)
            av_sha_update(context, base, numericCast(piece))
            base += piece
            remaining -= piece
        }
    }

    /// The digest of everything added, as 64 lower-case hexadecimal digits. The digest is
    /// finished: add nothing after it.
    package func hexDigest() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        av_sha_final(context, &digest)
        return digest.map { String(format: "%02x", $0) }.joined()
    }
}
