import Foundation
import Testing
import TestSupport
@testable import ReverseAudioBatch
@testable import ReverseAudioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The batch's bookkeeping in process, on files in a fresh folder (no tool, no ffmpeg): shares,
/// the stable hash, state records (damaged ones ignored), resume decisions, claims, manifests and
/// folder walks, where a mistake redoes, skips or loses a user's file.
@Suite struct BatchStateInProcessTests {
    // MARK: Shares and the stable hash

    @Test("a share exists only for 0 <= K < N <= 1000000, and its text takes ASCII digits only")
    func shardBounds() {
        #expect(Shard(index: 0, count: 1) != nil)
        #expect(Shard(index: 999_999, count: 1_000_000) != nil)
        #expect(Shard(index: 0, count: 1_000_001) == nil)
        #expect(Shard(index: 0, count: 0) == nil)
        #expect(Shard(index: -1, count: 2) == nil)
        #expect(Shard(index: 2, count: 2) == nil)
        #expect(Shard("0/1000000") == Shard(index: 0, count: 1_000_000))
        #expect(Shard("999999/1000000")?.description == "999999/1000000")
        // Seven digits parse, but past the largest share count the share does not exist.
        #expect(Shard("0/1000001") == nil)
        // Digits of other scripts are numbers to Swift, not to a job array.
        for bad in ["١/٤", "１/４", "0/4\n", "0 /4", "0/-4", "", "/", "0//4", "0/4/"] {
            #expect(Shard(bad) == nil, "\(bad.debugDescription)")
        }
    }

    @Test("for N of 1, 2, 3, 7 and 16 shares every path is in exactly one share", arguments: [1, 2, 3, 7, 16])
    func everyPathInOneShare(count: Int) throws {
        let shards = try (0..<count).map { try #require(Shard(index: $0, count: count)) }
        let paths = [""] + (0..<600).map { "disc \($0 % 5)/\($0).flac" } + ["caf\\xE9.mp3", "é/ü.wav", "a", "A"]
        var used = Set<Int>()
        for path in paths {
            let owners = shards.filter { $0.contains(relativePath: path) }
            #expect(owners.count == 1, "\(path) is in \(owners.count) shares of \(count)")
            if let owner = owners.first { used.insert(owner.index) }
        }
        // 605 paths leave no share empty.
        #expect(used.count == count)
    }

    @Test("shares are pinned: a file stays in its share in every process and every release")
    func sharesArePinned() throws {
        // MurmurHash3's published 64-bit finaliser, and FNV-1a's published values.
        #expect(Shard.spread(0) == 0)
        #expect(Shard.spread(1) == 0xb456_bcfc_34c2_cb2c)
        #expect(Shard.spread(.max) == 0x64b5_720b_4b82_5f21)
        // Computed independently (Python) from the two published functions: changing either
        // would move files of a batch that is under way into other shares.
        let pinned: [(String, [Int])] = [
            ("live/2019/a.flac", [0, 1, 2, 5, 14]),
            ("live/2019/a.mp3", [0, 0, 2, 3, 14]),
            ("hello", [0, 0, 0, 2, 4]),
            ("foo", [0, 1, 0, 0, 12]),
        ]
        for (path, expected) in pinned {
            let shares = try [2, 3, 4, 7, 16].map { count in
                try #require((0..<count).first { Shard(index: $0, count: count)!.contains(relativePath: path) })
            }
            #expect(shares == expected, "\(path)")
        }
    }

    @Test("FNV-1a hashes the UTF-8 bytes: text and its bytes agree, another encoding of a name differs")
    func stableHashBytes() {
        #expect(StableHash.fnv1a("hello") == 0xa430_d846_80aa_bd0b)
        #expect(StableHash.fnv1a("foo") == 0xdcb2_7518_fed9_d577)
        #expect(StableHash.fnv1a("café") == StableHash.fnv1a([0x63, 0x61, 0x66, 0xC3, 0xA9] as [UInt8]))
        #expect(StableHash.fnv1a("café") == 0x48e8_823a_cfa4_0d89)
        // The same name in Latin-1 (a name that is not UTF-8) is another file.
        #expect(StableHash.fnv1a([0x63, 0x61, 0x66, 0xE9] as [UInt8]) == 0xb538_f990_e859_62dc)
        // Any sequence of bytes, not only arrays.
        #expect(StableHash.fnv1a("hello".utf8.reversed().reversed()) == StableHash.fnv1a("hello"))
        // Unicode normalisation is not applied: é precomposed and decomposed are different paths.
        #expect(StableHash.fnv1a("\u{E9}") != StableHash.fnv1a("e\u{301}"))
    }

    // MARK: State records

    static func record(_ output: String = "live/a-REVERSED.wav", status: BatchRecord.Status = .done) -> BatchRecord {
        var record = BatchRecord(input: "live/a.mp3", size: 1000, modified: 1_700_000_000_123_456_789, output: output,
                                 options: "format=wav", version: "v1", status: status, shard: "0/2")
        record.outputSize = 5000
        return record
    }

    @Test("a record lives at OUT/.reverse-audio-state/RELATIVE.json; none is read from a missing folder, and none made")
    func recordPathAndMissingFolder() throws {
        let directory = try TemporaryDirectory()
        let store = BatchStateStore(outputFolder: directory.url)
        #expect(store.recordPath(for: "live/a-REVERSED.wav") == directory.url.path + "/.reverse-audio-state/live/a-REVERSED.wav.json")
        #expect(try store.record(for: "live/a-REVERSED.wav") == nil)
        #expect(directory.contents.isEmpty, "reading makes no state folder")
    }

    @Test("saving again replaces the record whole, in nested folders, leaving no temporary file")
    func saveReplaces() throws {
        let directory = try TemporaryDirectory()
        let store = BatchStateStore(outputFolder: directory.url)
        var record = Self.record("a/b/c/x-REVERSED.wav", status: .started)
        try store.save(record)
        #expect(try store.record(for: "a/b/c/x-REVERSED.wav")?.status == .started)
        record.status = .done
        record.sha256 = String(repeating: "0", count: 64)
        try store.save(record)
        #expect(try store.record(for: "a/b/c/x-REVERSED.wav") == record)
        let folder = directory.url.path + "/.reverse-audio-state/a/b/c"
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["x-REVERSED.wav.json"])
        // The record on disk is one JSON object with its keys sorted and slashes as they are.
        let text = try String(contentsOfFile: folder + "/x-REVERSED.wav.json", encoding: .utf8)
        #expect(text.contains("\"output\":\"a/b/c/x-REVERSED.wav\""))
        #expect(!text.contains("\n"))
    }

