import Foundation
import Testing
import TestSupport

/// The documentation keeps up with the code: README examples compile (they are in
/// ReadmeSnippets.swift, built with the tests), and every public symbol has a doc comment.
@Suite struct DocumentationTests {
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    @Test("every Swift example in the README is compiled code")
    func readmeSnippetsCompile() throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let compiled = Self.lines(try String(contentsOf: Fixtures.packageRoot
            .appendingPathComponent("Tests/ReverseAudioTests/ReadmeSnippets.swift"), encoding: .utf8))
        let blocks = readme.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
        #expect(blocks.count >= 4)
        for block in blocks where !block.hasPrefix(".package") {
            let wanted = Self.lines(block)
            let found = compiled.indices.contains { start in
                start + wanted.count <= compiled.count && Array(compiled[start..<(start + wanted.count)]) == wanted
            }
            #expect(found, "README example not in ReadmeSnippets.swift:\n\(block)")
        }
    }

    @Test("every public declaration of the library has a doc comment")
    func publicSymbolsDocumented() throws {
        let sources = Fixtures.packageRoot.appendingPathComponent("Sources/ReverseAudio")
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        #expect(!files.isEmpty)
        var missing: [String] = []
        for file in files {
            let lines = try String(contentsOf: file, encoding: .utf8).components(separatedBy: "\n")
            for (index, line) in lines.enumerated() {
                let text = line.trimmingCharacters(in: .whitespaces)
                guard text.hasPrefix("public ") || text.range(of: #"^@\w+(\(.*\))? public "#, options: .regularExpression) != nil else { continue }
                var previous = index - 1
                while previous >= 0, lines[previous].trimmingCharacters(in: .whitespaces).hasPrefix("@") { previous -= 1 }
                let above = previous >= 0 ? lines[previous].trimmingCharacters(in: .whitespaces) : ""
                if !above.hasPrefix("///") { missing.append("\(file.lastPathComponent):\(index + 1): \(text)") }
            }
        }
        #expect(missing.isEmpty, "undocumented: \(missing.joined(separator: "; "))")
    }
}
