import Foundation
import Testing
import TestSupport

/// When `convert` may replace a file: an old output only with -y, the input never.
@Suite(.runsProcesses) struct OverwriteTests {
    static let input = Fixtures.url("mp3-cbr64-xing-1ch-22050.mp3")

    /// A folder holding an old `out.wav`.
    static func folderWithOldOutput() throws -> (TemporaryDirectory, URL, Data) {
        let directory = try TemporaryDirectory()
        let output = directory.file("out.wav")
        let old = Data("an old output".utf8)
        try old.write(to: output)
        return (directory, output, old)
    }

    @Test("an existing output is kept without -y")
    func keptWithoutFlag() async throws {
        let (directory, output, old) = try Self.folderWithOldOutput()
        let result = try await CLI.convert(Self.input, output, reverse: false)
        expectFailure(result, naming: "out.wav")
        #expect(try Data(contentsOf: output) == old)
        #expect(directory.contents == ["out.wav"])
    }

    @Test("an existing output is replaced with -y")
    func replacedWithFlag() async throws {
        let (directory, output, _) = try Self.folderWithOldOutput()
        let result = try await CLI.convert(Self.input, output, reverse: true, ["-y"])
        #expect(result.status == 0, "\(result.errorText)")
        try await expectReversal(output, of: Self.input)
        #expect(directory.contents == ["out.wav"])
    }

    /// Ways to name the input as the output.
    enum SameFile: String, CaseIterable, Sendable {
        case samePath, otherSpelling, hardLink

        /// The output argument for input `dir/x.mp3`, run from the folder holding `dir`.
        func outputArgument(in directory: TemporaryDirectory) throws -> String {
            switch self {
            case .samePath: return "dir/x.mp3"
            case .otherSpelling: return "./dir/../dir/x.mp3"
            case .hardLink:
                try FileManager.default.linkItem(at: directory.file("dir/x.mp3"), to: directory.file("dir/link.mp3"))
                return "dir/link.mp3"
            }
        }
    }

    @Test("the input is never the output, even with -y", arguments: SameFile.allCases, [false, true])
    func inputIsRefused(_ sameFile: SameFile, _ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("dir"), withIntermediateDirectories: false)
        try copyFixture(Self.input.lastPathComponent, into: directory, as: "dir/x.mp3")
        let output = try sameFile.outputArgument(in: directory)
        let before = folderContents(directory.file("dir"))

        let result = try await CLI.run(CLI.convertArguments("dir/x.mp3", output, reverse: reverse, ["-y"]), in: directory.url)
        expectFailure(result, naming: (output as NSString).lastPathComponent)
        #expect(try Data(contentsOf: directory.file("dir/x.mp3")) == Data(contentsOf: Self.input))
        #expect(folderContents(directory.file("dir")) == before)
    }
}
