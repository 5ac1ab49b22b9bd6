import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Inputs and outputs `convert` cannot use: one error line, no output, no leftovers.
@Suite(.runsProcesses) struct BadInputTests {
    static let goodInput = "flac-s16-1ch-8000.flac"

    /// One unusable input or output, arranged in a fresh folder.
    enum BadConversion: String, CaseIterable, Sendable {
        case missingInput, inputIsFolder, emptyFile, textFile, truncatedMoovAtEnd, noAudioStream
        case outputFolderMissing, outputParentIsFile, outputIsInput

        /// Prepares `directory`; returns the input, the output and the name the error must mention.
        func arrange(in directory: TemporaryDirectory) throws -> (input: URL, output: URL, named: String) {
            let output = directory.file("out.wav")
            let good = Fixtures.url(BadInputTests.goodInput)
            func fixture(_ name: String) -> (URL, URL, String) { (Fixtures.url(name), output, name) }
            switch self {
            case .missingInput: return (directory.file("missing.mp3"), output, "missing.mp3")
            case .inputIsFolder:
                try FileManager.default.createDirectory(at: directory.file("folder.mp3"), withIntermediateDirectories: false)
                return (directory.file("folder.mp3"), output, "folder.mp3")
            case .emptyFile: return fixture("bad-empty.wav")
            case .textFile: return fixture("bad-text.mp3")
            case .truncatedMoovAtEnd: return fixture("bad-truncated-30pct-moovatend.m4a")
            case .noAudioStream: return fixture("bad-noaudio.mp4")
            case .outputFolderMissing: return (good, directory.file("missing/out.wav"), "missing/out.wav")
            case .outputParentIsFile:
                try Data("a file".utf8).write(to: directory.file("plain.txt"))
                return (good, directory.file("plain.txt/out.wav"), "plain.txt/out.wav")
            case .outputIsInput:
                let copy = try copyFixture(BadInputTests.goodInput, into: directory, as: "same.flac")
                return (copy, copy, "same.flac")
            }
        }
    }

    @Test("an unusable input or output fails cleanly", arguments: BadConversion.allCases, [false, true])
    func failsCleanly(_ bad: BadConversion, _ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        let (input, output, named) = try bad.arrange(in: directory)
        let before = directory.contents
        let result = try await CLI.convert(input, output, reverse: reverse)
        expectFailure(result, naming: named)
        #expect(directory.contents == before, "no output and no partial file")
    }

    @Test("an output folder without write permission fails cleanly",
          .enabled(if: getuid() != 0, "skipped: root may write in any folder"))
    func readOnlyOutputFolder() async throws {
        let directory = try TemporaryDirectory()
        let locked = directory.file("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: locked.path) }
        let result = try await CLI.convert(Fixtures.url(Self.goodInput), locked.appendingPathComponent("out.wav"), reverse: false)
        expectFailure(result, naming: "locked/out.wav")
        #expect(folderContents(locked).isEmpty)
    }

    @Test("a truncated file that still decodes: a warning, and ffmpeg's samples",
          arguments: ["bad-truncated-30pct.mp3", "bad-truncated-30pct.flac", "bad-truncated-30pct-faststart.m4a"],
          [false, true])
    func truncatedButDecodable(_ name: String, _ reverse: Bool) async throws {
        let input = Fixtures.url(name)
        let directory = try TemporaryDirectory()
        let output = directory.file("out.wav")
        let result = try await CLI.convert(input, output, reverse: reverse)
        #expect(result.status == 0)
        #expect(result.errorReports.isEmpty, "\(result.errorText)")
        #expect(result.warningReports.contains { $0.contains(name) && $0.contains("truncated") }, "\(result.errorText)")
        let expected = await reverse ? try FFmpegOracle.reversedSamples(of: input) : try FFmpegOracle.samples(of: input)
        #expect(!expected.isEmpty)
        #expect(try await FFmpegOracle.samples(of: output) == expected)
        #expect(directory.contents == ["out.wav"])
    }
}
