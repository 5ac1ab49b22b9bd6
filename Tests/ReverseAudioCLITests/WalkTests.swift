import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, item 6: folder walks read names as bytes, visit each real file once (two
/// symbolic-link loops included), pass over FIFOs and never take their own output folder as input.
@Suite(.runsProcesses) struct WalkTests {
    static let fixture = "wav-pcm_s16le-1ch-8000.wav"
    /// "café.wav" in Latin-1: not UTF-8.
    static let latin1Name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".wav".utf8)

    /// music/ with a Latin-1 name, a FIFO, two loops (`loop -> .`, `sub/back -> ..`), a file in
    /// a subfolder, and the output folder of an earlier run.
    static func makeFolder(in directory: TemporaryDirectory) throws -> URL {
        let music = directory.file("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: music.appendingPathComponent("Reversed"), withIntermediateDirectories: true)
        let audio = try Data(contentsOf: Fixtures.url(fixture))
        try writeFile(named: latin1Name, in: music, contents: audio)
        try audio.write(to: music.appendingPathComponent("ok.wav"))
        try audio.write(to: music.appendingPathComponent("sub/deep.wav"))
        try audio.write(to: music.appendingPathComponent("Reversed/ok-REVERSED.wav"))
        try makeFIFO(music.appendingPathComponent("fifo.wav"))
        try FileManager.default.createSymbolicLink(atPath: music.appendingPathComponent("loop").path, withDestinationPath: ".")
        try FileManager.default.createSymbolicLink(atPath: music.appendingPathComponent("sub/back").path, withDestinationPath: "..")
        return music
    }

    @Test("reverse . walks bytes, each file once, skips the FIFO, the loops and its own output folder; twice the same")
    func reverseWalk() async throws {
        let directory = try TemporaryDirectory()
        let music = try Self.makeFolder(in: directory)
        let temporary = try TemporaryDirectory()
        let environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.url.path]) { $1 }
        for run in 1...2 {
            let started = Date()
            let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["reverse", ".", "-y", "--verbose", "--jobs", "2"],
                                               currentDirectory: music, environment: environment)
            #expect(Date().timeIntervalSince(started) < 30)
            #expect(result.status == 0, "run \(run): \(result.errorText)")
            let reversed = music.appendingPathComponent("Reversed")
            #expect(outputContents(reversed) == ["caf\\xE9-REVERSED.wav", "ok-REVERSED.wav", "sub"], "run \(run): \(folderContents(reversed))")
            #expect(folderContents(reversed.appendingPathComponent("sub")) == ["deep-REVERSED.wav"])
            try await expectReversal(reversed.appendingPathComponent("caf\\xE9-REVERSED.wav"), of: Fixtures.url(Self.fixture))
            // Each real file once: three reversed, and the table names the Latin-1 file escaped.
            #expect(result.outputLines.filter { $0.contains("-REVERSED.wav") }.count == 3, "\(result.outputText)")
            #expect(result.outputText.contains("caf\\xE9.wav"), "\(result.outputText)")
            for (name, reason) in [("fifo.wav", "FIFO"), ("loop", "already walked"), ("back", "already walked"), ("Reversed", "output folder")] {
                #expect(result.errorLines.contains { $0.contains("skipped") && $0.contains(name) && $0.contains(reason) },
                        "\(name) not reported as skipped (\(reason)): \(result.errorText)")
            }
            #expect(temporary.contents.isEmpty, "left in TMPDIR: \(temporary.contents)")
        }
        // The input folder is as it was (and the Latin-1 name's bytes untouched).
        #expect(rawNames(in: music).contains(Self.latin1Name))
        #expect(rawNames(in: music).count == 6, "\(rawNames(in: music))")
    }

    @Test("list shows the Latin-1 name escaped and does not wait on the FIFO")
    func list() async throws {
        let directory = try TemporaryDirectory()
        let music = try Self.makeFolder(in: directory)
        let tool = try RunningTool(["list", music.path])
        #expect(await tool.waitUntilExit(timeout: 10), "list hung")
        #expect(tool.process.terminationStatus == 0, "\(tool.errorText)")
        #expect(tool.temporaryLeftovers.isEmpty)
        let result = try await CLI.run(["list", music.path])
        #expect(result.outputLines.contains { $0.contains("caf\\xE9.wav") && $0.contains("pcm_s16le") }, "\(result.outputText)")
        #expect(!result.outputText.contains("fifo.wav"))
    }

    @Test("a file named in bytes that are not UTF-8 is read; a missing one is reported by its escaped name")
    func namedLatin1() async throws {
        let directory = try TemporaryDirectory()
        let audio = try Data(contentsOf: Fixtures.url(Self.fixture))
        try writeFile(named: Self.latin1Name, in: directory.url, contents: audio)
        let temporary = try TemporaryDirectory()
        let converted = try await runShell("TMPDIR='\(temporary.url.path)' \"$TOOL\" convert \"$(printf 'caf\\351.wav')\" out.wav --reverse",
                                     in: directory.url)
        #expect(converted.status == 0, "\(converted.errorText)")
        try await expectReversal(directory.file("out.wav"), of: Fixtures.url(Self.fixture))
        let info = try await runShell("TMPDIR='\(temporary.url.path)' \"$TOOL\" info \"$(printf 'caf\\351.wav')\"", in: directory.url)
        #expect(info.status == 0 && info.outputText.hasPrefix("caf\\xE9.wav"), "\(info.outputText) \(info.errorText)")
        let missing = try await runShell("\"$TOOL\" info \"$(printf 'gone\\351.wav')\"", in: directory.url)
        #expect(missing.status == 1 && missing.errorText.contains("gone\\xE9.wav"), "\(missing.errorText)")
        #expect(temporary.contents.isEmpty, "left in TMPDIR: \(temporary.contents)")
    }
}
