import Foundation
import Testing
import TestSupport

/// What people expect of a command-line tool: one error style, suggestions, documented exit
/// statuses, completion of file names, a progress bar that tells time left and speed.
@Suite(.runsProcesses) struct ConventionTests {
    @Test("usage errors: one line in the tool's style, then the usage; exit 64", arguments: [
        ["convert"], ["convert", "a.mp3", "b.wav", "--bogus"], ["reverse", "--jobs", "0", "x"], ["info"],
    ])
    func usageErrors(_ arguments: [String]) async throws {
        let result = try await CLI.run(arguments)
        #expect(result.status == 64)
        #expect(result.errorLines.first?.hasPrefix("reverse-audio: error: ") == true, "\(result.errorText)")
        #expect(!result.errorText.contains("\nError:") && !result.errorText.hasPrefix("Error:"))
        #expect(result.outputText.isEmpty)
    }

    @Test("a mistyped command suggests the nearest one", arguments: [("revers", "reverse"), ("cnvert", "convert"), ("inf", "info")])
    func suggestion(_ typed: String, _ meant: String) async throws {
        let result = try await CLI.run([typed, "x.mp3"])
        #expect(result.status == 64)
        #expect(result.errorText.contains("did you mean '\(meant)'?"), "\(result.errorText)")
    }

    @Test("help and version go to standard output with status 0")
    func helpAndVersion() async throws {
        for arguments in [["--help"], ["convert", "--help"], ["--version"]] {
            let result = try await CLI.run(arguments)
            #expect(result.status == 0 && !result.outputText.isEmpty && result.errorText.isEmpty, "\(arguments)")
        }
    }

    @Test("completion scripts complete file names: bash falls back with -o default, zsh uses _files")
    func completion() async throws {
        let bash = try await CLI.run(["completion", "bash"])
        #expect(bash.status == 0 && bash.outputText.contains("complete -o default"))
        let zsh = try await CLI.run(["completion", "zsh"])
        #expect(zsh.status == 0 && zsh.outputText.contains("_files"))
        let fish = try await CLI.run(["completion", "fish"])
        #expect(fish.status == 0 && fish.outputText.contains("complete -c 'reverse-audio'"))
    }

    @Test("the progress bar shows elapsed time, time left and speed")
    func progressBar() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.convert(try LongInputs.mp3FourMinutes(), directory.file("out.wav"), reverse: true, ["--progress", "bar"])
        #expect(result.status == 0)
        let frames = result.errorText.split(separator: "\r").map(String.init)
        #expect(frames.contains { $0.contains("left ") && $0.contains("speed=") && $0.contains("x") && $0.contains("0:0") },
                "\(frames.suffix(3))")
    }

    @Test("the README lists every exit status the tool uses, and each is what the tool returns")
    func exitStatuses() async throws {
        let readme = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let start = try #require(readme.range(of: "Exit status:"))
        // The sentence, up to the paragraph's end, as one line.
        let paragraph = readme[start.lowerBound...].components(separatedBy: "\n\n")[0].replacingOccurrences(of: "\n", with: " ")
        for status in ["0 done", "1 a file failed", "64 a usage error", "130 Ctrl-C", "143 SIGTERM", "129 SIGHUP"] {
            #expect(paragraph.contains(status), "README's exit statuses do not list '\(status)': \(paragraph)")
        }
        let directory = try TemporaryDirectory()
        #expect(try await CLI.run(["info", Fixtures.url("wav-pcm_u8-1ch-8000.wav").path]).status == 0)
        #expect(try await CLI.run(["info", directory.file("missing.mp3").path]).status == 1)
        #expect(try await CLI.run(["convert", "--no-such-option"]).status == 64)
        // 130, 143 and 129 come from InterruptTests and HardeningTests (signals mid-run).
    }
}
