import Foundation
import Testing
import TestSupport
@testable import FFmpeg

@Suite struct MuxerTests {
    @Test("packets written out of order at byte positions make a valid WAV")
    func positionedWrites() throws {
        let folder = try TemporaryDirectory()
        let path = folder.file("out.wav").path
        let muxer = try Muxer(path: path, sampleRate: 8000, channelLayout: ChannelLayout(defaultFor: 2))
        try muxer.writeHeader(allowRF64: false)
        let dataStart = muxer.bytePosition
        let first: [Int16] = [1, -1, 2, -2]
        let second: [Int16] = [3, -3, 4, -4, 5, -5]
        // Second half first, then the first half before it.
        try muxer.seek(toByte: dataStart + 8)
        try second.withUnsafeBufferPointer { try muxer.write($0, frames: 3) }
        try muxer.seek(toByte: dataStart)
        try first.withUnsafeBufferPointer { try muxer.write($0, frames: 2) }
        try muxer.finish(atByte: dataStart + 20)
        #expect(try FFmpegOracle.samples(of: URL(fileURLWithPath: path)) == first + second)
        let probe = try FFmpegOracle.probe(URL(fileURLWithPath: path))
        #expect(probe.stream["codec_name"] as? String == "pcm_s16le")
        #expect(probe.stream["duration_ts"] as? Int == 5)
    }

    @Test("creating a file in a missing folder fails with the path")
    func missingFolder() {
        #expect(throws: FFmpegError.self) {
            _ = try Muxer(path: "/nonexistent/out.wav", sampleRate: 44100, channelLayout: ChannelLayout.mono())
        }
    }
}
