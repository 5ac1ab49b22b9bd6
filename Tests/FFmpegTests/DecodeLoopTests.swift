import Foundation
import Testing
import TestSupport
@testable import FFmpeg

/// The one packet reader and frame decoder driven directly: demux, decode, convert, as
/// FFmpeg's decode_audio.c does, and as the ffmpeg CLI decodes (no edit list's end applied).
@Suite(.runsProcesses) struct DecodeLoopTests {
    /// Decodes every packet of the best audio stream to interleaved s16 with the FFmpeg target alone.
    static func decode(_ path: String, channels: Resampler.Channels = .unchanged) throws -> [Int16] {
        let demuxer = try Demuxer(path: path)
        let stream = try demuxer.bestAudioStreamIndex()
        let decoder = try Decoder(demuxer: demuxer, streamIndex: stream)
        let loop = try FrameDecoder(decoder: decoder, reader: PacketReader(demuxer: demuxer, streamIndex: stream))
        let resampler = Resampler(channels: channels)
        let frame = try Frame()
        var samples: [Int16] = []
        while try loop.next(into: frame) {
            samples += Self.int16(try resampler.convert(frame))
        }
        samples += Self.int16(try resampler.flush())
        return samples
    }

    static func int16(_ bytes: UnsafeRawBufferPointer) -> [Int16] {
        Array(bytes.bindMemory(to: Int16.self))
    }

    @Test("equals ffmpeg's decode", arguments: ["mp3-vbrq4-xing-2ch-44100.mp3", "m4a-aac-6ch-48000.m4a",
                                                "flac-s24-2ch-96000.flac", "wav-pcm_f64le-1ch-22050.wav"])
    func equalsFFmpeg(_ name: String) async throws {
        let path = Fixtures.url(name).path
        #expect(try await Self.decode(path) == FFmpegOracle.samples(of: Fixtures.url(name), honouringStatedEnd: false))
        #expect(try await Self.decode(path, channels: .mixedToMono)
                == FFmpegOracle.samples(of: Fixtures.url(name), ["-ac", "1"], honouringStatedEnd: false))
    }

    @Test("gapless trimming is in the packets: MP3 encoder delay, MP4 priming flagged decode-only")
    func sideData() throws {
        let mp3 = try Demuxer(path: Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3").path)
        let packet = try Packet()
        #expect(try PacketReader(demuxer: mp3, streamIndex: 0).next(into: packet))
        #expect(packet.skipSamples.start == 1105)
        #expect(mp3.audioStream(at: 0).traits.needsPacketIndex && mp3.audioStream(at: 0).traits.cutMethod == .mp3Frames)
        let m4a = try Demuxer(path: Fixtures.url("m4a-aac-2ch-44100.m4a").path)
        #expect(try PacketReader(demuxer: m4a, streamIndex: 0).next(into: packet))
        #expect(packet.isDiscarded)
        let traits = m4a.audioStream(at: 0).traits
        #expect(traits.followsContainerDuration && traits.cutMethod == .mp4EditList)
        #expect(traits.seekExactness == .bitExactWithoutNoiseSubstitution && traits.prerollSamples == 2048)
    }

    @Test("stream parameters")
    func parameters() throws {
        let demuxer = try Demuxer(path: Fixtures.url("flac-s16-6ch-48000.flac").path)
        let stream = demuxer.audioStream(at: try demuxer.bestAudioStreamIndex())
        #expect(stream.codecName == "flac" && stream.traits.family == .flac && !stream.isLossy && stream.traits.containerStatesLength)
        #expect(stream.traits.cutMethod == .samples && stream.traits.prerollSamples == 0 && !stream.traits.needsPacketIndex)
        #expect(stream.sampleRate == 48000 && stream.channelCount == 6 && stream.channelLayoutName == "5.1")
        #expect(stream.statedDurationSamples == 9600)
        #expect(ChannelLayout(defaultFor: 2).name == "stereo")
        #expect(ChannelLayout.mono().channelCount == 1)
        #expect(ChannelLayout(named: "5.1", channelCount: 6).name == "5.1")
        #expect(ChannelLayout(named: "nonsense", channelCount: 3).channelCount == 3)
    }
}
