import Foundation
import Testing
import TestSupport
@testable import FFmpeg

@Suite(.runsProcesses) struct MuxerTests {
    /// A WAV muxer with one 16-bit stereo stream at 8 kHz, header written.
    static func wav(at path: String) throws -> (Muxer, EncodingStream) {
        let muxer = try Muxer(path: path, formatName: "wav")
        let settings = Encoder.Settings(codecName: "pcm_s16le", sampleType: .s16, sampleRate: 8000,
                                        channelLayout: ChannelLayout(defaultFor: 2))
        let stream = try EncodingStream(muxer: muxer, settings: settings, inputType: .s16, path: path)
        try muxer.writeHeader()
        return (muxer, stream)
    }

    @Test("packets written out of order at byte positions make a valid WAV")
    func positionedWrites() async throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("out.wav").path
        let (muxer, _) = try Self.wav(at: path)
        let packet = try Packet()
        let dataStart = muxer.bytePosition
        let first: [Int16] = [1, -1, 2, -2]
        let second: [Int16] = [3, -3, 4, -4, 5, -5]
        // Second half first, then the first half before it.
        try muxer.seek(toByte: dataStart + 8)
        try second.withUnsafeBytes { try muxer.writePCM($0.baseAddress!, byteCount: 12, frames: 3, timestamp: 0, using: packet) }
        try muxer.seek(toByte: dataStart)
        try first.withUnsafeBytes { try muxer.writePCM($0.baseAddress!, byteCount: 8, frames: 2, timestamp: 3, using: packet) }
        try muxer.finish(atByte: dataStart + 20)
        #expect(try await FFmpegOracle.samples(of: URL(fileURLWithPath: path)) == first + second)
        let probe = try await FFmpegOracle.probe(URL(fileURLWithPath: path))
        #expect(probe.stream["codec_name"] as? String == "pcm_s16le")
        #expect(probe.stream["duration_ts"] as? Int == 5)
    }

    @Test("an encoder's stream: FLAC in frames of its own size, a short last frame, decoded back exactly",
          arguments: ["flac", "alac"])
    func encodedStream(_ codec: String) async throws {
        let folder = try TemporaryDirectory()
        let url = folder.file(codec == "flac" ? "out.flac" : "out.m4a")
        let muxer = try Muxer(path: url.path, formatName: codec == "flac" ? "flac" : "ipod")
        let settings = Encoder.Settings(codecName: codec, sampleType: .s16, sampleRate: 8000, channelLayout: ChannelLayout(defaultFor: 2))
        let stream = try EncodingStream(muxer: muxer, settings: settings, inputType: .s16, path: url.path)
        try muxer.writeHeader()
        // 10,007 frames in uneven pieces: the encoder still gets whole frames, then a short one.
        let samples = (0..<20_014).map { Int16(truncatingIfNeeded: ($0 * 7919) % 65_536) }
        var offset = 0
        for piece in [1, 999, 4096, 3000, 1911] {
            try samples[(offset * 2)..<((offset + piece) * 2)].withUnsafeBytes { try stream.append($0.baseAddress!, frames: piece) }
            offset += piece
        }
        try stream.finish()
        try muxer.finish()
        #expect(try await FFmpegOracle.samples(of: url) == samples)
        #expect(try await FFmpegOracle.probe(url).stream["codec_name"] as? String == codec)
    }

    @Test("creating a file in a missing folder fails with the path")
    func missingFolder() {
        #expect(throws: FFmpegError.self) {
            _ = try Muxer(path: "/nonexistent/out.wav", formatName: "wav")
        }
    }
}
