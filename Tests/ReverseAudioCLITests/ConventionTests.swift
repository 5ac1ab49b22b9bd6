import Foundation
import Testing
import TestSupport

/// What people expect of a command-line tool: one error style, suggestions, documented exit
/// statuses, completion of file names, a progress bar that tells time left and speed.
@Suite struct ConventionTests {
    @Test("usage errors: one line in the tool's style, then the usage; exit 64", arguments: [
        ["convert"], ["convert", "a.mp3", "b.wav", "--bogus"], ["reverse", "--jobs", "0", "x"], ["info"],
    ])
    func usageErrors(_ arguments: [String]) throws {
        let result = try CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.errorLines.first?.hasPrefix("reverse-audio: error: ") == true, "\(result.errorText)")
        #expect(!result.errorText.contains("\nError:") && !result.errorText.hasPrefix("Error:"))
        #expect(result.outputText.isEmpty)
    }

    @Test("a mistyped command suggests the nearest one", arguments: [("revers", "reverse"), ("cnvert", "convert"), ("inf", "info")])
    func suggestion(_ typed: String, _ meant: String) throws {
        let result = try CLI.run([typed, "x.mp3"])
        #expect(result.status == 64)
        #expect(result.errorText.contains("did you mean '\(meant)'?"), "\(result.errorText)")
    }

    @Test("help and version go to standard output with status 0")
    func helpAndVersion() throws {
        for arguments in [["--help"], ["convert", "--help"], ["--version"]] {
            let result = try CLI.run(arguments)
            #expect(result.status == 0 && !result.outputText.isEmpty && result.errorText.isEmpty, "\(arguments)")
        }
    }

    @Test("completion scripts complete file names: bash falls back with -o default, zsh uses _files")
    func completion() throws {
        let bash = try CLI.run(["completion", "bash"])
        #expect(bash.status == 0 && bash.outputText.contains("complete -o default"))
        let zsh = try CLI.run(["completion", "zsh"])
        #expect(zsh.status == 0 && zsh.outputText.contains("_files"))
        let fish = try CLI.run(["completion", "fish"])
        #expect(fish.status == 0 && fish.outputText.contains("complete -c 'reverse-audio'"))
    }

    @Test("the progress bar shows elapsed time, time left and speed")
    func progressBar() throws {
        let directory = try TemporaryDirectory()
        let result = try CLI.convert(try LongInputs.mp3FourMinutes(), directory.file("out.wav"), reverse: true, ["--progress", "bar"])
        #expect(result.status == 0)
        let frames = result.errorText.split(separator: "\r").map(String.init)
        #expect(frames.contains { $0.contains("left ") && $0.contains("speed=") && $0.contains("x") && $0.contains("0:0") },
                "\(frames.suffix(3))")
    }
}
