import Foundation
import Testing
import TestSupport

/// `reverse-audio reverse`: folders and files in, NAME-REVERSED.wav out, one table.
@Suite(.runsProcesses) struct ReverseBatchTests {
    static let good = ["mp3-cbr128-xing-2ch-44100.mp3", "flac-s16-2ch-44100.flac"]

    /// Checks `output` holds exactly the reversal of each original (by output NAME), and with
    /// `verify` also NAME-REVERSED-REVERSED.wav equal to the original.
    static func expectOutputs(_ output: TemporaryDirectory, _ originals: [String: URL], verify: Bool = false,
                              sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let suffixes = verify ? ["-REVERSED.wav", "-REVERSED-REVERSED.wav"] : ["-REVERSED.wav"]
        #expect(output.outputs == originals.keys.flatMap { name in suffixes.map { name + $0 } }.sorted(),
                sourceLocation: sourceLocation)
        for (name, original) in originals {
            try await expectReversal(output.file("\(name)-REVERSED.wav"), of: original, sourceLocation: sourceLocation)
            if verify {
                #expect(try await FFmpegOracle.samples(of: output.file("\(name)-REVERSED-REVERSED.wav"))
                            == FFmpegOracle.samples(of: original), sourceLocation: sourceLocation)
            }
        }
    }

    /// Each file by its NAME: the file name without extension.
    static func byName(_ files: [URL]) -> [String: URL] {
        Dictionary(uniqueKeysWithValues: files.map { ($0.deletingPathExtension().lastPathComponent, $0) })
    }

    /// The table row of standard output that names `file`.
    static func row(_ result: ProcessResult, naming file: String) -> String? {
        result.outputLines.first { $0.contains(file) }
    }

    @Test("a folder: good files reversed, a bad one reported, other files ignored", arguments: [false, true])
    func mixedFolder(verify: Bool) async throws {
        let source = try TemporaryDirectory()
        let originals = Self.byName(try Self.good.map { try copyFixture($0, into: source) })
        try copyFixture("bad-text.mp3", into: source, as: "broken.mp3")
        try Data("not audio".utf8).write(to: source.file("notes.txt"))
        let output = try TemporaryDirectory()

        let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path] + (verify ? ["--verify"] : []))
        #expect(result.status != 0)
        #expect(result.errorReports.count == 1 && result.errorReports[0].contains("broken.mp3"), "\(result.errorText)")
        #expect(!result.errorText.contains("notes.txt") && !result.outputText.contains("notes.txt"))
        for name in Self.good {
            let row = try #require(Self.row(result, naming: name), "no table row for \(name): \(result.outputText)")
            if verify { #expect(row.split(separator: " ").contains("yes"), "\(row)") }
        }
        try await Self.expectOutputs(output, originals, verify: verify)
    }

    @Test("files named explicitly")
    func explicitFiles() async throws {
        let inputs = Self.good.map(Fixtures.url)
        let output = try TemporaryDirectory()
        let result = try await CLI.run(["reverse"] + inputs.map(\.path) + ["-o", output.url.path])
        #expect(result.status == 0)
        #expect(result.errorText.isEmpty)
        for input in inputs { #expect(Self.row(result, naming: input.lastPathComponent) != nil) }
        try await Self.expectOutputs(output, Self.byName(inputs))
    }

    @Test("an upper-case extension is picked up from a folder")
    func upperCaseExtension() async throws {
        let source = try TemporaryDirectory()
        let loud = try copyFixture(Self.good[0], into: source, as: "LOUD.MP3")
        let output = try TemporaryDirectory()
        let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path])
        #expect(result.status == 0, "\(result.errorText)")
        try await Self.expectOutputs(output, ["LOUD": loud])
    }

    @Test("inputs sharing a base name get distinct outputs")
    func sameBaseName() async throws {
        let source = try TemporaryDirectory()
        let mp3 = try copyFixture(Self.good[0], into: source, as: "song.mp3")
        let flac = try copyFixture(Self.good[1], into: source, as: "song.flac")
        let output = try TemporaryDirectory()
        let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path])
        #expect(result.status == 0, "\(result.errorText)")
        try await Self.expectOutputs(output, ["song-mp3": mp3, "song-flac": flac])
    }

    @Test("the default output folder is ./Reversed, created if missing")
    func defaultOutputFolder() async throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture(Self.good[1], into: directory, as: "tune.flac")
        let result = try await CLI.run(["reverse", "tune.flac"], in: directory.url)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(outputContents(directory.file("Reversed")) == ["tune-REVERSED.wav"])
        try await expectReversal(directory.file("Reversed/tune-REVERSED.wav"), of: input)
    }
}

