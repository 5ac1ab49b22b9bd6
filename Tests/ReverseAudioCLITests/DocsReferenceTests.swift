import Foundation
import Testing
import TestSupport

/// The reference pages say what the tool says: in docs/reference/COMMAND.md, the text between the
/// lines `<!-- help:begin -->` and `<!-- help:end -->` is `reverse-audio help COMMAND` in a text
/// fence, as `scripts/make-docs` writes it, and every command the tool lists has its page.
@Suite(.runsProcesses) struct DocsReferenceTests {
    /// The folder of the commands' pages.
    static let folder = Fixtures.packageRoot.appendingPathComponent("docs/reference")

    /// The environment `scripts/make-docs` runs the tool in: with COLUMNS and LINES set,
    /// swift-argument-parser asks no terminal, so the help has one width everywhere.
    static var environment: [String: String] {
        ProcessInfo.processInfo.environment.merging(["COLUMNS": "80", "LINES": "25"]) { $1 }
    }

    /// The commands that have a page: the names of docs/reference/*.md.
    static func pages() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path)
            .filter { $0.hasSuffix(".md") }
            .map { String($0.dropLast(".md".count)) }
            .sorted()
    }

    /// What `scripts/make-docs` puts between the markers of `command`'s page: its help in a text fence.
    static func expectedBlock(_ command: String) async throws -> String {
        let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["help", command], environment: environment)
        #expect(result.status == 0, "reverse-audio help \(command): exit \(result.status): \(result.errorText)")
        let help = result.outputText.hasSuffix("\n") ? result.outputText : result.outputText + "\n"
        return "```text\n" + help + "```\n"
    }

    @Test("every docs/reference page holds its command's help, as scripts/make-docs writes it")
    func pagesHoldTheHelp() async throws {
        let pages = try Self.pages()
        #expect(pages.count >= 13, "docs/reference holds \(pages)")
        for command in pages {
            let text = try String(contentsOf: Self.folder.appendingPathComponent("\(command).md"), encoding: .utf8)
            let begin = "<!-- help:begin -->\n"
            let end = "<!-- help:end -->"
            #expect(text.components(separatedBy: begin).count == 2 && text.components(separatedBy: end).count == 2,
                    "docs/reference/\(command).md needs one line \(begin.dropLast()) and one line \(end)")
            let written = text.components(separatedBy: begin).dropFirst().first?.components(separatedBy: end).first
            let expected = try await Self.expectedBlock(command)
            #expect(written == expected, "docs/reference/\(command).md is stale: run scripts/make-docs")
        }
    }

    @Test("every command the tool's --help lists has a page in docs/reference")
    func everyCommandHasAPage() async throws {
        let commands = try await ManPageTests.subcommands()
        #expect(commands.count >= 13, "\(commands)")
        let pages = try Self.pages()
        for command in commands {
            #expect(pages.contains(command), "no docs/reference/\(command).md: add one with the help markers, then run scripts/make-docs")
        }
    }
}
