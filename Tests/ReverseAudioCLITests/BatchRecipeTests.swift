import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 21: the recipes of docs/batch.md, run as written, over a nested library of 40 fixtures: every
/// output exactly once and valid, reruns that write nothing, a worker killed with SIGKILL and
/// rerun, manifests that match the outputs. (The Slurm recipe runs on a real one-node Slurm in
/// `scripts/test-slurm`.)
@Suite(.serialized, .runsProcesses) struct BatchRecipeTests {
    /// The code block that follows `<!-- recipe: NAME -->` in docs/batch.md (the README links it).
    static func recipe(_ name: String) throws -> String {
        let page = try String(contentsOf: Fixtures.packageRoot.appendingPathComponent("docs/batch.md"), encoding: .utf8)
        let marker = try #require(page.range(of: "<!-- recipe: \(name) -->\n"), "no recipe \(name) in docs/batch.md")
        let rest = page[marker.upperBound...]
        let open = try #require(rest.range(of: "\n"), "recipe \(name) has no code block")
        #expect(rest.hasPrefix("```"))
        let body = rest[open.upperBound...]
        let close = try #require(body.range(of: "```\n"))
        return String(body[..<close.lowerBound])
    }

    /// The environment a recipe runs in: the built tool first on PATH, no engine variables.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        for variable in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP",
                         "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] { environment[variable] = nil }
        environment["PATH"] = BuiltProducts.toolDirectory.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return environment.merging(extra) { $1 }
    }

    /// A folder holding `Music` (the 40-file library) for a recipe to run in.
    static func workspace() throws -> (TemporaryDirectory, BatchLibrary) {
        let library = try BatchLibrary.make()
        let workspace = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(at: workspace.file("Music"), withDestinationURL: library.folder.url)
        return (workspace, library)
    }

    @Test("GNU parallel over four shares: each output once and valid, manifests match; a rerun writes nothing and exits 0")
    func gnuParallel() async throws {
        let (workspace, library) = try Self.workspace()
        let recipe = try Self.recipe("parallel")
        #expect(recipe.contains("--shard {}/4") && recipe.contains("::: 0 1 2 3"))
        let run = try await ProcessRunner.run("/bin/bash", ["-c", "set -e\n" + recipe], currentDirectory: workspace.url, environment: Self.environment())
        #expect(run.status == 0, "\(run.errorText)")
        let output = workspace.file("Reversed")
        try await library.expectComplete(output, checkSamples: true)
        let lines = try BatchLibrary.manifestLines(in: workspace.url)
        #expect(lines.count == 40, "one line per input across the four shares")
        try await library.expectManifest(lines, output: output)
        let shares = Set(try lines.map { try jsonObject($0)["shard"] as? String ?? "" })
        #expect(shares == ["0/4", "1/4", "2/4", "3/4"])

        let before = BatchLibrary.files(under: output).map { name in (name, BatchResumeTests.stamps(output, [name])) }
        let rerun = try await ProcessRunner.run("/bin/bash", ["-c", "set -e\n" + recipe], currentDirectory: workspace.url, environment: Self.environment())
        #expect(rerun.status == 0, "\(rerun.errorText)")
        #expect(rerun.outputText.isEmpty, "a rerun prints no table: \(rerun.outputText)")
        #expect(BatchLibrary.files(under: output).map { name in (name, BatchResumeTests.stamps(output, [name])) }.elementsEqual(before) { $0.0 == $1.0 && $0.1 == $1.1 },
                "a rerun wrote something")
        let again = try BatchLibrary.manifestLines(in: workspace.url)
        #expect(again.count == 80 && again.suffix(40).allSatisfy { $0.contains("\"status\":\"skipped\"") })
        try await library.expectManifest(again, output: output)
    }

    @Test("a share killed with SIGKILL mid-way and rerun completes: every output once and valid")
    func killedShare() async throws {
        let (workspace, library) = try Self.workspace()
        let output = workspace.file("Reversed")
        func share(_ index: Int) -> [String] {
            ["reverse", "Music", "-o", "Reversed", "--jobs", "1", "--shard", "\(index)/2", "--manifest", "share-\(index).jsonl"]
        }
        let worker = try RunningTool(share(0), in: workspace.url)
        // Killed once a few of its outputs are published, while it writes the next. It runs in
        // slices of 5 ms, timed on a thread of the test's own (not Swift's busy pool), and is
        // stopped between them, when its outputs are counted: the kill comes after the 4th or
        // so however fast the build (a release build once finished its whole share between two
        // looks at it running).
        let pid = worker.process.processIdentifier
        let published = try await ProcessRunner.onThreadOfItsOwn { () -> Int in
            kill(pid, SIGSTOP)
            var count = 0
            let deadline = Date().addingTimeInterval(60)
            while count < 4 && !worker.hasExited && Date() < deadline {
                kill(pid, SIGCONT)
                usleep(5_000)
                kill(pid, SIGSTOP)
                count = BatchLibrary.files(under: output).filter { !$0.hasPrefix(".") }.count
            }
            return count
        }
        #expect(published >= 4, "the worker published \(published) outputs: \(worker.errorText)")
        kill(pid, SIGKILL)
        await worker.process.exited()
        #expect(worker.process.terminationReason == .uncaughtSignal)
        let partial = BatchLibrary.files(under: output).filter { !$0.hasPrefix(".") }
        #expect(partial.count < 20, "the kill came too late to test anything: \(partial.count) outputs")
        for index in [0, 1] {
            let rerun = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, share(index), currentDirectory: workspace.url)
            #expect(rerun.status == 0, "\(rerun.errorText)")
            if index == 0 { #expect(rerun.errorText.contains("already done"), "\(rerun.errorText)") }
        }
        // A killed run's partial file is removed by the next run; nothing else is left.
        #expect(!BatchLibrary.files(under: output).contains { $0.hasSuffix(".partial") || $0.hasSuffix(".tmp") })
        try await library.expectComplete(output, checkSamples: true)
        try await library.expectManifest(try BatchLibrary.manifestLines(in: workspace.url), output: output)
    }

    @Test("the Kubernetes Indexed Job's command, under JOB_COMPLETION_INDEX 0 to 3, makes every output once")
    func kubernetes() async throws {
        let (workspace, library) = try Self.workspace()
        let yaml = try Self.recipe("kubernetes")
        #expect(yaml.contains("completionMode: Indexed"))
        let completions = try #require(yaml.split(separator: "\n").first { $0.contains("completions:") }?
            .split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) })
        let commandLine = try #require(yaml.split(separator: "\n").first { $0.contains("command:") })
        let array = String(commandLine[commandLine.range(of: "[")!.lowerBound...])
        var command = try #require(JSONSerialization.jsonObject(with: Data(array.utf8)) as? [String])
        let countIndex = try #require(command.firstIndex(of: "--shard-count"))
        #expect(command[countIndex + 1] == completions, "--shard-count must equal completions")
        #expect(command.first == "reverse-audio")
        // The pod's volumes are the workspace's folders.
        command = command.map { $0.replacingOccurrences(of: "/music", with: workspace.file("Music").path)
            .replacingOccurrences(of: "/out", with: workspace.file("out").path) }
        try FileManager.default.createDirectory(at: workspace.file("out"), withIntermediateDirectories: true)
        for index in 0..<(Int(completions) ?? 0) {
            let pod = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, Array(command.dropFirst()),
                                            environment: Self.environment(["JOB_COMPLETION_INDEX": "\(index)"]))
            #expect(pod.status == 0, "\(pod.errorText)")
            #expect(pod.errorLines.first == "reverse-audio: shard \(index)/4 from the Kubernetes Indexed Job (JOB_COMPLETION_INDEX=\(index), --shard-count 4)")
        }
        let output = workspace.file("out/Reversed")
        try await library.expectComplete(output, checkSamples: false)
        try await library.expectManifest(try BatchLibrary.manifestLines(in: workspace.file("out")), output: output)
    }
}