    @Test("a damaged record is no record: torn, not JSON, empty, another output's, a folder or a link")
    func damagedRecordsIgnored() throws {
        let directory = try TemporaryDirectory()
        let store = BatchStateStore(outputFolder: directory.url)
        let good = Self.record("a.wav")
        try store.save(good)
        let path = store.recordPath(for: "a.wav")
        let whole = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(try store.record(for: "a.wav") == good)

        // Torn: a run killed mid-write by an older version, or a copy cut short.
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: path))
        #expect(try store.record(for: "a.wav") == nil)
        try Data().write(to: URL(fileURLWithPath: path))
        #expect(try store.record(for: "a.wav") == nil)
        try Data("not json at all".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try store.record(for: "a.wav") == nil)
        // Well-formed, but naming another output (copied, or crafted to lead elsewhere).
        var other = good
        other.output = "../../etc/passwd"
        try JSONEncoder().encode(other).write(to: URL(fileURLWithPath: path))
        #expect(try store.record(for: "a.wav") == nil)
        // A symbolic link to a good record of this output is never followed.
        try whole.write(to: directory.file("elsewhere.json"))
        try FileManager.default.removeItem(atPath: path)
        try #require(symlink(directory.file("elsewhere.json").path, path) == 0)
        #expect(try store.record(for: "a.wav") == nil)
        // A folder under the record's name.
        try FileManager.default.removeItem(atPath: path)
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        #expect(try store.record(for: "a.wav") == nil)
    }

    @Test("a record of exactly 64 KiB is read; one byte more is not a record")
    func recordSizeLimit() throws {
        let directory = try TemporaryDirectory()
        let store = BatchStateStore(outputFolder: directory.url)
        let record = Self.record("a.wav")
        try store.save(record)
        let path = store.recordPath(for: "a.wav")
        let json = try JSONEncoder().encode(record)
        // JSON allows trailing white space: padded to the limit it is still the record.
        let padded = json + Data(repeating: UInt8(ascii: " "), count: BatchStateStore.maximumRecordBytes - json.count)
        try padded.write(to: URL(fileURLWithPath: path))
        #expect(try store.record(for: "a.wav") == record)
        try (padded + Data(" ".utf8)).write(to: URL(fileURLWithPath: path))
        #expect(try store.record(for: "a.wav") == nil)
    }

    @Test("a state folder that is a link or a file stops reading and saving with the folder named")
    func stateFolderRefused() throws {
        let directory = try TemporaryDirectory()
        let elsewhere = try TemporaryDirectory()
        let store = BatchStateStore(outputFolder: directory.url)
        let state = directory.url.path + "/" + BatchStateStore.folderName
        try #require(symlink(elsewhere.url.path, state) == 0)
        let attempts: [() throws -> Void] = [{ _ = try store.record(for: "a.wav") }, { try store.save(Self.record("a.wav")) }]
        for attempt in attempts {
            do {
                try attempt()
                Issue.record("a state folder that is a symbolic link was used")
            } catch let error as ReverseAudioError {
                guard case .input(.unreadable(let path, let reason)) = error else {
                    Issue.record("unexpected \(error)")
                    continue
                }
                #expect(path == state)
                #expect(reason.contains("symbolic link"))
            }
        }
        #expect(elsewhere.contents.isEmpty, "nothing written through the link")
        try FileManager.default.removeItem(atPath: state)
        try Data("x".utf8).write(to: URL(fileURLWithPath: state))
        #expect(throws: ReverseAudioError.input(.unreadable(
            path: state, reason: "the batch's state folder is not a folder (remove it, or choose another output folder)"))) {
            try store.save(Self.record("a.wav"))
        }
    }

    // MARK: Resume

    static func setModified(_ path: String, seconds: Int, nanoseconds: Int) throws {
        var times = [timespec(tv_sec: seconds, tv_nsec: nanoseconds), timespec(tv_sec: seconds, tv_nsec: nanoseconds)]
        try #require(utimensat(AT_FDCWD, path, &times, 0) == 0)
    }

    @Test("a file's state is one stat: size, nanosecond time, links followed; nothing for a missing or dangling name")
    func fileStateFromStat() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("a.mp3").path
        try Data(repeating: 7, count: 1234).write(to: URL(fileURLWithPath: file))
        try Self.setModified(file, seconds: 1_700_000_000, nanoseconds: 123_456_789)
        let state = try #require(ResumeDecision.FileState(path: file))
        #expect(state == ResumeDecision.FileState(isRegularFile: true, size: 1234, modified: 1_700_000_000_123_456_789))
        try #require(symlink(file, directory.file("link.mp3").path) == 0)
        #expect(ResumeDecision.FileState(path: directory.file("link.mp3").path) == state)
        #expect(ResumeDecision.FileState(path: directory.url.path)?.isRegularFile == false)
        #expect(ResumeDecision.FileState(path: directory.file("missing").path) == nil)
        try #require(symlink(directory.file("missing").path, directory.file("dangling").path) == 0)
        #expect(ResumeDecision.FileState(path: directory.file("dangling").path) == nil)
        try #require(mkfifo(directory.file("fifo").path, 0o600) == 0)
        #expect(ResumeDecision.FileState(path: directory.file("fifo").path)?.isRegularFile == false)
    }

    @Test("a rerun over records on disk skips what is done, and redoes an input touched by a nanosecond")
    func rerunSkipsDone() throws {
        let directory = try TemporaryDirectory()
        let store = BatchStateStore(outputFolder: directory.url)
        let input = directory.file("a.mp3").path
        let output = directory.file("a-REVERSED.wav").path
        try Data(repeating: 1, count: 1000).write(to: URL(fileURLWithPath: input))
        try Data(repeating: 2, count: 5000).write(to: URL(fileURLWithPath: output))
        try Self.setModified(input, seconds: 1_700_000_000, nanoseconds: 500)
        // The first run: what it read, and what it wrote.
        let read = try #require(ResumeDecision.FileState(path: input))
        var record = BatchRecord(input: "a.mp3", size: read.size, modified: read.modified, output: "a-REVERSED.wav",
                                 options: "o", version: "v", status: .done)
        record.outputSize = ResumeDecision.FileState(path: output)?.size
        try store.save(record)

        func rerun() throws -> ResumeDecision {
            ResumeDecision.decide(record: try store.record(for: "a-REVERSED.wav"), input: try #require(ResumeDecision.FileState(path: input)),
                                  output: ResumeDecision.FileState(path: output), options: "o", version: "v", overwrite: false)
        }
        #expect(try rerun() == .skip)
        #expect(try rerun() == .skip, "a rerun changes nothing on disk")
        try Self.setModified(input, seconds: 1_700_000_000, nanoseconds: 501)
        #expect(try rerun() == .replace(reason: "the input changed"))
        // The output removed since: written anew.
        try Self.setModified(input, seconds: 1_700_000_000, nanoseconds: 500)
        try FileManager.default.removeItem(atPath: output)
        #expect(try rerun() == .write)
        // A damaged record under an output that is there: not the batch's, refused.
        try Data(repeating: 2, count: 5000).write(to: URL(fileURLWithPath: output))
        try Data("{\"inp".utf8).write(to: URL(fileURLWithPath: store.recordPath(for: "a-REVERSED.wav")))
        #expect(try rerun() == .refuse)
    }

    @Test("resume: a missing output is written even with -y; a failed record is redone; the first change found is the reason")
    func resumeEdges() {
        let input = ResumeDecision.FileState(isRegularFile: true, size: 1000, modified: 1_700_000_000_123_456_789)
        let output = ResumeDecision.FileState(isRegularFile: true, size: 5000, modified: 9)
        let record = Self.record("a.wav")
        func decide(_ record: BatchRecord?, output: ResumeDecision.FileState? = output, options: String = "format=wav",
                    version: String = "v1", overwrite: Bool = false) -> ResumeDecision {
            ResumeDecision.decide(record: record, input: input, output: output, options: options, version: version, overwrite: overwrite)
        }
        #expect(decide(record, output: nil, overwrite: true) == .write)
        // With -y even a file the batch did not record is written again.
        #expect(decide(nil, overwrite: true) == .replace(reason: "-y"))
        // A folder under the output's name is never the batch's, recorded or not.
        #expect(decide(record, output: .init(isRegularFile: false, size: 4096, modified: 9)) == .refuse)
        for status in [BatchRecord.Status.started, .failed] {
            var unfinished = record
            unfinished.status = status
            #expect(decide(unfinished) == .replace(reason: "an earlier run stopped while writing it"), "\(status)")
        }
        // A record without the output's size cannot vouch for it.
        var sizeless = record
        sizeless.outputSize = nil
        #expect(decide(sizeless) == .replace(reason: "the output is not the size recorded"))
        #expect(decide(record, options: "format=flac", version: "v2") == .replace(reason: "the options changed"))
        // The output's time is not the record's business: copying outputs keeps them current.
        #expect(decide(record, output: .init(isRegularFile: true, size: 5000, modified: 1)) == .skip)
    }

    // MARK: Claims

    @Test("of two claims on one output the first wins until it releases; the claim file goes with it")
    func claimsExclude() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a.wav.json.claim").path
        let first = try #require(try OutputClaim.claim(at: path))
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(ProcessCleanup.registeredFiles.contains(path), "a watchdog would remove it")
        #expect(try OutputClaim.claim(at: path) == nil)
        #expect(try OutputClaim.claim(at: path) == nil, "still held")
        first.release()
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!ProcessCleanup.registeredFiles.contains(path))
        first.release()
        let second = try #require(try OutputClaim.claim(at: path))
        #expect(FileManager.default.fileExists(atPath: path))
        second.release()
        #expect(directory.contents.isEmpty)
    }

    @Test("a claim file no run holds (left by a killed run) is swept and claimed")
    func staleClaimSwept() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a.wav.json.claim").path
        try Data().write(to: URL(fileURLWithPath: path))
        let claim = try #require(try OutputClaim.claim(at: path))
        #expect(try OutputClaim.claim(at: path) == nil)
        claim.release()
        #expect(directory.contents.isEmpty)
    }

    @Test("a folder under a claim's name is left alone: the run goes on unclaimed")
    func claimNameTakenByFolder() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("a.wav.json.claim").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
        let claim = try OutputClaim.claim(at: path)
        #expect(claim != nil)
        claim?.release()
        var isFolder: ObjCBool = false
        #expect(FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) && isFolder.boolValue)
    }

    @Test("claims through two stores of one output folder: the state folders are made, and at most one of many racers wins")
    func storesRaceForClaim() async throws {
        let directory = try TemporaryDirectory()
        let first = BatchStateStore(outputFolder: directory.url)
        let held = try #require(try first.claim("live/2019/a-REVERSED.wav"))
        #expect(FileManager.default.fileExists(atPath: first.recordPath(for: "live/2019/a-REVERSED.wav") + ".claim"))
        #expect(try BatchStateStore(outputFolder: directory.url).claim("live/2019/a-REVERSED.wav") == nil)
        held.release()
        let url = directory.url
        let claims = try await withThrowingTaskGroup(of: OutputClaim?.self) { group in
            for _ in 0..<8 {
                group.addTask { try BatchStateStore(outputFolder: url).claim("live/b-REVERSED.wav") }
            }
            var claims: [OutputClaim] = []
            for try await claim in group {
                if let claim { claims.append(claim) }
            }
            return claims
        }
        // Two racers can sweep each other's fresh file and both step back; two can never both win.
        #expect(claims.count <= 1)
        claims.forEach { $0.release() }
    }

    // MARK: Manifests

    static func lines(_ path: String) throws -> [Substring] {
        try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
    }

    @Test("a manifest line is one JSON object: quotes, backslashes, newlines and control characters escaped, slashes kept, keys sorted")
    func manifestEscaping() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("m.jsonl").path
        let manifest = try ManifestWriter(path: path)
        var record = Self.record("live/\"quoted\"\\back-REVERSED.wav", status: .failed)
        record.input = "live/line\nbreak\ttab\u{1}\u{1B}[31mé.mp3"
        record.errorKind = "notMedia"
        record.error = "live/x: not an audio file FFmpeg can read (Invalid data)"
        try manifest.append(record)
        try manifest.append(Self.record())
        let lines = try Self.lines(path)
        #expect(lines.count == 3 && lines.last == "", "two lines, each ended by a newline")
        let decoded = try JSONDecoder().decode(BatchRecord.self, from: Data(lines[0].utf8))
        #expect(decoded == record)
        #expect(lines[0].contains("\"input\":\"live/line\\nbreak\\ttab\\u0001\\u001b[31mé.mp3\""))
        #expect(lines[0].contains("\"output\":\"live/\\\"quoted\\\"\\\\back-REVERSED.wav\""))
        let keys = ["\"error\"", "\"errorKind\"", "\"input\"", "\"modified\"", "\"options\"", "\"output\"", "\"outputSize\"",
                    "\"shard\"", "\"size\"", "\"status\"", "\"version\""]
        let offsets = try keys.map { key in try #require(lines[0].range(of: key)).lowerBound }
        #expect(offsets == offsets.sorted(), "keys in sorted order")
        #expect(ManifestWriter.firstByte(of: path) == UInt8(ascii: "{"))
    }

    @Test("a torn last line is cut before the next line, once, however long; whole lines before it are kept")
    func tornLineRepaired() throws {
        let directory = try TemporaryDirectory()
        for fragmentLength in [1, 17, 4095, 4096, 10_000] {
            let path = directory.file("m\(fragmentLength).jsonl").path
            let whole = try JSONEncoder().encode(Self.record()) + Data("\n".utf8)
            let fragment = Data("{".utf8) + Data(repeating: UInt8(ascii: "x"), count: fragmentLength - 1)
            try (whole + whole + fragment).write(to: URL(fileURLWithPath: path))
            let repairs = Collected<String>()
            let manifest = try ManifestWriter(path: path, onRepair: { repairs.append($0) })
            var record = Self.record()
            record.status = .skipped
            try manifest.append(record)
            try manifest.append(record)
            let lines = try Self.lines(path)
            #expect(lines.count == 5, "\(fragmentLength)")
            #expect(try lines.dropLast().map { try JSONDecoder().decode(BatchRecord.self, from: Data($0.utf8)).status }
                    == [.done, .done, .skipped, .skipped])
            #expect(repairs.values.count == 1)
            #expect(repairs.values.first?.contains("torn line (\(fragmentLength) bytes") == true, "\(repairs.values)")
        }
        // A manifest that is nothing but a fragment is emptied before its first line.
        let path = directory.file("only.jsonl").path
        try Data("{\"input\":\"a".utf8).write(to: URL(fileURLWithPath: path))
        try ManifestWriter(path: path).append(Self.record())
        #expect(try Self.lines(path).count == 2)
    }

    @Test("lines appended at once by two writers (two shards) and several tasks each are all whole")
    func concurrentAppends() async throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("m.jsonl").path
        let writers = try [ManifestWriter(path: path), ManifestWriter(path: path)]
        // Lines far longer than PIPE_BUF, so only the lock keeps them apart.
        let long = String(repeating: "o", count: 20_000)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<6 {
                let writer = writers[task % 2]
                group.addTask {
                    for number in 0..<40 {
                        var record = Self.record("\(task)/\(number).wav")
                        record.options = long
                        try writer.append(record)
                    }
                }
            }
            try await group.waitForAll()
        }
        let lines = try Self.lines(path).dropLast()
        #expect(lines.count == 240)
        let outputs = try Set(lines.map { try JSONDecoder().decode(BatchRecord.self, from: Data($0.utf8)).output })
        #expect(outputs.count == 240)
    }

    @Test("a manifest in a missing folder is refused at once, naming it; firstByte reads only a regular, non-empty file")
    func manifestRefusedAndFirstByte() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("missing/m.jsonl").path
        #expect(throws: ReverseAudioError.output(.cannotCreateOutput(path: path, reason: "cannot open the manifest (\(String(cString: strerror(ENOENT))))"))) {
            _ = try ManifestWriter(path: path)
        }
        #expect(ManifestWriter.firstByte(of: path) == nil)
        #expect(ManifestWriter.firstByte(of: directory.url.path) == nil)
        try Data().write(to: directory.file("empty"))
        #expect(ManifestWriter.firstByte(of: directory.file("empty").path) == nil)
        try #require(mkfifo(directory.file("fifo").path, 0o600) == 0)
        #expect(ManifestWriter.firstByte(of: directory.file("fifo").path) == nil, "a FIFO is never opened (that would wait)")
    }

    @Test("a FIFO manifest is opened at the first line: a cancelled wait for a reader throws; with a reader, the line arrives")
    func fifoManifest() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("m.fifo").path
        try #require(mkfifo(path, 0o600) == 0)
        let cancelled = try ManifestWriter(path: path, isCancelled: { true })
        #expect(throws: CancellationError.self) { try cancelled.append(Self.record()) }
        // Our own reader, in this process: no other process is needed to take the line.
        let reader = open(path, O_RDONLY | O_NONBLOCK)
        try #require(reader >= 0)
        defer { close(reader) }
        let manifest = try ManifestWriter(path: path)
        try manifest.append(Self.record())
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(reader, &buffer, buffer.count)
        try #require(count > 0)
        #expect(buffer[count - 1] == UInt8(ascii: "\n"))
        #expect(try JSONDecoder().decode(BatchRecord.self, from: Data(buffer[0..<(count - 1)])) == Self.record())
        var status = stat()
        #expect(stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFIFO, "still a FIFO, never cut or replaced")
    }

    // MARK: Records and failures as data

    @Test("a record encodes only the fields it has; status names are stable; a record missing a field or with an unknown status is refused")
    func recordCoding() throws {
        let plain = BatchRecord(input: "a.mp3", size: 1, modified: 2, output: "a.wav", options: "o", version: "v", status: .started)
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let object = try #require(try JSONSerialization.jsonObject(with: encoder.encode(plain)) as? [String: Any])
        #expect(object.keys.sorted() == ["input", "modified", "options", "output", "size", "status", "version"])
        #expect([BatchRecord.Status.started, .done, .skipped, .failed, .ignored].map(\.rawValue) == ["started", "done", "skipped", "failed", "ignored"])
        var full = plain
        full.status = .done
        full.outputSize = 3
        full.sha256 = String(repeating: "f", count: 64)
        full.frames = 44_100
        full.seconds = 1.0
        full.errorKind = "k"
        full.error = "e"
        full.shard = "1/2"
        #expect(try JSONDecoder().decode(BatchRecord.self, from: JSONEncoder().encode(full)) == full)
        let missingStatus = #"{"input":"a","size":1,"modified":2,"output":"b","options":"o","version":"v"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(BatchRecord.self, from: Data(missingStatus.utf8)) }
        let unknownStatus = #"{"input":"a","size":1,"modified":2,"output":"b","options":"o","version":"v","status":"paused"}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(BatchRecord.self, from: Data(unknownStatus.utf8)) }
        // A record of a later version with fields this one does not know is still read.
        let later = #"{"input":"a","size":1,"modified":2,"output":"b","options":"o","version":"v","status":"done","gpu":true}"#
        #expect(try JSONDecoder().decode(BatchRecord.self, from: Data(later.utf8)).status == .done)
    }

    @Test("no space, no quota, a read-only disk or no permission on the output side stop the batch; an I/O error or an input's failure do not")
    func failureClasses() {
        for code in [ENOSPC, EDQUOT, EROFS, EACCES] {
            let reason = "could not write: \(String(cString: strerror(code)))"
            #expect(BatchFailure.stopsTheBatch(.output(.writeFailed(path: "o.wav", reason: reason))), "\(code)")
            #expect(BatchFailure.stopsTheBatch(.output(.cannotCreateOutput(path: "o.wav", reason: reason))), "\(code)")
        }
        #expect(!BatchFailure.stopsTheBatch(.output(.writeFailed(path: "o.wav", reason: String(cString: strerror(EIO))))))
        #expect(!BatchFailure.stopsTheBatch(.input(.unreadable(path: "a.mp3", reason: String(cString: strerror(EACCES))))))
        #expect(!BatchFailure.stopsTheBatch(.output(.verificationFailed(path: "o.wav", reason: String(cString: strerror(ENOSPC))))))
        #expect(BatchFailure.kind(of: .range(.emptyRange(path: "a", start: 1, end: 1))) == "emptyRange")
        #expect(BatchFailure.kind(of: .setting(.outOfRange(.bitRate, value: "1", allowed: "8 to 640 kb/s"))) == "outOfRange")
        #expect(BatchFailure.kind(of: .device(.deviceFailed(name: "default", reason: "x"))) == "deviceFailed")
        #expect(BatchFailure.kind(of: .output(.writeFailed(path: "o", reason: "r"))) == "writeFailed")
    }

    // MARK: Walks

    static func makeLibrary(_ directory: TemporaryDirectory) throws {
        for name in ["b.mp3", "A.FLAC", "notes.txt", ".hidden.wav", "song.mp3", "song.flac", "noext", "x.Opus"] {
            try Data("x".utf8).write(to: directory.file(name))
        }
        try FileManager.default.createDirectory(at: directory.file("sub"), withIntermediateDirectories: false)
        try Data("x".utf8).write(to: directory.file("sub/song.wav"))
        try #require(symlink("..", directory.file("sub/up").path) == 0)
        try FileManager.default.createDirectory(at: directory.file("out"), withIntermediateDirectories: false)
        try Data("x".utf8).write(to: directory.file("out/a-REVERSED.wav"))
        try #require(mkfifo(directory.file("pipe.wav").path, 0o600) == 0)
    }

    @Test("the walked extensions are the thirteen, in any case, by the last extension only")
    func supportedExtensions() {
        #expect(SupportedAudioFiles.extensions.count == 13)
        for name in ["a.aac", "a.M4A", "a.aiff", "a.AIF", "a.wav", "a.mp3", "a.caf", "a.m4r", "a.flac", "a.ogg", "a.oga", "a.opus",
                     "a.WebM", "a.tar.mp3"] {
            #expect(SupportedAudioFiles.isSupported(URL(fileURLWithPath: "/x/\(name)")), "\(name)")
        }
        for name in ["a.mp4", "a.mp3.txt", "a.wma", "mp3", "a.", "a.mkv", "a.aiffc"] {
            #expect(!SupportedAudioFiles.isSupported(URL(fileURLWithPath: "/x/\(name)")), "\(name)")
        }
    }

    @Test("a folder's audio files, sorted without regard to case; hidden files, subfolders, FIFOs and other extensions passed over")
    func filesInFolder() throws {
        let directory = try TemporaryDirectory()
        try Self.makeLibrary(directory)
        let names = try SupportedAudioFiles.files(in: directory.url).map(\.lastPathComponent)
        #expect(names == ["A.FLAC", "b.mp3", "song.flac", "song.mp3", "x.Opus"])
        #expect(throws: ReverseAudioError.input(.fileNotFound(path: directory.file("none").path))) {
            _ = try SupportedAudioFiles.files(in: directory.file("none"))
        }
    }

    @Test("a recursive walk: relative folders, stems kept apart only within a folder, every pass-over with its reason")
    func recursiveWalk() throws {
        let directory = try TemporaryDirectory()
        try Self.makeLibrary(directory)
        let found = try SupportedAudioFiles.collect([directory.url], recursive: true, allFormats: false, excluding: [directory.file("out")])
        #expect(found.failures.isEmpty)
        #expect(found.files.map(\.relativePath) == ["A.FLAC", "b.mp3", "song.flac", "song.mp3", "x.Opus", "sub/song.wav"])
        #expect(found.files.map(\.outputStem) == ["A", "b", "song-flac", "song-mp3", "x", "song"])
        let reasons = Dictionary(found.skipped.map { (($0.path as NSString).lastPathComponent, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(reasons[".hidden.wav"] == "hidden")
        #expect(reasons["pipe.wav"]?.contains("a FIFO") == true)
        #expect(reasons["notes.txt"]?.hasPrefix("not one of aac m4a") == true)
        #expect(reasons["noext"] != nil)
        #expect(reasons["out"] == "the output folder: its files are outputs, not inputs")
        #expect(reasons["up"] == "a folder already walked (a link back to it)")
        // Every format: the text file too, never the FIFO.
        let every = try SupportedAudioFiles.collect([directory.url], recursive: false, allFormats: true, excluding: [directory.file("out")])
        #expect(every.files.map(\.relativePath) == ["A.FLAC", "b.mp3", "noext", "notes.txt", "song.flac", "song.mp3", "x.Opus"])
        #expect(every.skipped.contains { $0.path.hasSuffix("/sub") && $0.reason == "a folder, and recursion is off" })
    }

    @Test("files named directly: taken once, named as a walk names them; a missing one is a failure, not a stop")
    func namedFiles() throws {
        let directory = try TemporaryDirectory()
        try Self.makeLibrary(directory)
        let song = directory.file("song.mp3")
        try #require(link(song.path, directory.file("hard.mp3").path) == 0)
        let found = try SupportedAudioFiles.collect(arguments: [
            .init(url: song, relativeFolder: "mine"), .init(url: directory.file("missing.mp3")),
            .init(url: directory.file("hard.mp3")), .init(url: directory.file("b.mp3")),
        ], recursive: false, allFormats: false)
        #expect(found.files.map(\.relativePath) == ["mine/song.mp3", "b.mp3"])
        #expect(found.files.first?.outputStem == "song-mp3", "song.flac beside it")
        #expect(found.failures == [.input(.fileNotFound(path: directory.file("missing.mp3").path))])
        #expect(found.skipped.map(\.reason) == ["named twice: the same file as an earlier input"])
    }
}
