import Foundation
import Testing
import TestSupport

/// What a batch's `--manifest` may be, and what it holds after faults.
@Suite(.runsProcesses) struct ManifestSafetyTests {
    static let audio = "mp3-cbr128-xing-2ch-44100.mp3"

    /// How a manifest can be an input (issue 28, item 5): the glob `--manifest *.mp3` (the first
    /// MP3 becomes the manifest), a symbolic link to an input, a hard link to one, the list
    /// `--files-from` reads.
    enum InputManifest: String, CaseIterable {
        case glob, symbolicLink, hardLink, filesFromList
    }

    @Test("a manifest that is an input, by any name, is a usage error and leaves every file as it was",
          arguments: InputManifest.allCases)
    func manifestIsAnInput(_ kind: InputManifest) async throws {
        let directory = try TemporaryDirectory()
        let a = try copyFixture(Self.audio, into: directory, as: "a.mp3")
        let b = try copyFixture(Self.audio, into: directory, as: "b.mp3")
        let list = directory.file("list.txt")
        try "a.mp3\nb.mp3\n".write(to: list, atomically: true, encoding: .utf8)
        var arguments: [String]
        switch kind {
        case .glob:
            arguments = ["--manifest", a.path, b.path]
        case .symbolicLink:
            try FileManager.default.createSymbolicLink(atPath: directory.file("m.jsonl").path, withDestinationPath: "a.mp3")
            arguments = ["--manifest", directory.file("m.jsonl").path, a.path, b.path]
        case .hardLink:
            try FileManager.default.linkItem(at: b, to: directory.file("m.jsonl"))
            arguments = ["--manifest", directory.file("m.jsonl").path, directory.url.path]
        case .filesFromList:
            arguments = ["--manifest", list.path, "--files-from", list.path]
        }
        let before = try [a, b, list].map { try Data(contentsOf: $0) }
        let contents = directory.contents
        let result = try await CLI.run(["reverse"] + arguments + ["-o", directory.file("out").path], in: directory.url)
        expectUsageError(result, naming: "--manifest")
        #expect(try [a, b, list].map { try Data(contentsOf: $0) } == before, "an input changed")
        #expect(directory.contents == contents, "something was written: \(directory.contents)")
    }

    // MARK: Torn lines (issue 28, item 6)

    /// True where `prlimit` (util-linux) can cap the size of the files a run writes.
    static func canLimitFileSize() async -> Bool {
        (try? await ProcessRunner.run("prlimit", ["--fsize=1024", "true"]).status) == 0
    }

    /// Two whole lines of 414 bytes: a manifest 196 bytes short of a 1 KiB size limit.
    static let earlierLines = String(repeating: "{\"input\":\"\(String(repeating: "x", count: 400))\"}\n", count: 2)

    /// Every line of `url` as a JSON object; fails on a line that is not one.
    static func objects(_ url: URL) throws -> [[String: Any]] {
        let text = try String(contentsOf: url, encoding: .utf8)
        #expect(text.hasSuffix("\n"), "the manifest ends in a torn line: \(text.suffix(80))")
        return try text.split(separator: "\n").map { try jsonObject(String($0)) }
    }

    @Test("a line that does not fit (a file size limit, as a full disk) is not written at all; a rerun appends whole lines",
          .enabled("needs prlimit") { await canLimitFileSize() })
    func lineThatDoesNotFit() async throws {
        let directory = try TemporaryDirectory()
        let manifest = directory.file("m.jsonl")
        try Self.earlierLines.write(to: manifest, atomically: true, encoding: .utf8)
        let arguments = ["reverse", Fixtures.url("edge-one-frame.wav").path, "-o", directory.file("out").path, "--manifest", manifest.path]
        // Files of at most 1 KiB: the one-frame output and its record fit, the manifest's line does not.
        let limited = try await ProcessRunner.run("prlimit", ["--fsize=1024", BuiltProducts.reverseAudio.path] + arguments)
        #expect(limited.status == 74, "\(limited.errorText)")
        #expect(limited.errorText.contains("m.jsonl"), "\(limited.errorText)")
        #expect(try String(contentsOf: manifest, encoding: .utf8) == Self.earlierLines, "the manifest kept part of a line")
        let rerun = try await CLI.run(arguments)
        #expect(rerun.status == 0, "\(rerun.errorText)")
        let objects = try Self.objects(manifest)
        #expect(objects.count == 3 && objects.last?["status"] as? String == "skipped", "\(objects)")
    }

    @Test("a manifest that ends in a torn line (a run killed mid-write) has the fragment removed before the next line, and says so")
    func tornLastLine() async throws {
        let directory = try TemporaryDirectory()
        let manifest = directory.file("m.jsonl")
        let whole = String(Self.earlierLines.split(separator: "\n")[0]) + "\n"
        try (whole + "{\"input\":\"a.mp3\",\"outp").write(to: manifest, atomically: true, encoding: .utf8)
        let result = try await CLI.run(["reverse", Fixtures.url("edge-one-frame.wav").path, "-o", directory.file("out").path,
                                  "--manifest", manifest.path])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(result.warningReports.contains { $0.contains("m.jsonl") && $0.contains("torn line") }, "\(result.errorText)")
        let objects = try Self.objects(manifest)
        #expect(objects.count == 2 && objects.last?["status"] as? String == "done", "\(objects)")
    }
}
