import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 21: names from the input alone, reruns that skip what is done, lists, shares, the
/// manifest and the exit classes, through the tool itself.
@Suite(.runsProcesses) struct BatchResumeTests {
    static let mp3 = "mp3-cbr128-xing-2ch-44100.mp3"
    static let flac = "flac-s16-2ch-44100.flac"
    static let wav = "wav-pcm_s16le-1ch-8000.wav"

    /// in/song.mp3, in/song.flac, in/live/a.wav
    static func smallLibrary() throws -> TemporaryDirectory {
        let source = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: source.file("live"), withIntermediateDirectories: true)
        try copyFixture(mp3, into: source, as: "song.mp3")
        try copyFixture(flac, into: source, as: "song.flac")
        try copyFixture(wav, into: source, as: "live/a.wav")
        return source
    }

    static let smallOutputs = ["live/a-REVERSED.wav", "song-flac-REVERSED.wav", "song-mp3-REVERSED.wav"]

    /// Each output's modification time and inode: a rewrite changes them.
    static func stamps(_ folder: URL, _ names: [String]) -> [String: [Int]] {
        Dictionary(uniqueKeysWithValues: names.map { name in
            var status = stat()
            _ = stat(folder.appendingPathComponent(name).path, &status)
            return (name, [Int(status.st_ino), Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec)])
        })
    }

    @Test("a rerun writes nothing, says how many it skipped and exits 0; -y redoes all; a changed input is redone")
    func rerun() async throws {
        let source = try Self.smallLibrary()
        let output = try TemporaryDirectory()
        let first = try await CLI.run(["reverse", source.url.path, "-o", output.url.path])
        #expect(first.status == 0, "\(first.errorText)")
        #expect(BatchLibrary.files(under: output.url).filter { !$0.hasPrefix(".") } == Self.smallOutputs)
        let before = Self.stamps(output.url, Self.smallOutputs)
        let second = try await CLI.run(["reverse", source.url.path, "-o", output.url.path])
        #expect(second.status == 0, "\(second.errorText)")
        #expect(second.errorText.contains("3 already done (complete and current), skipped"), "\(second.errorText)")
        #expect(second.outputText.isEmpty, "no table when nothing was done: \(second.outputText)")
        #expect(Self.stamps(output.url, Self.smallOutputs) == before, "a rerun rewrote an output")

        // A changed input (a new modification time, same size) is redone, and only it.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: source.file("live/a.wav").path)
        let third = try await CLI.run(["reverse", source.url.path, "-o", output.url.path, "--verbose"])
        #expect(third.status == 0, "\(third.errorText)")
        #expect(third.errorText.contains("writing live/a-REVERSED.wav again: the input changed"), "\(third.errorText)")
        #expect(third.errorText.contains("2 already done"), "\(third.errorText)")
        let after = Self.stamps(output.url, Self.smallOutputs)
        #expect(after["live/a-REVERSED.wav"] != before["live/a-REVERSED.wav"])
        #expect(after["song-mp3-REVERSED.wav"] == before["song-mp3-REVERSED.wav"])
        try await expectReversal(output.file("live/a-REVERSED.wav"), of: source.file("live/a.wav"))

        // Other options redo everything; so does -y.
        let options = try await CLI.run(["reverse", source.url.path, "-o", output.url.path, "--channels", "first"])
        #expect(options.status == 0 && !options.errorText.contains("already done"), "\(options.errorText)")
        let forced = try await CLI.run(["reverse", source.url.path, "-o", output.url.path, "--channels", "first", "-y"])
        #expect(forced.status == 0 && !forced.errorText.contains("already done"), "\(forced.errorText)")
        #expect(Self.stamps(output.url, Self.smallOutputs).values.allSatisfy { !before.values.contains($0) })
    }

    @Test("an output the batch did not record is never replaced without -y; a damaged one is redone")
    func foreignAndDamaged() async throws {
        let source = try Self.smallLibrary()
        let output = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: output.file("live"), withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: output.file("live/a-REVERSED.wav"))
        let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path])
        #expect(result.status == 1)
        #expect(result.errorReports.count == 1 && result.errorReports[0].contains("a-REVERSED.wav") && result.errorReports[0].contains("already exists"),
                "\(result.errorText)")
        #expect(try Data(contentsOf: output.file("live/a-REVERSED.wav")) == Data("mine".utf8))
        // A recorded output cut short (another size) is written again.
        let song = output.file("song-mp3-REVERSED.wav")
        let truncated = try Data(contentsOf: song).prefix(100)
        try truncated.write(to: song)
        let rerun = try await CLI.run(["reverse", source.url.path, "-o", output.url.path, "--verbose"])
        #expect(rerun.errorText.contains("the output is not the size recorded"), "\(rerun.errorText)")
        try await expectReversal(song, of: source.file("song.mp3"))
    }

    @Test("names depend on the input alone: alone, with its folder, in a list, in any share")
    func stableNames() async throws {
        let source = try Self.smallLibrary()
        let alone = try TemporaryDirectory()
        #expect(try await CLI.run(["reverse", source.file("song.mp3").path, "-o", alone.url.path]).status == 0)
        #expect(BatchLibrary.files(under: alone.url).filter { !$0.hasPrefix(".") } == ["song-mp3-REVERSED.wav"],
                "its folder holds song.flac, so the name keeps the extension even when it comes alone")
        let both = try TemporaryDirectory()
        #expect(try await CLI.run(["reverse", source.file("song.mp3").path, source.file("song.mp3").path, source.file("live/a.wav").path,
                             "-o", both.url.path]).status == 0)
        #expect(BatchLibrary.files(under: both.url).filter { !$0.hasPrefix(".") } == ["a-REVERSED.wav", "song-mp3-REVERSED.wav"],
                "the same input twice is done once")
        let shares = try TemporaryDirectory()
        for index in 0..<3 {
            let result = try await CLI.run(["reverse", source.url.path, "-o", shares.url.path, "--shard", "\(index)/3"])
            #expect(result.status == 0, "\(result.errorText)")
        }
        #expect(BatchLibrary.files(under: shares.url).filter { !$0.hasPrefix(".") } == Self.smallOutputs)
        // Two different files that would share an output: the later one fails and says why.
        let other = try TemporaryDirectory()
        try copyFixture(Self.wav, into: other, as: "a.wav")
        let clash = try TemporaryDirectory()
        let result = try await CLI.run(["reverse", source.file("live/a.wav").path, other.file("a.wav").path, "-o", clash.url.path])
        #expect(result.status == 1)
        #expect(result.errorReports.count == 1 && result.errorReports[0].contains("also the output of"), "\(result.errorText)")
    }

    @Test("--files-from takes a list (a file or standard input) and keeps relative folders")
    func filesFrom() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("Music/live"), withIntermediateDirectories: true)
        try copyFixture(Self.wav, into: directory, as: "Music/live/a.wav")
        try copyFixture(Self.flac, into: directory, as: "Music/b.flac")
        try Data("Music/live/a.wav\r\n\nMusic/b.flac\n".utf8).write(to: directory.file("list.txt"))
        let result = try await CLI.run(["reverse", "--files-from", "list.txt", "-o", "Out"], in: directory.url)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(BatchLibrary.files(under: directory.file("Out")).filter { !$0.hasPrefix(".") }
                == ["Music/b-REVERSED.wav", "Music/live/a-REVERSED.wav"])
        let piped = try await ProcessRunner.run("/bin/sh", ["-c", "find Music -name '*.wav' | \"$0\" reverse --files-from - -o Piped",
                                                      BuiltProducts.reverseAudio.path], currentDirectory: directory.url)
        #expect(piped.status == 0, "\(piped.errorText)")
        #expect(BatchLibrary.files(under: directory.file("Piped")).filter { !$0.hasPrefix(".") } == ["Music/live/a-REVERSED.wav"])
        let missing = try await CLI.run(["reverse", "--files-from", "nothing.txt", "-o", "Out"], in: directory.url)
        #expect(missing.status == 64 && missing.errorText.contains("nothing.txt"), "\(missing.errorText)")
    }

    @Test("--shard auto under each engine's variables says what it read; bad shares are usage errors")
    func shardAuto() async throws {
        let source = try Self.smallLibrary()
        let output = try TemporaryDirectory()
        let engines: [([String: String], [String], String)] = [
            (["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "2", "SLURM_ARRAY_TASK_MIN": "0"], [],
             "shard 0/2 from the Slurm job array (SLURM_ARRAY_TASK_ID=0, SLURM_ARRAY_TASK_COUNT=2)"),
            (["JOB_COMPLETION_INDEX": "1"], ["--shard-count", "2"],
             "shard 1/2 from the Kubernetes Indexed Job (JOB_COMPLETION_INDEX=1, --shard-count 2)"),
            (["AWS_BATCH_JOB_ARRAY_INDEX": "1"], ["--shard-count", "2"],
             "shard 1/2 from the AWS Batch array job (AWS_BATCH_JOB_ARRAY_INDEX=1, --shard-count 2)"),
        ]
        var clean = ProcessInfo.processInfo.environment
        for variable in ["SLURM_ARRAY_TASK_ID", "SLURM_ARRAY_TASK_COUNT", "SLURM_ARRAY_TASK_MIN", "SLURM_ARRAY_TASK_STEP",
                         "JOB_COMPLETION_INDEX", "AWS_BATCH_JOB_ARRAY_INDEX"] { clean[variable] = nil }
        for (variables, extra, said) in engines {
            let result = try await ProcessRunner.run(BuiltProducts.reverseAudio.path,
                                               ["reverse", source.url.path, "-o", output.url.path, "--shard", "auto"] + extra,
                                               environment: clean.merging(variables) { $1 })
            #expect(result.status == 0, "\(result.errorText)")
            #expect(result.errorLines.first == "reverse-audio: " + said, "\(result.errorText)")
        }
        // Shares 0/2 and 1/2 (twice, by two engines: the second time it skips) make every output once.
        #expect(BatchLibrary.files(under: output.url).filter { !$0.hasPrefix(".") } == Self.smallOutputs)
        let none = try await ProcessRunner.run(BuiltProducts.reverseAudio.path, ["reverse", source.url.path, "-o", output.url.path, "--shard", "auto"],
                                         environment: clean)
        #expect(none.status == 64 && none.errorText.contains("SLURM_ARRAY_TASK_ID"), "\(none.errorText)")
        for bad in [["--shard", "4/4"], ["--shard", "x"], ["--shard", "0/2", "--shard-count", "2"], ["--shard", "auto", "--shard-count", "0"]] {
            let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path] + bad)
            #expect(result.status == 64, "\(bad): \(result.errorText)")
        }
    }

    @Test("a manifest has one line per input: done, skipped, failed; shards append to one without tearing")
    func manifest() async throws {
        let source = try Self.smallLibrary()
        try copyFixture("bad-text.mp3", into: source, as: "broken.mp3")
        let output = try TemporaryDirectory()
        let manifest = output.file("m.jsonl").path
        let first = try await CLI.run(["reverse", source.url.path, "-o", output.file("Out").path, "--manifest", manifest])
        #expect(first.status == 1)
        let rerun = try await CLI.run(["reverse", source.url.path, "-o", output.file("Out").path, "--manifest", manifest])
        #expect(rerun.status == 1, "the broken file fails again")
        let objects = try String(contentsOfFile: manifest, encoding: .utf8).split(separator: "\n").map { try jsonObject(String($0)) }
        #expect(objects.count == 8)
        #expect(objects.map { $0["status"] as? String }.sorted { ($0 ?? "") < ($1 ?? "") }
                == ["done", "done", "done", "failed", "failed", "skipped", "skipped", "skipped"])
        let failed = try #require(objects.first { $0["status"] as? String == "failed" })
        #expect(failed["errorKind"] as? String == "notMedia" && (failed["error"] as? String)?.contains("broken.mp3") == true, "\(failed)")
        for object in objects where object["status"] as? String != "failed" {
            let out = output.file("Out").appendingPathComponent(try #require(object["output"] as? String))
            let digest = try await ProcessRunner.run("sha256sum", [out.path]).outputText.split(separator: " ").first.map(String.init)
            #expect(object["sha256"] as? String == digest)
            #expect(object["size"] as? Int != nil && object["modified"] as? Int != nil && object["options"] as? String != nil)
        }

        // Eight processes append to one manifest at once: every line whole.
        let shared = output.file("shared.jsonl").path
        let writers = try (0..<8).map { index in
            try RunningTool(["reverse", source.url.path, "-o", output.file("S\(index)").path, "--manifest", shared, "--jobs", "2", "-y"])
        }
        for writer in writers { #expect(await writer.waitUntilExit()) }
        let lines = try String(contentsOfFile: shared, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.last == "" && lines.count == 8 * 4 + 1, "\(lines.count) lines")
        for line in lines.dropLast() { _ = try jsonObject(String(line)) }
    }

    /// True where a process may mount a small tmpfs in a mount namespace of its own (root on Linux).
    static func canMountPrivately() async -> Bool {
        #if os(Linux)
        guard getuid() == 0 else { return false }
        return (try? await ProcessRunner.run("unshare", ["-m", "true"]).status) == 0
        #else
        return false
        #endif
    }

    @Test("a full disk stops the batch at once with 74: the files done are kept and recorded, no partial file is left",
          .enabled("needs root and unshare, to mount a 250 KiB tmpfs as the output folder") { await canMountPrivately() })
    func diskFull() async throws {
        let source = try Self.smallLibrary()
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("out"), withIntermediateDirectories: true)
        // The output folder is a 250 KiB tmpfs, seen by this one run only: the first 172 KiB output fits, the second not.
        let script = """
            mount -t tmpfs -o size=250k none "$1" || exit 99
            "$0" reverse "$2" -o "$1" --jobs 1 --manifest "$3"
            status=$?
            cd "$1" && find . -type f | sort
            exit $status
            """
        let result = try await ProcessRunner.run("unshare", ["-m", "sh", "-c", script, BuiltProducts.reverseAudio.path, directory.file("out").path,
                                                       source.url.path, directory.file("m.jsonl").path])
        #expect(result.status == 74, "\(result.errorText)")
        #expect(result.errorReports.count == 1 && result.errorReports[0].contains("song-mp3-REVERSED.wav")
                && result.errorReports[0].contains(String(cString: strerror(ENOSPC))), "\(result.errorText)")
        #expect(result.errorText.contains("the batch stopped"), "\(result.errorText)")
        #expect(result.outputLines == ["./.reverse-audio-state/song-flac-REVERSED.wav.json", "./song-flac-REVERSED.wav"],
                "only the output done and its record: \(result.outputText)")
        let lines = try String(contentsOf: directory.file("m.jsonl"), encoding: .utf8).split(separator: "\n").map { try jsonObject(String($0)) }
        #expect(lines.map { $0["status"] as? String } == ["done", "failed"])
        #expect(lines.last?["errorKind"] as? String == "writeFailed")
    }

    @Test("an output folder that cannot be made stops the batch with the fatal status 74, naming it")
    func fatal() async throws {
        let source = try Self.smallLibrary()
        let directory = try TemporaryDirectory()
        try Data("a file".utf8).write(to: directory.file("file"))
        let result = try await CLI.run(["reverse", source.url.path, "-o", directory.file("file/Out").path])
        #expect(result.status == 74, "\(result.errorText)")
        #expect(result.errorReports.count == 1 && result.errorReports[0].contains("file/Out"), "\(result.errorText)")
        let manifest = try await CLI.run(["reverse", source.url.path, "-o", directory.file("Out").path, "--manifest", directory.file("file/m.jsonl").path])
        #expect(manifest.status == 74 && manifest.errorText.contains("m.jsonl"), "\(manifest.errorText)")
    }
}
