import Foundation
import ReverseAudio

// The Swift examples of the README and of the DocC getting-started article, verbatim inside
// functions, so that they compile with every build of the tests; DocumentationTests checks the
// documents still show exactly these lines.
// None of these functions is called.

enum ReadmeSnippets {
    struct Meter { func update(_ samples: [Int16]) { _ = samples } }
    struct Player { func schedule(_ samples: [Int16]) { _ = samples } }

    static func convert() async throws {
        let result = try await AudioConverter.convert(
            URL(fileURLWithPath: "song.mp3"), to: URL(fileURLWithPath: "song-REVERSED.wav"),
            options: ConversionOptions(channels: .all, reverse: true),
            progress: { fraction in print("\(Int(fraction * 100))%") })   // 0...1, ~1% steps, 1.0 when in place
        print(result.frames, result.format, result.warnings)
    }

    static func decode(url: URL, meter: Meter) async throws {
        let song = try SampleConverter(AudioFileSource(url: url), sampleFormat: .s16, mixingToMono: true)
        while let block = try song.readBlock(frames: 4096) {   // SampleBuffer: its format, interleaved samples, position
            meter.update(block.samples)
        }
        for try await block in AudioBlocks(frames: 4096, { flag in        // the same, for Swift concurrency
            try SampleConverter(AudioFileSource(url: url, cancellation: flag), sampleFormat: .s16)
        }) { meter.update(block.samples) }
    }

    static func reversedBlocks(url: URL, player: Player) throws {
        let reversed = ReversedSource(try SampleConverter(AudioFileSource(url: url), sampleFormat: .s16))
        while let block = try reversed.readBlock(frames: 4096) {   // first block first; the last may be short
            player.schedule(block.samples)
        }
    }

    static func pipeline(url: URL) throws {
        let song = try AudioFileSource(url: url)                    // the stream's own samples: 24-bit stays 24-bit
        let part = RangeSource(song, frames: 441_000..<882_000)     // frames 10 s to 20 s at 44.1 kHz, exactly
        let reversed = ReversedSource(part)
        let writer = try AudioFileWriter(url: URL(fileURLWithPath: "part-reversed.flac"), format: reversed.format)
        try transfer(reversed, to: writer, progress: { print($0) }) // the file appears only once complete
    }

    static func roundTrip(url: URL, documents: URL, reversedURL: URL) async throws {
        let report = try await RoundTrip.run(url, into: documents)   // NAME-REVERSED.wav, NAME-REVERSED-REVERSED.wav
        print(report.verified ? "identical" : report.mismatch!)

        // Returns at once and works on a thread of its own: wait for completion (or use the async form).
        AudioReverser().reverseAudio(url: url, destinationURL: documents.appendingPathComponent("REVERSED.wav"),
                                     progress: { value in print(value) },            // Double, 0...1
                                     completion: { success, error in print(success, error as Any) })
        let result = try await AudioReverser().reverseAudio(url: url, destinationURL: reversedURL)
        print(result.frames)
    }

    static func seeking(url: URL) throws {
        let source = try AudioFileSource(url: url)
        let seek = try source.seek(to: 441_000)                     // .required, .reached
        print(seek.reached, try source.resolveLength())             // the exact length, and how it was known
        while let chunk = try source.read(maximumFrames: 4096) { print(chunk.position, chunk.frameCount) }
    }

    // Sources/ReverseAudio/ReverseAudio.docc/GettingStarted.md

    static func gettingStartedReverse() async throws {
        let result = try await AudioConverter.convert(
            URL(fileURLWithPath: "song.mp3"), to: URL(fileURLWithPath: "song-REVERSED.flac"),
            options: ConversionOptions(reverse: true, sampleFormat: nil),   // nil: keep the input's samples
            progress: { fraction in print(fraction) })
        print(result.frames, result.format, result.conversions, result.temporaryBytes)
    }

    static func gettingStartedDecode() throws {
        let take = try AudioFileSource(url: URL(fileURLWithPath: "take.flac"))
        while let block = try take.readBlock(frames: 4096) {
            let samples = try block.values(as: Int32.self)   // s24 and s32 are Int32
            print(block.position, samples.count)
        }
    }

    static func gettingStartedRange() throws {
        let clip = RangeSource(try AudioFileSource(url: URL(fileURLWithPath: "long.mp3")), frames: 1_323_000..<1_367_100)
        let options = ConversionOptions(range: try TimeRange(start: .seconds(30), duration: .seconds(1)))
        _ = (clip, options)   // 30 s to 31 s at 44.1 kHz, twice
    }

    static func video() async throws {
        let result = try await VideoReverser.reverse(
            URL(fileURLWithPath: "clip.mp4"), to: URL(fileURLWithPath: "clip-reversed.mp4"),
            options: VideoOptions(boomerang: false, quality: .crf(18)),
            progress: { fraction in print(fraction) })
        print(result.outputFrames, result.spilledFrames)
    }
}
