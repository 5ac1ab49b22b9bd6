import Foundation
import ReverseAudioCore

/// PCM read straight from the file, for a stream whose stored bytes are exactly what
/// libavcodec decodes it to (``CodecTraits/storesDecodedSamples``): large positioned reads
/// (`pread`) of the data FFmpeg's demuxer located, with no packet, decoder or converter per
/// 4 KiB, which is most of what reading a WAV costs otherwise. Seeking is arithmetic.
///
/// It reads the frames the length resolution found (the data's stated size, checked against
/// the file's), so its frames and length are the decode's exactly. The descriptor is its own,
/// opened read-only and closed once.
final class RawPCMReader {
    private let descriptor: Int32
    private let path: String
    /// Where frame 0 starts in the file.
    private let dataStart: Int64
    private let frameBytes: Int
    /// Frames the stream holds.
    let frames: Int64
    private var buffer: UnsafeMutableRawBufferPointer
    /// The index of the next frame read.
    private(set) var position: Int64 = 0

    /// Bytes read at most at once.
    static let readBytes = 1 << 20

    /// A reader of `frames` frames of `frameBytes` bytes from `dataStart` in `url`; nil when the
    /// file cannot be opened again (the caller decodes instead).
    init?(url: URL, path: String, dataStart: Int64, frameBytes: Int, frames: Int64) {
        guard frameBytes > 0, dataStart >= 0, frames >= 0 else { return nil }
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        self.descriptor = descriptor
        self.path = path
        self.dataStart = dataStart
        self.frameBytes = frameBytes
        self.frames = frames
        buffer = .allocate(byteCount: max(frameBytes, Self.readBytes / frameBytes * frameBytes), alignment: 64)
    }

    deinit {
        close(descriptor)
        buffer.deallocate()
    }

    /// The next frames, at most `maximumFrames`; nil at the end.
    /// - Throws: ``ReverseAudioError/decodingFailed(path:reason:)`` when the file ends before its
    ///   data does (cut while being read) or cannot be read.
    func read(maximumFrames: Int) throws -> PCMChunk? {
        let count = Int(min(Int64(min(maximumFrames, buffer.count / frameBytes)), frames - position))
        guard count > 0, let base = buffer.baseAddress else { return nil }
        let wanted = count * frameBytes
        var filled = 0
        while filled < wanted {
            let got = pread(descriptor, base + filled, wanted - filled, off_t(dataStart + position * Int64(frameBytes) + Int64(filled)))
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else {
                let reason = got == 0 ? "the file ended at frame \(position + Int64(filled / frameBytes)) of \(frames)"
                    : String(cString: strerror(errno))
                throw ReverseAudioError.decodingFailed(path: path, reason: reason)
            }
            filled += got
        }
        defer { position += Int64(count) }
        return PCMChunk(bytes: UnsafeRawBufferPointer(start: base, count: wanted), frameCount: count, position: position)
    }

    /// Moves to `frame` (at most the end); returns where it is.
    func seek(to frame: Int64) -> Int64 {
        position = min(max(frame, 0), frames)
        return position
    }
}