/// Batches the way people run them: nested folders, any format, several files at once, JSON.
@Suite(.runsProcesses) struct BatchConventionTests {
    /// src/a.mp3, src/live/a.mp3, src/live/2019/a.flac, src/notes.txt, src/.hidden.mp3
    static func nestedFolder() throws -> TemporaryDirectory {
        let source = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: source.file("live/2019"), withIntermediateDirectories: true)
        try copyFixture("mp3-cbr128-xing-2ch-44100.mp3", into: source, as: "a.mp3")
        try copyFixture("mp3-cbr64-xing-1ch-22050.mp3", into: source, as: "live/a.mp3")
        try copyFixture("flac-s16-2ch-44100.flac", into: source, as: "live/2019/a.flac")
        try copyFixture("wav-pcm_s16le-1ch-8000.wav", into: source, as: "live/2019/speech.bin")
        try Data("not audio".utf8).write(to: source.file("notes.txt"))
        try copyFixture("mp3-cbr128-xing-2ch-44100.mp3", into: source, as: ".hidden.mp3")
        return source
    }

    @Test("folders recurse; outputs keep the structure, so same-named files never collide")
    func recursive() async throws {
        let source = try Self.nestedFolder()
        let output = try TemporaryDirectory()
        let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path, "--verbose"])
        #expect(result.status == 0, "\(result.errorText)")
        for (out, original) in [("a-REVERSED.wav", "a.mp3"), ("live/a-REVERSED.wav", "live/a.mp3"),
                                ("live/2019/a-REVERSED.wav", "live/2019/a.flac")] {
            try await expectReversal(output.file(out), of: source.file(original))
        }
        #expect(output.outputs == ["a-REVERSED.wav", "live"])
        // Skipped files are listed with --verbose and counted in the summary.
        for skipped in ["notes.txt", ".hidden.mp3", "speech.bin"] {
            #expect(result.errorLines.contains { $0.contains("skipped") && $0.contains(skipped) }, "\(skipped): \(result.errorText)")
        }
        #expect(result.errorText.contains("3 skipped"), "\(result.errorText)")
    }

    @Test("--no-recursive stays in the folder; --all-formats takes any file FFmpeg reads and skips the rest")
    func recursionAndFormats() async throws {
        let source = try Self.nestedFolder()
        let flat = try TemporaryDirectory()
        let result = try await CLI.run(["reverse", source.url.path, "-o", flat.url.path, "--no-recursive"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(flat.outputs == ["a-REVERSED.wav"])
        let any = try TemporaryDirectory()
        let all = try await CLI.run(["reverse", source.file("live/2019").path, "-o", any.url.path, "--all-formats", "--verbose"])
        #expect(all.status == 0, "\(all.errorText)")
        #expect(any.outputs == ["a-REVERSED.wav", "speech-REVERSED.wav"])
        try await expectReversal(any.file("speech-REVERSED.wav"), of: source.file("live/2019/speech.bin"))
        let text = try TemporaryDirectory()
        try Data("not audio".utf8).write(to: text.file("notes.txt"))
        let skipped = try await CLI.run(["reverse", text.url.path, "-o", any.url.path, "--all-formats", "--verbose"])
        #expect(skipped.status == 0, "a file FFmpeg cannot read is skipped, not failed: \(skipped.errorText)")
        #expect(skipped.errorText.contains("skipped") && skipped.errorText.contains("notes.txt"))
    }

    @Test("--jobs 2 writes the same files as --jobs 1, and reports in the same order")
    func jobs() async throws {
        let source = try Self.nestedFolder()
        var tables: [String] = []
        var bytes: [[Data]] = []
        for jobs in ["1", "2"] {
            let output = try TemporaryDirectory()
            let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path, "--jobs", jobs])
            #expect(result.status == 0, "\(result.errorText)")
            tables.append(result.outputText.replacingOccurrences(of: output.url.path, with: "OUT"))
            bytes.append(try ["a-REVERSED.wav", "live/a-REVERSED.wav", "live/2019/a-REVERSED.wav"].map { try Data(contentsOf: output.file($0)) })
        }
        #expect(tables[0] == tables[1])
        #expect(bytes[0] == bytes[1])
    }

    @Test("reverse --json prints one result object per file, and one for a failure")
    func json() async throws {
        let source = try TemporaryDirectory()
        try copyFixture("flac-s16-2ch-44100.flac", into: source, as: "good.flac")
        try copyFixture("bad-text.mp3", into: source, as: "bad.mp3")
        let output = try TemporaryDirectory()
        let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path, "--json"])
        #expect(result.status == 1)
        let objects = try result.outputLines.map(jsonObject)
        #expect(objects.count == 2)
        let good = try #require(objects.first { ($0["input"] as? String)?.hasSuffix("good.flac") == true })
        #expect(good["frames"] as? Int == 44100 && good["sampleRate"] as? Int == 44100 && good["codec"] as? String == "pcm")
        let bad = try #require(objects.first { ($0["input"] as? String)?.hasSuffix("bad.mp3") == true })
        #expect((bad["error"] as? String)?.contains("bad.mp3") == true && bad["status"] as? String == "failed")
        #expect(good["status"] as? String == "done")
    }
}
