import Foundation
import Testing
@testable import ReverseAudioCore
import ReverseAudioTesting

/// The decorators on frames in memory (no FFmpeg, no file): each one's frames, length and seeks
/// against what it is defined to give, built from the counting source whose every sample says
/// where it came from.
@Suite struct DecoratorInMemoryTests {

    static let counting = MemorySource.countingSamples(frames: 10_000, channelCount: 2)

    @Test("a range gives its frames on a timeline of its own, its length the range's, its chunks positioned from 0")
    func range() throws {
        let range = MemorySource.counting(frames: 10_000, channelCount: 2).range(2_500..<7_000, name: "memory")
        #expect(range.length == PCMLength(frames: 4_500, source: .range))
        let first = try #require(try range.read(maximumFrames: 10))
        #expect(first.position == 0)
        try range.seek(to: 0, endingAt: nil)
        #expect(try range.remainingSamples(step: 333) == Array(Self.counting[5_000..<14_000]))
    }

    @Test("a range seeks on its own timeline, and a seek past its end reaches its end")
    func rangeSeek() throws {
        let range = MemorySource.counting(frames: 10_000).range(1_000..<2_000, name: "memory")
        #expect(try range.seek(to: 400, endingAt: nil).reached == 400)
        #expect(try range.remainingSamples().first == 1_400)
        #expect(try range.seek(to: 5_000, endingAt: nil).reached == 1_000)
        #expect(try range.read(maximumFrames: 10) == nil)
    }

    @Test("a range to the end (upper bound Int64.max) takes the source's length less its start")
    func rangeToEnd() throws {
        let range = MemorySource.counting(frames: 10_000).range(9_000..<Int64.max, name: "memory")
        #expect(range.length.frames == 1_000)
        #expect(try range.remainingSamples() == Array(MemorySource.countingSamples(frames: 10_000)[9_000...]))
    }

    @Test("a range past the source's end is an error naming the file and where the source ended")
    func rangePastEnd() throws {
        let range = MemorySource.counting(frames: 10_000).range(12_000..<13_000, name: "in.wav")
        #expect {
            _ = try range.remainingSamples()
        } throws: { error in
            guard case ReverseAudioError.range(.rangePastEnd(let path, let frame, let isStart, let length, _)) = error else { return false }
            return path == "in.wav" && frame == 12_000 && isStart && length == 10_000
        }
        let loose = MemorySource.counting(frames: 10_000).range(9_000..<13_000, name: "in.wav", requiringWholeRange: false)
        #expect(try loose.remainingSamples().count == 1_000)
    }

    @Test("one channel of three, as mono: every third sample from the channel's own", arguments: [0, 1, 2])
    func channel(_ index: Int) throws {
        let source = MemorySource.counting(frames: 4_000, channelCount: 3)
        let mono = try source.channel(index, name: "memory")
        #expect(mono.format.channelCount == 1)
        let samples = try mono.remainingSamples()
        #expect(samples == stride(from: index, to: 12_000, by: 3).map { Int16($0) })
    }

    @Test("a channel that is not there is an error naming the file and the channel count")
    func channelOutOfRange() throws {
        #expect {
            _ = try MemorySource.counting(frames: 10, channelCount: 2).channel(2, name: "in.flac")
        } throws: { error in
            guard case ReverseAudioError.input(.channelOutOfRange(let path, let channel, let count)) = error else { return false }
            return path == "in.flac" && channel == 2 && count == 2
        }
    }

    @Test("sources followed by others: every frame of each in turn, the length their sum, seeks across the joins")
    func concatenation() throws {
        let first = MemorySource(samples: [1, 2, 3])
        let joined = try first.followed(by: [MemorySource(samples: [4, 5]), MemorySource(samples: []), MemorySource(samples: [6, 7, 8, 9])])
        #expect(joined.length.frames == 9)
        #expect(try joined.remainingSamples(step: 2) == [1, 2, 3, 4, 5, 6, 7, 8, 9])
        #expect(try joined.seek(to: 4, endingAt: nil).reached == 4)
        #expect(try joined.remainingSamples() == [5, 6, 7, 8, 9])
    }

    @Test("a source of another format cannot follow")
    func concatenationMismatch() throws {
        #expect(throws: ReverseAudioError.self) {
            _ = try MemorySource(samples: [1], channelCount: 1).followed(by: [MemorySource(samples: [1, 2], channelCount: 2)])
        }
    }

    @Test("silence: the frames asked for, every byte the format's zero")
    func silence() throws {
        let silence = SilenceSource(frames: 2_345, format: PCMFormat(sampleRate: 8_000, channelCount: 2))
        #expect(silence.length.frames == 2_345)
        let samples = try silence.remainingSamples(step: 1_000)
        #expect(samples.count == 4_690 && samples.allSatisfy { $0 == 0 })
    }

    @Test("gain: −6.0206 dB halves every sample, +6.0206 dB doubles it and clips at full scale")
    func gain() throws {
        let halved = try MemorySource(samples: [1000, -1000, 32767, -32768]).gain(decibels: -20 * log10(2)).remainingSamples()
        #expect(halved == [500, -500, 16384, -16384])
        let doubled = try MemorySource(samples: [1000, -1000, 20000, -20000]).gain(decibels: 20 * log10(2)).remainingSamples()
        #expect(doubled == [2000, -2000, 32767, -32768])
    }

    @Test("a linear fade-in rises from silence over its frames, then leaves the rest alone; a fade-out mirrors it",
          arguments: [Fade.End.in, .out])
    func fade(_ end: Fade.End) throws {
        let source = MemorySource(samples: [Int16](repeating: 10_000, count: 200))
        let faded = try source.fade(end, frames: 100, shape: .triangle, mirrored: false).remainingSamples()
        let ramp = (0..<100).map { Int16((10_000 * Double($0) / 100).rounded()) }
        let heard = end == .in ? faded : faded.reversed()
        let expectedRamp = end == .in ? ramp : (1...100).map { Int16((10_000 * Double($0) / 100).rounded()) }
        #expect(Array(heard.prefix(100)).map { abs(Int($0)) }.elementsEqual(expectedRamp.map { Int($0) }, by: { abs($0 - $1) <= 1 }))
        #expect(heard.suffix(100).allSatisfy { $0 == 10_000 })
    }

    @Test("a fade mirrored (after a reversal) fades the other end")
    func fadeMirrored() throws {
        let source = MemorySource(samples: [Int16](repeating: 10_000, count: 200))
        let faded = try source.fade(.in, frames: 100, shape: .triangle, mirrored: true).remainingSamples()
        #expect(faded.prefix(100).allSatisfy { $0 == 10_000 })
        #expect(faded.last.map { $0 < 200 } == true)
    }
}
