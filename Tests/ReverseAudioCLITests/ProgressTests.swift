import Foundation
import Testing
import TestSupport

/// `--progress`: JSON lines on standard error when asked, silence when not a terminal.
@Suite(.runsProcesses) struct ProgressTests {
    @Test("--progress json: one object per line, fractions rising to exactly 1", arguments: [false, true])
    func jsonLines(_ reverse: Bool) async throws {
        let input = try await LongInputs.wav30Seconds()
        let directory = try TemporaryDirectory()
        let result = try await CLI.convert(input, directory.file("out.wav"), reverse: reverse, ["--progress", "json"])
        #expect(result.status == 0)
        let lines = result.errorLines
        #expect((20...110).contains(lines.count), "\(lines.count) progress lines")
        let fractions = try lines.map { line -> Double in
            let object = try jsonObject(line)
            #expect(object["file"] as? String == input.path)
            return try #require(object["fraction"] as? Double, "\(line)")
        }
        #expect(fractions.allSatisfy { (0...1).contains($0) })
        #expect(zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 }, "non-decreasing")
        #expect(fractions.last == 1.0)
    }

    @Test("no progress on a standard error that is not a terminal", arguments: [[], ["--progress", "auto"], ["--progress", "none"]])
    func quiet(_ option: [String]) async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.convert(try LongInputs.wav30Seconds(), directory.file("out.wav"), reverse: true, option)
        #expect(result.status == 0)
        #expect(result.errorText.isEmpty, "\(result.errorText.prefix(200))")
    }
}
