import Foundation
import Testing
import TestSupport

/// What a batch's `--manifest` may be, and what it holds after faults.
@Suite struct ManifestSafetyTests {
    static let audio = "mp3-cbr128-xing-2ch-44100.mp3"

    /// How a manifest can be an input (issue 28, item 5): the glob `--manifest *.mp3` (the first
    /// MP3 becomes the manifest), a symbolic link to an input, a hard link to one, the list
    /// `--files-from` reads.
    enum InputManifest: String, CaseIterable {
        case glob, symbolicLink, hardLink, filesFromList
    }

    @Test("a manifest that is an input, by any name, is a usage error and leaves every file as it was",
          arguments: InputManifest.allCases)
    func manifestIsAnInput(_ kind: InputManifest) throws {
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
        let result = try CLI.run(["reverse"] + arguments + ["-o", directory.file("out").path], in: directory.url)
        expectUsageError(result, naming: "--manifest")
        #expect(try [a, b, list].map { try Data(contentsOf: $0) } == before, "an input changed")
        #expect(directory.contents == contents, "something was written: \(directory.contents)")
    }
}
