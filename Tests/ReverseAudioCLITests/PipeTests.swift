import Foundation
import Testing
import TestSupport

/// `-` as input and output, so the tool sits in a pipeline as `sox -` and `ffmpeg -i -` do.
@Suite(.runsProcesses) struct PipeTests {
    /// Runs `script` in sh with the tool as $RA; standard output is captured.
    static func shell(_ script: String) async throws -> ProcessResult {
        try await ProcessRunner.run("/bin/sh", ["-c", script], environment: ["RA": BuiltProducts.reverseAudio.path,
                                                                        "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
    }

    @Test("cat in | convert - - --reverse --format wav | ffmpeg -i - equals areverse; forwards and ranges too",
          arguments: ["mp3-vbrq4-xing-2ch-44100.mp3", "flac-s24-2ch-96000.flac", "m4a-aac-faststart-2ch-44100.m4a",
                      "adts-aac-2ch-44100.aac", "wav-pcm_u8-2ch-22050.wav"])
    func pipeline(_ name: String) async throws {
        let input = Fixtures.url(name).path
        let decode = "| ffmpeg -nostdin -v error -i - -f s16le -acodec pcm_s16le -"
        let reversed = try await Self.shell("cat '\(input)' | \"$RA\" convert - - --reverse --format wav \(decode)")
        #expect(reversed.status == 0, "\(reversed.errorText)")
        await #expect(FFmpegOracle.int16Array(reversed.standardOutput) == (try FFmpegOracle.reversedSamples(of: Fixtures.url(name))))
        let forward = try await Self.shell("cat '\(input)' | \"$RA\" convert - - \(decode)")
        await #expect(FFmpegOracle.int16Array(forward.standardOutput) == (try FFmpegOracle.samples(of: Fixtures.url(name))))
        let range = try await Self.shell("cat '\(input)' | \"$RA\" convert - - --start 1000s --end 5000s \(decode)")
        await #expect(FFmpegOracle.int16Array(range.standardOutput)
                == (try FFmpegOracle.samples(of: Fixtures.url(name), ["-af", "atrim=start_sample=1000:end_sample=5000"])))
        #expect(reversed.errorText.contains("reversed"), "the report goes to standard error: \(reversed.errorText)")
    }

    @Test("a reversal from a pipe into an encoded file reports its temporary bytes and leaves none")
    func pipeToFlac() async throws {
        let directory = try TemporaryDirectory()
        let input = Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3")
        let output = directory.file("out.flac")
        let result = try await Self.shell("cat '\(input.path)' | \"$RA\" convert - '\(output.path)' --reverse --verbose")
        #expect(result.status == 0, "\(result.errorText)")
        #expect(try await FFmpegOracle.samples(of: output) == FFmpegOracle.reversedSamples(of: input))
        #expect(result.errorText.contains("temporary files: ") && !result.errorText.contains("temporary files: 0 "))
        #expect(directory.contents == ["out.flac"])
    }
}
