import Foundation
import Testing
import TestSupport

/// The documentation keeps up with the code: README and docs/library.md examples compile (they are in
/// ReadmeSnippets.swift, built with the tests), and every public symbol has a doc comment.
@Suite struct DocumentationTests {
    static func lines(_ text: String) -> [String] {
        text.split(separator: "\n", omittingEmptySubsequences: true)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("import ") }
    }

    @Test("every Swift example in the README, the library's page and the getting-started article is compiled code; the first imports what it uses",
          arguments: ["README.md", "docs/library.md", "Sources/ReverseAudio/ReverseAudio.docc/GettingStarted.md"])
    func snippetsCompile(_ document: String) throws {
        let text = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent(document), encoding: .utf8)
        let compiled = Self.lines(try String(contentsOf: Fixtures.packageRoot
            .appendingPathComponent("Tests/ReverseAudioTests/ReadmeSnippets.swift"), encoding: .utf8))
        let blocks = text.components(separatedBy: "```swift\n").dropFirst().compactMap { $0.components(separatedBy: "```").first }
            .filter { !$0.hasPrefix(".package") }
        #expect(blocks.count >= 3)
        // Copied on its own into a new file, the first example must compile: URL needs Foundation.
        let imports = blocks.first?.split(separator: "\n").prefix(2).map(String.init)
        #expect(imports == ["import Foundation", "import ReverseAudio"], "\(document): the first example starts with \(imports ?? [])")
        for block in blocks {
            let wanted = Self.lines(block)
            let found = compiled.indices.contains { start in
                start + wanted.count <= compiled.count && Array(compiled[start..<(start + wanted.count)]) == wanted
            }
            #expect(found, "\(document) example not in ReadmeSnippets.swift:\n\(block)")
        }
    }

    @Test("every public declaration of the library has a doc comment")
    func publicSymbolsDocumented() throws {
        let targets = ["ReverseAudioCore", "ReverseAudioFFmpeg", "ReverseAudioPlayback", "ReverseAudioVideo", "ReverseAudio", "ReverseAudioTesting"]
        let files = targets.flatMap { target in
            FileManager.default.enumerator(at: Fixtures.packageRoot.appendingPathComponent("Sources/\(target)"), includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
        }
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
