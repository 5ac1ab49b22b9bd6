import Foundation
import Testing
import TestSupport

/// Inputs the fuzzer found crashing (Tests/Fixtures/fuzz-regressions): each is converted and
/// reversed with every channel choice, and must end in a result or a one-line error, not a trap.
@Suite struct FuzzRegressionTests {
    static var inputs: [String] {
        let folder = Fixtures.directory.appendingPathComponent("fuzz-regressions")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
    }

    @Test("no crash on any channel choice, forwards or reversed", arguments: inputs)
    func noCrash(_ name: String) throws {
        let input = Fixtures.directory.appendingPathComponent("fuzz-regressions/\(name)")
        let directory = try TemporaryDirectory()
        for channels in ["all", "mix", "first", "1"] {
            for reverse in [false, true] {
                let result = try CLI.convert(input, directory.file("out.wav"), reverse: reverse, ["--channels", channels, "-y"])
                #expect(result.status == 0 || result.status == 1, "\(name) --channels \(channels): exit \(result.status)")
                if result.status != 0 { #expect(result.errorReports.count == 1, "\(result.errorText)") }
            }
        }
    }
}
