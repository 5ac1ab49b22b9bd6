import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// A file's decode read at any frame, forwards or backwards, from several threads at once:
/// what `serve` answers a byte range of a virtual WAV from.
///
/// The frames are those of ``ChunkCache`` (a continuous forward decode, as `play` and every
/// other command see them), as 16-bit integers; the reversed stream's frame `k` is the file's
/// frame `frameCount - 1 - k`. A read decodes only the chunks it touches (from the nearest
/// exact seek, with the codec's pre-roll), so the last second of an hour-long file costs what
/// the first does, and memory is the cache's few chunks whatever the file's length.
package final class DecodedFrames: Sendable {
    /// The samples given: interleaved signed 16-bit at the file's rate and channels.
    package let format: PCMFormat
    /// The frames announced when opening (the length every command resolves). Should the decode
    /// end earlier (a file cut short since), the frames past its end read as silence, so that
    /// a length already promised to a client still holds.
    package let frameCount: Int64
    /// The file's description, read when opening it.
    package let info: AudioInfo
    private let cache: ChunkCache

    /// Opens `url` (a length pass when the container does not state it exactly, unless `facts`
    /// an earlier open of the file learnt are given: ``StreamFacts``).
    package init(url: URL, facts: StreamFacts? = nil) throws {
        cache = try ChunkCache(url: url, sampleFormat: .s16, facts: facts)
        format = cache.format
        frameCount = cache.frameCount
        info = cache.info
    }

    /// Stops a decode in progress and every later one: for a file being forgotten.
    package func cancel() { cache.cancel() }

    /// Copies `count` frames of the stream played in `direction`, from its frame `start`, into
    /// `buffer` (which holds at least `count` frames).
    /// - Throws: a decoding failure, frames outside the file, or `CancellationError` after ``cancel()``.
    package func copy(from start: Int64, count: Int, direction: PlaybackDirection,
                      into buffer: UnsafeMutableRawBufferPointer) throws {
        let frameBytes = format.bytesPerFrame
        guard start >= 0, count >= 0, start + Int64(count) <= frameCount, buffer.count >= count * frameBytes else {
            throw ReverseAudioError.range(.cannotSeek(path: cache.name, frame: start,
                                                      reason: "\(count) frames from there are not all inside its \(frameCount)"))
        }
        let chunkFrames = Int64(cache.chunkFrames)
        var done = 0
        while done < count {
            let output = buffer.baseAddress! + done * frameBytes
            let remaining = count - done
            switch direction {
            case .forward:
                let frame = start + Int64(done)
                let index = frame / chunkFrames
                let offset = Int(frame - index * chunkFrames)
                let chunk = try cache.chunk(index, direction: .forward)
                let available = chunk.map { $0.bytes.count / frameBytes - offset } ?? 0
                let run = min(remaining, available > 0 ? available : Int(chunkFrames) - offset)
                if available > 0, let source = chunk?.bytes.baseAddress {
                    output.copyMemory(from: source + offset * frameBytes, byteCount: run * frameBytes)
                } else {
                    output.initializeMemory(as: UInt8.self, repeating: 0, count: run * frameBytes)
                }
                done += run
            case .reverse:
                let frame = frameCount - 1 - (start + Int64(done))
                let index = frame / chunkFrames
                let offset = Int(frame - index * chunkFrames)
                let chunk = try cache.chunk(index, direction: .reverse)
                let held = chunk.map { $0.bytes.count / frameBytes } ?? 0
                if offset < held, let source = chunk?.bytes.baseAddress {
                    let run = min(remaining, offset + 1)
                    FrameReversal.copyReversed(source + (offset - run + 1) * frameBytes, to: output, frames: run, frameBytes: frameBytes)
                    done += run
                } else {
                    // Past the decode's end: silence down to where the chunk's frames stop.
                    let run = min(remaining, offset - held + 1)
                    output.initializeMemory(as: UInt8.self, repeating: 0, count: run * frameBytes)
                    done += run
                }
            }
        }
    }
}
