import FFmpeg
import Foundation
import ReverseAudioCore

/// PCM read straight from the file, for a stream whose stored bytes are exactly what
/// libavcodec decodes it to (``CodecTraits/storesDecodedSamples``): large reads of the data
/// FFmpeg's demuxer located, through the demuxer's own open of the file, with no packet,
/// decoder or converter per 4 KiB, which is most of what reading a WAV costs otherwise.
/// Seeking is arithmetic.
///
/// It reads the frames the length resolution found (the data's stated size, checked against
/// the file's), so its frames and length are the decode's exactly.
final class RawPCMReader {
    private let demuxer: Demuxer
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

    /// A reader of `frames` frames of `frameBytes` bytes from `dataStart` in the file `demuxer`
    /// reads (whose packets are not read any more); nil for a stream it cannot read so.
    init?(demuxer: Demuxer, path: String, dataStart: Int64, frameBytes: Int, frames: Int64) {
        guard frameBytes > 0, dataStart >= 0, frames >= 0 else { return nil }
        self.demuxer = demuxer
        self.path = path
        self.dataStart = dataStart
        self.frameBytes = frameBytes
        self.frames = frames
        buffer = .allocate(byteCount: max(frameBytes, Self.readBytes / frameBytes * frameBytes), alignment: 64)
    }

    deinit {
        buffer.deallocate()
    }

    /// The next frames, at most `maximumFrames`; nil at the end.
    /// - Throws: `InputError.decodingFailed(path:reason:)` when the file ends before its
    ///   data does (cut while being read) or cannot be read.
    func read(maximumFrames: Int) throws -> PCMChunk? {
        let count = Int(min(Int64(min(maximumFrames, buffer.count / frameBytes)), frames - position))
        guard count > 0, let base = buffer.baseAddress else { return nil }
        let wanted = count * frameBytes
        let got: Int
        do {
            got = try demuxer.readBytes(into: base, count: wanted, at: dataStart + position * Int64(frameBytes))
        } catch {
            if error.isInterrupted { throw CancellationError() }
            throw ReverseAudioError.input(.decodingFailed(path: path, reason: error.message))
        }
        guard got == wanted else {
            throw ReverseAudioError.input(.decodingFailed(path: path, reason: "the file ended at frame \(position + Int64(got / frameBytes)) of \(frames)"))
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
