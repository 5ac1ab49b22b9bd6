import Foundation
import Hummingbird
import ReverseAudio
import ReverseAudioPlayback

/// A file's decode, forwards or reversed, as a 16-bit PCM WAV that exists only as it is read:
/// any byte range of it is made by decoding just the frames it covers (``DecodedFrames``), so
/// a plain `<audio>` element can stream, seek and play a file backwards in any browser.
///
/// The layout is the canonical 44-byte RIFF header (`WAVE_FORMAT_PCM`) followed by the frames,
/// exactly as `ffmpeg -i F -f s16le` (forwards) or `-af areverse` (backwards) gives them.
struct VirtualWAV: Sendable {
    let frames: DecodedFrames
    let direction: PlaybackDirection
    let header: [UInt8]

    /// Bytes of the RIFF header before the first frame.
    static let headerBytes = 44
    /// Bytes made at most per piece of a response: about 0.37 s of stereo 44.1 kHz.
    static let pieceBytes = 64 * 1024

    /// - Throws: `HTTPError` 400 when the audio is too long for a WAV's 32-bit sizes.
    init(frames: DecodedFrames, direction: PlaybackDirection) throws {
        self.frames = frames
        self.direction = direction
        let format = frames.format
        let dataBytes = frames.frameCount * Int64(format.bytesPerFrame)
        guard dataBytes + 36 <= Int64(UInt32.max) else {
            throw HTTPError(.badRequest, message: "it is too long to be served as one WAV (4 GiB at most)")
        }
        var header: [UInt8] = []
        func text(_ value: String) { header += Array(value.utf8) }
        func little<Value: FixedWidthInteger>(_ value: Value) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        text("RIFF"); little(UInt32(36 + dataBytes)); text("WAVE")
        text("fmt "); little(UInt32(16)); little(UInt16(1)); little(UInt16(format.channelCount))
        little(UInt32(format.sampleRate)); little(UInt32(format.sampleRate * format.bytesPerFrame))
        little(UInt16(format.bytesPerFrame)); little(UInt16(16))
        text("data"); little(UInt32(dataBytes))
        self.header = header
    }

    /// Bytes in all.
    var size: Int { Self.headerBytes + Int(frames.frameCount) * frames.format.bytesPerFrame }

    /// Bytes `range` of the file (at most ``pieceBytes`` wide, inside ``size``), decoded now:
    /// call it off the request threads.
    func bytes(_ range: ClosedRange<Int>) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: range.count)
        if range.lowerBound < Self.headerBytes {
            buffer.writeBytes(header[range.lowerBound..<min(Self.headerBytes, range.upperBound + 1)])
        }
        guard range.upperBound >= Self.headerBytes else { return buffer }
        let frameBytes = frames.format.bytesPerFrame
        let firstByte = max(range.lowerBound, Self.headerBytes) - Self.headerBytes
        let lastByte = range.upperBound - Self.headerBytes
        let firstFrame = firstByte / frameBytes
        let frameCount = lastByte / frameBytes - firstFrame + 1
        let decoded = UnsafeMutableRawBufferPointer.allocate(byteCount: frameCount * frameBytes, alignment: 16)
        defer { decoded.deallocate() }
        try frames.copy(from: Int64(firstFrame), count: frameCount, direction: direction, into: decoded)
        let skip = firstByte - firstFrame * frameBytes
        buffer.writeBytes(UnsafeRawBufferPointer(rebasing: decoded[skip..<(skip + lastByte - firstByte + 1)]))
        return buffer
    }
}
