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

    static func decode(url: URL, meter: Meter) throws {
        let song = try AudioReader(url: url, sampleFormat: .s16, channels: .mix)
        while let chunk = try song.read(maximumFrames: 4096) {   // lent until the next read or seek
            meter.update(Array(chunk.samples(as: Int16.self)))
        }
    }

    static func reversedBlocks(url: URL, player: Player) async throws {
        for try await block in AudioReverser().reversedBlocks(of: url, frames: 4096) {   // first block first
            player.schedule(block.samples)                                              // SampleBuffer: 16-bit, positioned
        }
    }

    static func sources(song: URL, drums: URL, out: URL) async throws {
        let intro = try AudioReader(url: song).range(0..<441_000)        // any PCMSource: a file's, a part, your own
        let beat = try AudioReader(url: drums).applying(Gain(decibels: -6))
        _ = try await AudioConverter.convert(try intro.reversed().followed(by: [beat]), to: out)
        let renderer = try PlaybackRenderer(source: try AudioReader(url: song).channel(0), direction: .reverse)
        _ = renderer
    }

    static func effects(url: URL) async throws {
        var options = ConversionOptions(reverse: true, sampleFormat: nil)   // nil: the input's own samples
        options.range = try TimeRange(start: .seconds(10), end: .seconds(20))
        options.effects = [Gain(decibels: -3), Fade(.in, length: .seconds(0.5)), Fade(.out, length: .seconds(2))]
        _ = try await AudioConverter.convert(url, to: URL(fileURLWithPath: "part-reversed.flac"), options: options)
    }

    static func failures(url: URL, options: ConversionOptions) async throws {
        do {
            _ = try await AudioConverter.convert(url, to: URL(fileURLWithPath: "part.wav"), options: options)
        } catch ReverseAudioError.range(.rangePastEnd(_, _, _, let length, _)) {
            print("the file holds \(length) frames")                 // structured payloads, by domain
        } catch let error as ReverseAudioError {
            print(error)                                               // one line: the file and the reason
        }
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
        let source = try AudioReader(url: url)                      // the file's own samples: 24-bit stays 24-bit
        let seek = try source.seek(to: 441_000)                     // .required, .reached
        print(seek.reached, source.length)                          // the exact length, and how it was known
        while let chunk = try source.read(maximumFrames: 4096) { print(chunk.position, chunk.frameCount) }
    }

    // Sources/ReverseAudio/ReverseAudio.docc/GettingStarted.md

    static func gettingStartedReverse() async throws {
        let result = try await AudioConverter.convert(
            URL(fileURLWithPath: "song.mp3"), to: URL(fileURLWithPath: "song-REVERSED.flac"),
            options: ConversionOptions(reverse: true, sampleFormat: nil),   // nil: keep the input's samples
            progress: { fraction in print(fraction) })
        print(result.frames, result.format, result.conversions, result.warnings)
    }

    static func gettingStartedDecode() throws {
        let take = try AudioReader(url: URL(fileURLWithPath: "take.flac"))
        while let chunk = try take.read(maximumFrames: 4096) {
            let samples = chunk.samples(as: Int32.self)   // s24 and s32 are Int32
            print(chunk.position, samples.count)
        }
    }

    static func gettingStartedRange() throws {
        let clip = try AudioReader(url: URL(fileURLWithPath: "long.mp3"), range: try TimeRange(start: .seconds(30), duration: .seconds(1)))
        let options = ConversionOptions(range: try TimeRange(start: .seconds(30), duration: .seconds(1)))
        _ = (clip, options)   // 30 s to 31 s, twice
    }

    static func video() async throws {
        let result = try await VideoReverser.reverse(
            URL(fileURLWithPath: "clip.mp4"), to: URL(fileURLWithPath: "clip-reversed.mp4"),
            options: VideoOptions(boomerang: false, quality: .crf(18)),
            progress: { fraction in print(fraction) })
        print(result.outputFrames, result.duration)
    }
}
