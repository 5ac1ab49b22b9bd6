import Foundation
import Testing
import TestSupport

/// `reverse-audio reverse`: folders and files in, NAME-REVERSED.wav out, one table.
@Suite struct ReverseBatchTests {
    static let good = ["mp3-cbr128-xing-2ch-44100.mp3", "flac-s16-2ch-44100.flac"]

    /// Checks `output` holds exactly the reversal of each original (by output NAME), and with
    /// `verify` also NAME-REVERSED-REVERSED.wav equal to the original.
    static func expectOutputs(_ output: TemporaryDirectory, _ originals: [String: URL], verify: Bool = false,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        let suffixes = verify ? ["-REVERSED.wav", "-REVERSED-REVERSED.wav"] : ["-REVERSED.wav"]
        #expect(output.contents == originals.keys.flatMap { name in suffixes.map { name + $0 } }.sorted(),
                sourceLocation: sourceLocation)
        for (name, original) in originals {
            try expectReversal(output.file("\(name)-REVERSED.wav"), of: original, sourceLocation: sourceLocation)
            if verify {
                #expect(try FFmpegOracle.samples(of: output.file("\(name)-REVERSED-REVERSED.wav"))
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
    func mixedFolder(verify: Bool) throws {
        let source = try TemporaryDirectory()
        let originals = Self.byName(try Self.good.map { try copyFixture($0, into: source) })
        try copyFixture("bad-text.mp3", into: source, as: "broken.mp3")
        try Data("not audio".utf8).write(to: source.file("notes.txt"))
        let output = try TemporaryDirectory()

        let result = try CLI.run(["reverse", source.url.path, "-o", output.url.path] + (verify ? ["--verify"] : []))
        #expect(result.status != 0)
        #expect(result.errorReports.count == 1 && result.errorReports[0].contains("broken.mp3"), "\(result.errorText)")
        #expect(!result.errorText.contains("notes.txt") && !result.outputText.contains("notes.txt"))
        for name in Self.good {
            let row = try #require(Self.row(result, naming: name), "no table row for \(name): \(result.outputText)")
            if verify { #expect(row.split(separator: " ").contains("yes"), "\(row)") }
        }
        try Self.expectOutputs(output, originals, verify: verify)
    }

    @Test("files named explicitly")
    func explicitFiles() throws {
        let inputs = Self.good.map(Fixtures.url)
        let output = try TemporaryDirectory()
        let result = try CLI.run(["reverse"] + inputs.map(\.path) + ["-o", output.url.path])
        #expect(result.status == 0)
        #expect(result.errorText.isEmpty)
        for input in inputs { #expect(Self.row(result, naming: input.lastPathComponent) != nil) }
        try Self.expectOutputs(output, Self.byName(inputs))
    }

    @Test("an upper-case extension is picked up from a folder")
    func upperCaseExtension() throws {
        let source = try TemporaryDirectory()
        let loud = try copyFixture(Self.good[0], into: source, as: "LOUD.MP3")
        let output = try TemporaryDirectory()
        let result = try CLI.run(["reverse", source.url.path, "-o", output.url.path])
        #expect(result.status == 0, "\(result.errorText)")
        try Self.expectOutputs(output, ["LOUD": loud])
    }

    @Test("inputs sharing a base name get distinct outputs")
    func sameBaseName() throws {
        let source = try TemporaryDirectory()
        let mp3 = try copyFixture(Self.good[0], into: source, as: "song.mp3")
        let flac = try copyFixture(Self.good[1], into: source, as: "song.flac")
        let output = try TemporaryDirectory()
        let result = try CLI.run(["reverse", source.url.path, "-o", output.url.path])
        #expect(result.status == 0, "\(result.errorText)")
        try Self.expectOutputs(output, ["song-mp3": mp3, "song-flac": flac])
    }

    @Test("the default output folder is ./Reversed, created if missing")
    func defaultOutputFolder() throws {
        let directory = try TemporaryDirectory()
        let input = try copyFixture(Self.good[1], into: directory, as: "tune.flac")
        let result = try CLI.run(["reverse", "tune.flac"], in: directory.url)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(folderContents(directory.file("Reversed")) == ["tune-REVERSED.wav"])
        try expectReversal(directory.file("Reversed/tune-REVERSED.wav"), of: input)
    }
}
