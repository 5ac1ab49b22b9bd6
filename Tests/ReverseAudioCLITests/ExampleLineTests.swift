import Foundation
import Testing
import TestSupport

/// The examples every `--help` ends with, the README's and the reference pages' (docs/reference)
/// are command lines the tool accepts: run where their files do not exist, none is a usage
/// error (64); an input that is not there fails with 1.
@Suite(.runsProcesses) struct ExampleLineTests {
    /// The words of a shell command line: spaces separate, double quotes group; a `#` comment,
    /// a pipe or a redirection and what follows it are left out.
    static func words(_ line: String) -> [String] {
        var words: [String] = []
        var word = ""
        var quoted = false
        var started = false
        for character in line {
            if character == "\"" { quoted.toggle(); started = true; continue }
            if !quoted && (character == "#" || character == "|" || character == ">") { break }
            if !quoted && character == " " {
                if started { words.append(word) }
                word = ""
                started = false
                continue
            }
            word.append(character)
            started = true
        }
        if started { words.append(word) }
        return words
    }

    /// `reverse-audio …` lines of every command's help examples, of the README's shell blocks and
    /// of the reference pages' shell blocks, each line once.
    static func exampleLines() async throws -> [String] {
        var lines: [String] = []
        for command in try await ManPageTests.subcommands() + [""] {
            let help = try await CLI.run(command.isEmpty ? ["--help"] : [command, "--help"]).outputText
            guard let section = help.components(separatedBy: "EXAMPLES:\n").dropFirst().last else { continue }
            lines += section.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        // The first shell block of each of these sections: the first minute and the commands' examples.
        for heading in ["## A first minute\n", "## Convert and reverse\n"] {
            let section = try #require(readme.components(separatedBy: heading).dropFirst().first, "no \(heading) in the README")
            let block = section.components(separatedBy: "```sh\n")[1].components(separatedBy: "```")[0]
            lines += block.split(separator: "\n").map(String.init)
        }
        // Every shell block of the README and of each command's reference page.
        let reference = Fixtures.packageRoot.appendingPathComponent("docs/reference")
        let pages = try FileManager.default.contentsOfDirectory(atPath: reference.path).filter { $0.hasSuffix(".md") }.sorted()
        #expect(pages.count >= 13, "docs/reference holds \(pages)")
        var documents = [readme]
        for page in pages {
            documents.append(try String(contentsOf: reference.appendingPathComponent(page), encoding: .utf8))
        }
        for document in documents {
            for block in document.components(separatedBy: "```sh\n").dropFirst() {
                lines += block.components(separatedBy: "```")[0].split(separator: "\n").map(String.init)
            }
        }
        // Standard input is not given to these runs, and a continued line is not whole.
        var seen = Set<String>()
        return lines.filter { $0.hasPrefix("reverse-audio ") && !$0.contains(" - ") && !$0.hasSuffix("\\") }
            .filter { seen.insert($0).inserted }
    }

    @Test("every example of the help and the README parses: its exit is never 64")
    func examplesParse() async throws {
        let lines = try await Self.exampleLines()
        #expect(lines.count >= 30, "\(lines.count) examples")
        let folder = try TemporaryDirectory()
        for line in lines {
            let words = Self.words(line)
            // On the null device: no sound card is needed, and nothing is heard.
            let arguments = Array(words.dropFirst()) + (words.contains("play") && !words.contains("--to-file") && !words.contains("--device") ? ["--device", "null"] : [])
            let result = try await CLI.run(arguments, in: folder.url)
            #expect(result.status != 64, "\(line): exit 64: \(result.errorText)")
            #expect([0, 1].contains(result.status), "\(line): exit \(result.status): \(result.errorText)")
        }
    }
}
