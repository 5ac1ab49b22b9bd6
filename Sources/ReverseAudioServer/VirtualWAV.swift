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
    /// Times the frames follow one another in the data: more than one for a seamless loop of
    /// the whole file (its last frame followed at once by its first, in the stream itself,
    /// where a player seeking back at the end would leave a gap).
    let laps: Int
    let header: [UInt8]

    /// Bytes of the RIFF header before the first frame.
    static let headerBytes = 44
    /// Bytes made at most per piece of a response: about 0.37 s of stereo 44.1 kHz.
    static let pieceBytes = 64 * 1024
    /// The most data a looping WAV holds: what a signed 32-bit size reads (3.4 hours of stereo
    /// 44.1 kHz), whatever reads it.
    static let loopingDataBytes = Int64(Int32.max) - 36

    /// - Parameter looping: the whole file over and over, as many laps as ``loopingDataBytes`` holds.
    /// - Throws: `HTTPError` 400 when the audio is too long for a WAV's 32-bit sizes.
    init(frames: DecodedFrames, direction: PlaybackDirection, looping: Bool = false) throws {
        self.frames = frames
        self.direction = direction
        let format = frames.format
        let lapBytes = frames.frameCount * Int64(format.bytesPerFrame)
        guard lapBytes + 36 <= Int64(UInt32.max) else {
            throw HTTPError(.badRequest, message: "it is too long to be served as one WAV (4 GiB at most)")
        }
        laps = looping ? Int(max(1, Self.loopingDataBytes / max(lapBytes, 1))) : 1
        let dataBytes = lapBytes * Int64(laps)
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

    /// Bytes of one lap: the file's frames once.
    private var lapBytes: Int { Int(frames.frameCount) * frames.format.bytesPerFrame }

    /// Bytes in all.
    var size: Int { Self.headerBytes + lapBytes * laps }

    /// Bytes `range` of the file (at most ``pieceBytes`` wide, inside ``size``), decoded now:
    /// call it off the request threads.
    func bytes(_ range: ClosedRange<Int>) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: range.count)
        if range.lowerBound < Self.headerBytes {
            buffer.writeBytes(header[range.lowerBound..<min(Self.headerBytes, range.upperBound + 1)])
        }
        guard range.upperBound >= Self.headerBytes else { return buffer }
        // The data's bytes, lap by lap: each lap's are the same frames.
        var first = max(range.lowerBound, Self.headerBytes) - Self.headerBytes
        let last = range.upperBound - Self.headerBytes
        while first <= last {
            let lapStart = first / lapBytes * lapBytes
            try append(first - lapStart...min(last - lapStart, lapBytes - 1), to: &buffer)
            first = lapStart + lapBytes
        }
        return buffer
    }

    /// Appends bytes `range` of one lap's frames.
    private func append(_ range: ClosedRange<Int>, to buffer: inout ByteBuffer) throws {
        let frameBytes = frames.format.bytesPerFrame
        let firstFrame = range.lowerBound / frameBytes
        let frameCount = range.upperBound / frameBytes - firstFrame + 1
        let decoded = UnsafeMutableRawBufferPointer.allocate(byteCount: frameCount * frameBytes, alignment: 16)
        defer { decoded.deallocate() }
        try frames.copy(from: Int64(firstFrame), count: frameCount, direction: direction, into: decoded)
        let skip = range.lowerBound - firstFrame * frameBytes
        buffer.writeBytes(UnsafeRawBufferPointer(rebasing: decoded[skip..<(skip + range.count)]))
    }
}
