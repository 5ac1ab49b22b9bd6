import Foundation
import Testing
import TestSupport

/// `play` on a sound device, through the real ALSA library: its `file` plugin captures every
/// frame the device is given (its slave is `null`, so it takes them as fast as they come), and
/// that capture must equal what `--to-file` renders for the same options.
@Suite(.runsProcesses) struct PlaybackDeviceTests {
    static func capture(_ input: URL, _ options: [String], in directory: TemporaryDirectory) async throws -> [Int16] {
        let raw = directory.file("capture-\(UUID().uuidString).raw")
        let result = try await CLI.run(["play", input.path, "--device", "file:FILE=\(raw.path),FORMAT=raw"] + options)
        try #require(result.status == 0, "\(result.errorText)")
        #expect(result.outputLines.last?.hasPrefix("played ") == true, "\(result.outputText)")
        return FFmpegOracle.int16Array(try Data(contentsOf: raw))
    }

    static func rendered(_ input: URL, _ options: [String], in directory: TemporaryDirectory) async throws -> [Int16] {
        let output = directory.file("rendered-\(UUID().uuidString).wav")
        let result = try await CLI.run(["play", input.path, "--to-file", output.path] + options)
        try #require(result.status == 0, "\(result.errorText)")
        return try await FFmpegOracle.samples(of: output)
    }

    @Test("what ALSA's file plugin captures equals the --to-file rendering (toggles, seeks, loops, a minute of VBR MP3)")
    func captureEqualsRendering() async throws {
        let directory = try TemporaryDirectory()
        let mp3 = try await SignalFiles.shared("minute-v9.mp3", seconds: 60, codecArguments: ["-c:a", "libmp3lame", "-q:a", "9"])
        let cases: [(URL, [String])] = [
            (mp3, ["--reverse"]),
            (mp3, ["--from", "40", "--events", "5:toggle;12:toggle;15:seek=55;20:loop=10-13.5;31:reverse;40:noloop;44:seek=0:30",
                   "--duration", "50"]),
            // A 0.2 s loop across a chunk boundary (frame 131072), backwards, about 15 wraps.
            (mp3, ["--reverse", "--loop-start", "2.9", "--loop-end", "3.1", "--duration", "3"]),
            (Fixtures.url("flac-s16-6ch-48000.flac"), ["--events", "0.3:toggle;0.5:toggle", "--duration", "1.2"]),
            (Fixtures.url("wav-pcm_s24le-2ch-48000.wav"), ["--reverse"]),
        ]
        for (input, options) in cases {
            let captured = try await Self.capture(input, options, in: directory)
            let expected = try await Self.rendered(input, options, in: directory)
            #expect(!expected.isEmpty)
            #expect(captured.count == expected.count, "\(input.lastPathComponent) \(options)")
            #expect(captured == expected, "\(input.lastPathComponent) \(options)")
        }
    }

    @Test("a whole-file reverse play on a device equals areverse")
    func deviceReverseIsAreverse() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("mp3-vbrq4-xing-2ch-44100.mp3")
        #expect(try await Self.capture(input, ["--reverse"], in: directory) == FFmpegOracle.reversedSamples(of: input))
    }

    @Test("a device ALSA does not know: one line naming it, suggesting --to-file, non-zero exit")
    func missingDevice() async throws {
        let result = try await CLI.run(["play", Fixtures.url("flac-s16-2ch-44100.flac").path, "--device", "no-such-pcm"])
        expectFailure(result, naming: "no-such-pcm")
        #expect(result.errorText.contains("--to-file"))
    }

    @Test("bad input on a device: no audio, unreadable, a marker past the end, a backwards loop: one-line errors",
          arguments: [
            (["bad-noaudio.mp4"], "bad-noaudio.mp4"),
            (["bad-text.mp3"], "bad-text.mp3"),
            (["bad-empty.wav"], "bad-empty.wav"),
            (["no-such-file.flac"], "no-such-file.flac"),
            (["flac-s16-2ch-44100.flac", "--loop-start", "0.5", "--loop-end", "3"], "--loop-end"),
            (["flac-s16-2ch-44100.flac", "--from", "2"], "--from"),
            (["flac-s16-2ch-44100.flac", "--loop-start", "0.6", "--loop-end", "0.2"], "--loop-start"),
            (["flac-s16-2ch-44100.flac", "--loop-start", "0.2", "--loop-end", "0.2"], "--loop-start"),
          ])
    func badInput(_ arguments: [String], _ named: String) async throws {
        let input = Fixtures.url(arguments[0]).path
        for sink in [["--device", "null"], ["--to-file", "/tmp/reverse-audio-never-written.wav"]] {
            let result = try await CLI.run(["play", input] + arguments.dropFirst() + sink)
            // A backwards loop is known from the command line: a usage error (issue 20).
            let backwards = arguments.contains("--loop-start") && !arguments.contains("3")
            if backwards { expectUsageError(result, naming: named) } else { expectFailure(result, naming: named) }
        }
        #expect(!FileManager.default.fileExists(atPath: "/tmp/reverse-audio-never-written.wav"))
    }
}
