import Foundation
import Testing
import TestSupport
@testable import ReverseAudioBatch
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
import FFmpeg

/// Issue 21: the batch model on its own, in process: stable shares, engine detection, names, resume.
@Suite struct BatchModelTests {
    @Test("FNV-1a is the published function, the same in every process")
    func fnv() {
        #expect(StableHash.fnv1a("") == 0xcbf2_9ce4_8422_2325)
        #expect(StableHash.fnv1a("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(StableHash.fnv1a("foobar") == 0x8594_4171_f739_67e8)
    }

    @Test("--shard K/N: parsed strictly, counted from 0")
    func shardParsing() {
        #expect(Shard("0/4") == Shard(index: 0, count: 4))
        #expect(Shard("3/4")?.description == "3/4")
        for bad in ["4/4", "-1/4", "1/0", "1", "1/4/2", " 1/4", "1/4 ", "a/4", "+1/4", "1/", "/4", "0/99999999"] {
            #expect(Shard(bad) == nil, "\(bad)")
        }
    }

    @Test("shares: every path in exactly one, evenly, and adding files moves none of the others")
    func sharePartition() throws {
        let paths = (0..<4000).map { "artist \($0 % 37)/album \($0 % 11)/track \($0).\(["mp3", "flac", "m4a"][$0 % 3])" }
        let shards = (0..<4).compactMap { Shard(index: $0, count: 4) }
        var counts = [0, 0, 0, 0]
        for path in paths {
            let owners = shards.filter { $0.contains(relativePath: path) }
            #expect(owners.count == 1, "\(path)")
            if let owner = owners.first { counts[owner.index] += 1 }
        }
        #expect(counts.allSatisfy { (900...1100).contains($0) }, "uneven shares: \(counts)")
        // Paths that differ only in their extension spread too (the finaliser mixes the last bytes).
        let twins = (0..<400).flatMap { ["song \($0).mp3", "song \($0).flac"] }
        let twinCounts = (0..<4).map { index in twins.filter { Shard(index: index, count: 4)!.contains(relativePath: $0) }.count }
        #expect(twinCounts.allSatisfy { (160...240).contains($0) }, "\(twinCounts)")
        // A share is a function of the path alone: the same in a run with more files.
        let before = Dictionary(uniqueKeysWithValues: paths.map { path in (path, shards.first { $0.contains(relativePath: path) }!.index) })
        let more = paths + (0..<1000).map { "new/\($0).wav" }
        #expect(more.prefix(paths.count).allSatisfy { path in shards.first { $0.contains(relativePath: path) }?.index == before[path] })
    }

