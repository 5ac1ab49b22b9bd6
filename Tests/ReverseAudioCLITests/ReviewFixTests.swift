import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Faults found by reviewing playback, editing and video: each test fails on the behaviour it
/// guards against.
@Suite(.runsProcesses) struct ReviewFixTests {
    @Test("play --to-file with a loop and no end is refused before writing (it would fill the disk)",
          arguments: [["--loop"], ["--events", "0.1:loop=0.1-0.2"]])
    func endlessLoop(_ options: [String]) async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(["play", Fixtures.url("wav-pcm_s16le-2ch-44100.wav").path, "--to-file",
                                  directory.file("out.wav").path] + options)
        expectFailure(result, naming: "a loop never ends")
        #expect(directory.contents.isEmpty)
    }

    @Test("play --to-file never replaces the file it plays, even with -y")
    func renderOverInput() async throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture("wav-pcm_s16le-2ch-44100.wav", into: directory)
        let before = try Data(contentsOf: input)
        let result = try await CLI.run(["play", input.path, "--to-file", input.path, "-y", "--reverse"])
        expectFailure(result, naming: input.lastPathComponent)
        #expect(try Data(contentsOf: input) == before)
    }

    @Test("an M4A cut copied packet for packet into a FIFO: the reader gets a whole, exact file")
    func m4aCutIntoFIFO() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("cut.m4a")
        try #require(mkfifo(fifo.path, 0o644) == 0)
        let input = Fixtures.url("m4a-aac-nopns-2ch-44100.m4a")
        let received = directory.file("received.m4a")
        let result = try await PipeTests.shell(
            "cat '\(fifo.path)' > '\(received.path)' & \"$RA\" trim '\(input.path)' '\(fifo.path)' --start 2000s --end 12000s -y --verbose; wait")
        #expect(result.status == 0, "\(result.errorText)")
        #expect(result.errorText.contains("copied"), "\(result.errorText)")
        let decoded = try await FFmpegOracle.samples(of: received)
        let slice = try await FFmpegOracle.samples(of: input, ["-af", "atrim=start_sample=2000:end_sample=12000"])
        #expect(decoded.count >= slice.count && Array(decoded.prefix(slice.count)) == slice)
        #expect(Set(directory.contents) == ["cut.m4a", "received.m4a"])
    }

    @Test("SIGINT stops trim mid-way: exit 130, no output, no partial file")
    func interruptTrim() async throws {
        let directory = try TemporaryDirectory()
        let process = Process()
        process.executableURL = BuiltProducts.reverseAudio
        // Re-encoding four minutes of MP3 takes long enough to be stopped half-way.
        process.arguments = ["trim", try await LongInputs.mp3FourMinutes().path, directory.file("cut.mp3").path, "--reencode"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Started once its temporary file exists.
        let deadline = Date().addingTimeInterval(20)
        while !directory.contents.contains(where: { $0.hasSuffix(".partial") }) && process.isRunning && Date() < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        process.interrupt()
        await process.exited()
        #expect(process.terminationStatus == 130)
        #expect(directory.contents.isEmpty, "left behind: \(directory.contents)")
    }
}
