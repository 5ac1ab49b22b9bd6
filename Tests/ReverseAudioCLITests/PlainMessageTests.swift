import Foundation
import Testing
import TestSupport

/// Messages that say the true reason in words: no Foundation error dumps, no limit that is not
/// the one broken, no "Invalid argument" where a codec's limit is known, English counts, and
/// channel layouts named as ffmpeg names them (issue 28, item 15).
@Suite(.runsProcesses) struct PlainMessageTests {
    static let mono = Fixtures.url("wav-pcm_s16le-1ch-8000.wav")
    static let stereo = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")

    @Test("a batch whose output subfolder's name is taken by a file says so in words, naming it")
    func subfolderIsAFile() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("in/sub"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: directory.file("OUT"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.mono, to: directory.file("in/sub/a.wav"))
        try Data().write(to: directory.file("OUT/sub"))
        let result = try await CLI.run(["reverse", "in", "-o", "OUT"], in: directory.url)
        #expect(result.status == 1, "\(result.errorText)")
        #expect(result.errorReports == ["reverse-audio: error: OUT/sub: cannot create output: a file has that name, not a folder"],
                "\(result.errorText)")
    }

    @Test("--samples-per-pixel past its largest value names the range, not only its lower end")
    func samplesPerPixelRange() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["waveform", Self.mono.path, directory.file("w.dat").path, "--samples-per-pixel", "4294967295"])
        expectUsageError(result, naming: "--samples-per-pixel")
        #expect(result.errorText.contains("must be at most 2147483647 (the .dat format's largest), not 4294967295"), "\(result.errorText)")
    }

    @Test("a task index that is a number too large says so, not 'not a number'")
    func shardIndexTooLarge() async throws {
        let directory = try TemporaryDirectory()
        var environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SLURM_") }
        environment["SLURM_ARRAY_TASK_ID"] = "9223372036854775807"
        environment["SLURM_ARRAY_TASK_COUNT"] = "4"
        let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path,
                                           ["reverse", Self.mono.path, "-o", directory.file("out").path, "--shard", "auto"],
                                           environment: environment)
        #expect(result.status == 64, "\(result.errorText)")
        #expect(result.errorText.contains("SLURM_ARRAY_TASK_ID is 9223372036854775807, too large") && !result.errorText.contains("not a number"),
                "\(result.errorText)")
    }

    @Test("more channels than FLAC, ALAC or AAC hold: the codec's limit, not 'Invalid argument'",
          arguments: [("flac", "FLAC", []), ("m4a", "ALAC", []), ("m4a", "AAC", ["--codec", "aac"])])
    func tooManyChannels(_ ext: String, _ codec: String, _ options: [String]) async throws {
        let directory = try TemporaryDirectory()
        let input = directory.file("wide.wav")
        let made = try await ProcessRunner.run("sox", ["-n", "-c", "64", "-r", "8000", "-b", "16", input.path, "synth", "0.05", "sine", "440"])
        try #require(made.status == 0, "\(made.errorText)")
        let result = try await CLI.run(["convert", input.path, directory.file("out.\(ext)").path] + options)
        expectFailure(result, naming: "out.\(ext)")
        #expect(result.errorText.contains("\(codec) holds at most 8 channels and the audio has 64") && !result.errorText.contains("Invalid argument"),
                "\(result.errorText)")
        #expect(directory.contents == ["wide.wav"])
    }

    @Test("one channel is '1 channel'")
    func oneChannel() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["join", Self.mono.path, Self.stereo.path, "-o", directory.file("j.wav").path])
        #expect(result.status != 0)
        #expect(result.errorText.contains("unlike the first file's 8000 Hz, 1 channel;") && !result.errorText.contains("1 channels"),
                "\(result.errorText)")
    }

    @Test("info and list name a one-channel file that places no channel 'mono', as ffmpeg does")
    func monoAsFFmpegNamesIt() async throws {
        let ffmpeg = try await ProcessRunner.run("ffmpeg", ["-hide_banner", "-i", Self.mono.path])
        try #require(ffmpeg.errorText.contains("8000 Hz, mono,"), "the oracle: \(ffmpeg.errorText)")
        let info = try await CLI.run(["info", Self.mono.path])
        #expect(info.outputText.contains("channels     1 (mono)"), "\(info.outputText)")
        let directory = try TemporaryDirectory()
        try FileManager.default.copyItem(at: Self.mono, to: directory.file("m.wav"))
        let list = try await CLI.run(["list", directory.url.path])
        #expect(list.outputLines.contains { $0.hasPrefix("m.wav") && $0.hasSuffix("1 (mono)") }, "\(list.outputText)")
    }
}