    @Test("--shard auto reads Slurm, Kubernetes and AWS Batch, and says what it read")
    func engines() throws {
        let slurm = try ShardEngine.detect(in: ["SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "0"])
        #expect(slurm.shard == Shard(index: 2, count: 4) && slurm.engine == .slurm)
        #expect(slurm.summary == "shard 2/4 from the Slurm job array (SLURM_ARRAY_TASK_ID=2, SLURM_ARRAY_TASK_COUNT=4)")
        // --array=1-4 and --array=0-6:2 still make shares 0 to 3.
        let fromOne = try ShardEngine.detect(in: ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"])
        #expect(fromOne.shard == Shard(index: 3, count: 4))
        let stepped = try ShardEngine.detect(in: ["SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_COUNT": "4",
                                                  "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2"])
        #expect(stepped.shard == Shard(index: 2, count: 4))
        let kubernetes = try ShardEngine.detect(in: ["JOB_COMPLETION_INDEX": "1"], count: 4)
        #expect(kubernetes.shard == Shard(index: 1, count: 4) && kubernetes.engine == .kubernetes)
        #expect(kubernetes.summary.contains("JOB_COMPLETION_INDEX=1") && kubernetes.summary.contains("--shard-count 4"))
        let aws = try ShardEngine.detect(in: ["AWS_BATCH_JOB_ARRAY_INDEX": "3"], count: 4)
        #expect(aws.shard == Shard(index: 3, count: 4) && aws.engine == .awsBatch)
        // Slurm first when several are set.
        #expect(try ShardEngine.detect(in: ["JOB_COMPLETION_INDEX": "0", "SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "2"]).engine == .slurm)
        let failures: [([String: String], Int?, String)] = [
            ([:], nil, "found none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, AWS_BATCH_JOB_ARRAY_INDEX"),
            (["JOB_COMPLETION_INDEX": "1"], nil, "--shard-count"),
            (["AWS_BATCH_JOB_ARRAY_INDEX": "x"], 4, "not a number"),
            (["JOB_COMPLETION_INDEX": "4"], 4, "does not exist"),
            (["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "4"], nil, "not in the array"),
        ]
        for (environment, count, message) in failures {
            #expect(throws: ShardEngine.DetectionError.self) { try ShardEngine.detect(in: environment, count: count) }
            do {
                _ = try ShardEngine.detect(in: environment, count: count)
            } catch {
                #expect(error.description.contains(message), "\(environment): \(error.description)")
            }
        }
    }

    @Test("names: the stem, or stem-ext when the file's own folder has another name with that stem")
    func outputStems() {
        let folder = SupportedAudioFiles.stemCounts(["song.mp3", "Song.FLAC", "solo.wav", ".song.m4a", "notes", "a.b.mp3"])
        #expect(SupportedAudioFiles.outputStem(of: "song.mp3", siblingStems: folder) == "song-mp3")
        #expect(SupportedAudioFiles.outputStem(of: "Song.FLAC", siblingStems: folder) == "Song-FLAC")
        #expect(SupportedAudioFiles.outputStem(of: "solo.wav", siblingStems: folder) == "solo")
        #expect(SupportedAudioFiles.outputStem(of: "a.b.mp3", siblingStems: folder) == "a.b")
    }

    @Test("resume: skip only a complete, current output the batch recorded")
    func resume() {
        let input = ResumeDecision.FileState(isRegularFile: true, size: 1000, modified: 1_700_000_000_123_456_789)
        let output = ResumeDecision.FileState(isRegularFile: true, size: 5000, modified: 1)
        var record = BatchRecord(input: "a.mp3", size: 1000, modified: 1_700_000_000_123_456_789, output: "a-REVERSED.wav",
                                 options: "o", version: "v", status: .done)
        record.outputSize = 5000
        func decide(_ record: BatchRecord?, input: ResumeDecision.FileState = input, output: ResumeDecision.FileState? = output,
                    options: String = "o", version: String = "v", overwrite: Bool = false) -> ResumeDecision {
            ResumeDecision.decide(record: record, input: input, output: output, options: options, version: version, overwrite: overwrite)
        }
        #expect(decide(record) == .skip)
        #expect(decide(record, output: nil) == .write)
        #expect(decide(nil, output: nil) == .write)
        #expect(decide(nil) == .refuse)
        #expect(decide(record, overwrite: true) == .replace(reason: "-y"))
        #expect(decide(record, input: .init(isRegularFile: true, size: 1000, modified: 1_700_000_000_123_456_790)) == .replace(reason: "the input changed"))
        #expect(decide(record, input: .init(isRegularFile: true, size: 1001, modified: 1_700_000_000_123_456_789)) == .replace(reason: "the input changed"))
        #expect(decide(record, options: "p") == .replace(reason: "the options changed"))
        #expect(decide(record, version: "w") == .replace(reason: "another version of the tool made it"))
        #expect(decide(record, output: .init(isRegularFile: true, size: 4999, modified: 1)) == .replace(reason: "the output is not the size recorded"))
        #expect(decide(record, output: .init(isRegularFile: false, size: 5000, modified: 1)) == .refuse)
        var started = record
        started.status = .started
        #expect(decide(started) == .replace(reason: "an earlier run stopped while writing it"))
    }

    @Test("state records survive a round trip through the store; manifests append whole lines")
    func storeAndManifest() throws {
        let directory = try TemporaryDirectory()
        let store = BatchStateStore(outputFolder: directory.url)
        var record = BatchRecord(input: "in/caf\\xE9.wav", size: 3, modified: 4, output: "live/a-REVERSED.wav", options: "o",
                                 version: "v", status: .done, shard: "1/4")
        record.sha256 = String(repeating: "a", count: 64)
        try store.save(record)
        #expect(try store.record(for: "live/a-REVERSED.wav") == record)
        #expect(try store.record(for: "other-REVERSED.wav") == nil)
        #expect(folderNames(directory.file(".reverse-audio-state/live")) == ["a-REVERSED.wav.json"], "no temporary record left")
        // A worker killed (SIGKILL) while writing a record leaves its temporary one; the next
        // record written into that folder sweeps it.
        // A process that cannot be alive: above any pid_max Linux allows (2^22).
        let left = ".reverse-audio-2147483646-1a2b3c.partial"
        try Data("{".utf8).write(to: directory.file(".reverse-audio-state/live/\(left)"))
        record.output = "live/b-REVERSED.wav"
        try store.save(record)
        #expect(folderNames(directory.file(".reverse-audio-state/live")) == ["a-REVERSED.wav.json", "b-REVERSED.wav.json"],
                "a killed run's temporary record is swept")
        let manifest = try ManifestWriter(path: directory.file("m.jsonl").path)
        try manifest.append(record)
        record.status = .skipped
        try manifest.append(record)
        let lines = try String(contentsOf: directory.file("m.jsonl"), encoding: .utf8).split(separator: "\n")
        #expect(try lines.map { try JSONDecoder().decode(BatchRecord.self, from: Data($0.utf8)).status } == [.done, .skipped])
    }

    @Test("failures of the output side stop a batch; one file's do not")
    func failureClasses() {
        #expect(BatchFailure.stopsTheBatch(.output(.writeFailed(path: "o.wav", reason: String(cString: strerror(ENOSPC))))))
        #expect(BatchFailure.stopsTheBatch(.output(.cannotCreateOutput(path: "o.wav", reason: "no permission to write in out"))))
        #expect(!BatchFailure.stopsTheBatch(.input(.notMedia(path: "a.mp3", reason: "Invalid data"))))
        #expect(!BatchFailure.stopsTheBatch(.output(.outputExists(path: "o.wav"))))
        #expect(BatchFailure.kind(of: .input(.notMedia(path: "a.mp3", reason: "x"))) == "notMedia")
        #expect(BatchFailure.kind(of: .output(.outputExists(path: "o.wav"))) == "outputExists")
    }

    private func folderNames(_ url: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []).sorted()
    }
}
