import Foundation
import Testing
import TestSupport

/// A write that fails part-way (here: past `ulimit -f`) is reported and leaves nothing behind.
@Suite(.runsProcesses) struct FailingWriteTests {
    @Test("a write past the file size limit fails cleanly", arguments: [false, true])
    func fileSizeLimit(_ reverse: Bool) async throws {
        let input = try await LongInputs.wav30Seconds()
        let directory = try TemporaryDirectory()
        let output = directory.file("out.wav")
        let result = try await ProcessRunner.run(
            "/bin/bash", ["-c", "ulimit -f 40; exec \"$0\" \"$@\"", BuiltProducts.reverseAudio.path]
                + CLI.convertArguments(input.path, output.path, reverse: reverse))
        expectFailure(result, naming: "out.wav")
        #expect(directory.contents.isEmpty, "no output and no partial file")
    }
}
