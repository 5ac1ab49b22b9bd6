import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A signal that reaches a batch just after an output is published (while its digest is taken
/// for the manifest) leaves the output with a record that says it is the batch's own, and says
/// what became of the work; a rerun then finishes the batch instead of failing "output already
/// exists" on every such file until `-y` (issue 28, item 4).
@Suite(.serialized, .runsProcesses) struct BatchSignalTests {
    @Test("a signal just after an output is published: the output keeps a record, the message is true, a rerun completes", arguments: [SIGINT, SIGTERM])
    func signalAfterPublication(_ signal: Int32) async throws {
        let directory = try TemporaryDirectory()
        let long = try await LongInputs.mp3FourMinutes()
        let input = directory.file("long.mp3")
        try FileManager.default.copyItem(at: long, to: input)
        let out = directory.file("out")
        let manifest = directory.file("m.jsonl")
        let arguments = ["reverse", input.path, "-o", out.path, "--manifest", manifest.path, "--threads", "1", "--progress", "none"]
        let tool = try RunningTool(arguments)
        // The output's own name appears when it is published; its digest (42 MB) follows.
        var published = false
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline && !tool.hasExited {
            if outputContents(out).contains(where: { !$0.hasPrefix(".") }) {
                published = true
                break
            }
            try? await Task.sleep(for: .microseconds(500))
        }
        try #require(published, "the output never appeared: \(tool.errorText)")
        let seconds = await tool.stop(with: signal)
        try #require(seconds != nil, "no exit after the signal")
        let outputs = outputContents(out).filter { !$0.hasPrefix(".") }
        if tool.process.terminationStatus == 128 + signal {
            // Stopped in the window: the message does not claim that nothing was left.
            #expect(!tool.errorText.contains("no output was left behind"), "\(tool.errorText)")
            #expect(tool.errorText.contains("the outputs finished before it are kept"), "\(tool.errorText)")
        }
        for name in outputs {
            let record = out.appendingPathComponent(".reverse-audio-state/\(name).json")
            #expect(FileManager.default.fileExists(atPath: record.path), "\(name) was left without its record")
        }
        let rerun = try await CLI.run(arguments)
        #expect(rerun.status == 0, "the rerun: \(rerun.errorText)")
        let name = try #require(outputContents(out).first { !$0.hasPrefix(".") })
        try await expectReversal(out.appendingPathComponent(name), of: input)
        let lines = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n")
        #expect(try lines.last.map { try jsonObject(String($0))["sha256"] as? String } != nil, "the last manifest line has no digest: \(lines)")
    }
}
