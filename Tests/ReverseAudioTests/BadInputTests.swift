import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// Every kind of bad input gives a one-line error that names the file, and leaves nothing behind.
@Suite(.runsProcesses) struct BadInputTests {
    static let isRoot = getuid() == 0

    /// Converts (and reverses) `input` into a fresh folder; returns the error and the folder.
    static func failure(converting input: URL, to name: String = "out.wav", options: ConversionOptions = ConversionOptions(reverse: true),
                        directory: TemporaryDirectory? = nil) throws -> (error: ReverseAudioError, folder: TemporaryDirectory) {
        let folder = try directory ?? TemporaryDirectory()
        do {
            _ = try AudioConverter.convert(input, to: folder.file(name), options: options,
                                           cancellation: CancellationFlag(), progress: nil)
        } catch let error as ReverseAudioError {
            return (error, folder)
        }
        throw FFmpegOracle.Failure(description: "converting \(input.lastPathComponent) did not fail")
    }

    static func expectOneLine(_ error: ReverseAudioError, naming name: String) {
        #expect(!error.description.contains("\n"))
        #expect(error.description.contains(name), "\(error.description)")
    }

    @Test("unreadable inputs", arguments: [
        ("missing.mp3", "no such file"), ("bad-empty.wav", "empty"), ("bad-text.mp3", "not an audio file"),
        ("bad-truncated-30pct-moovatend.m4a", "not an audio file"), ("bad-noaudio.mp4", "no audio stream (found 1 video stream only)"),
    ])
    func inputs(_ name: String, _ reason: String) throws {
        let (error, folder) = try Self.failure(converting: Fixtures.url(name))
        Self.expectOneLine(error, naming: name)
        #expect(error.description.contains(reason), "\(error.description)")
        #expect(folder.contents.isEmpty)
    }

    @Test("a directory is not an audio file")
    func directory() throws {
        let (error, _) = try Self.failure(converting: Fixtures.directory)
        #expect(error == .input(.isDirectory(path: Fixtures.directory.path)))
    }

    @Test("a channel that does not exist")
    func channel() throws {
        let (error, folder) = try Self.failure(converting: Fixtures.url("wav-pcm_s16le-2ch-44100.wav"),
                                               options: ConversionOptions(channels: .channel(2)))
        #expect(error.description.contains("channel 2 does not exist (the file has 2 channels"))
        #expect(folder.contents.isEmpty)
    }

    @Test("unusable outputs")
    func outputs() throws {
        let input = Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3")
        let folder = try TemporaryDirectory()
        try Data("x".utf8).write(to: folder.file("plain-file"))
        try Data("old".utf8).write(to: folder.file("exists.wav"))
        let cases: [(String, String)] = [
            ("missing-folder/out.wav", "folder"), ("plain-file/out.wav", "is not a folder"),
            ("exists.wav", "already exists"),
        ]
        for (name, reason) in cases {
            let (error, _) = try Self.failure(converting: input, to: name, directory: folder)
            Self.expectOneLine(error, naming: name)
            #expect(error.description.contains(reason), "\(error.description)")
        }
        #expect(folder.contents == ["exists.wav", "plain-file"])
        #expect(try Data(contentsOf: folder.file("exists.wav")) == Data("old".utf8))
    }

    @Test("the output is never the input, even when overwriting")
    func outputIsInput() throws {
        let folder = try TemporaryDirectory()
        let input = folder.file("song.mp3")
        try FileManager.default.copyItem(at: Fixtures.url("mp3-cbr128-xing-2ch-44100.mp3"), to: input)
        try FileManager.default.linkItem(at: input, to: folder.file("link.mp3"))
        let original = try Data(contentsOf: input)
        for name in ["song.mp3", "./song.mp3", "link.mp3"] {
            let (error, _) = try Self.failure(converting: input, to: name,
                                              options: ConversionOptions(reverse: true, overwrite: true), directory: folder)
            #expect(error == .output(.outputIsInput(path: folder.file(name).path)))
        }
        #expect(try Data(contentsOf: input) == original)
        #expect(folder.contents == ["link.mp3", "song.mp3"])
    }

    @Test("a folder without write permission", .enabled(if: !isRoot, "root writes anywhere"))
    func readOnlyFolder() throws {
        let folder = try TemporaryDirectory()
        try FileManager.default.setAttributes([.posixPermissions: 0o555], ofItemAtPath: folder.url.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path) }
        let (error, _) = try Self.failure(converting: Fixtures.url("edge-one-frame.wav"), directory: folder)
        #expect(error.description.contains("no permission"))
    }

    @Test("an input without read permission", .enabled(if: !isRoot, "root reads anything"))
    func unreadableInput() throws {
        let folder = try TemporaryDirectory()
        let input = folder.file("locked.wav")
        try FileManager.default.copyItem(at: Fixtures.url("edge-one-frame.wav"), to: input)
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: input.path)
        let (error, _) = try Self.failure(converting: input, to: "out.wav", directory: folder)
        #expect(error.description.contains("cannot read"))
    }

    @Test("the output folder removed mid-way: an error and nothing left")
    func folderRemoved() async throws {
        let source = try TemporaryDirectory()
        let input = try await SignalFiles.make("long.wav", seconds: 60, in: source.url)
        let doomed = try TemporaryDirectory()
        let removed = CancellationFlag()
        let output = doomed.file("out.wav")
        await #expect(throws: ReverseAudioError.self) {
            try await AudioConverter.convert(input, to: output, options: ConversionOptions(reverse: true), progress: { fraction in
                if fraction > 0.2, !removed.isCancelled {
                    removed.cancel()
                    try? FileManager.default.removeItem(at: doomed.url)
                }
            })
        }
        #expect(removed.isCancelled)
        #expect(!FileManager.default.fileExists(atPath: doomed.url.path))
    }
}
