import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Inputs of a batch that meet over a name, runs of one batch that meet over its outputs, and a
/// manifest that is a FIFO (issue 28, item 13).
@Suite(.runsProcesses) struct BatchCollisionTests {
    static let audio = "mp3-cbr128-xing-2ch-44100.mp3"

    @Test("an input that fails because its output is an earlier input's has its line in the manifest")
    func clashHasAManifestLine() async throws {
        let directory = try TemporaryDirectory()
        for folder in ["a", "b"] {
            try FileManager.default.createDirectory(at: directory.file(folder), withIntermediateDirectories: true)
            try copyFixture(Self.audio, into: directory, as: "\(folder)/x.mp3")
        }
        let manifest = directory.file("m.jsonl")
        let result = try await CLI.run(["reverse", "a/x.mp3", "b/x.mp3", "-o", "out", "--manifest", manifest.path], in: directory.url)
        #expect(result.status == 1, "\(result.errorText)")
        let objects = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n").map { try jsonObject(String($0)) }
        let statuses = Dictionary(uniqueKeysWithValues: objects.map { ($0["input"] as? String ?? "?", $0["status"] as? String ?? "?") })
        #expect(statuses == ["a/x.mp3": "done", "b/x.mp3": "failed"], "\(objects)")
        #expect(objects.first { $0["input"] as? String == "b/x.mp3" }?["errorKind"] as? String == "cannotCreateOutput", "\(objects)")
    }

    /// `caf\xE9.mp3`: the four characters backslash, x, E, 9; and `caf` then the byte 0xE9.
    static let literal = Array("caf\\xE9.mp3".utf8)
    static let byte = Array("caf".utf8) + [0xE9] + Array(".mp3".utf8)

    @Test("a name with a literal backslash escape and the name with that byte get outputs of their own, walked or named",
          arguments: [false, true])
    func escapedNamesDoNotCollide(_ named: Bool) async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("in"), withIntermediateDirectories: true)
        let audio = try Data(contentsOf: Fixtures.url(Self.audio))
        for name in [Self.literal, Self.byte] { try writeFile(named: name, in: directory.file("in"), contents: audio) }
        let command = named ? "\"$TOOL\" reverse in/* -o out" : "\"$TOOL\" reverse in -o out"
        for run in ["first", "rerun"] {
            let result = try await runShell(command, in: directory.url)
            #expect(result.status == 0, "\(run): \(result.errorText)")
        }
        let outputs = rawNames(in: directory.file("out")).filter { $0.first != UInt8(ascii: ".") }
        #expect(outputs.count == 2, "\(outputs)")
    }

    @Test("three identical runs of one shard at once: every output done once, the other runs skip it, all exit 0")
    func identicalRunsAtOnce() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("in"), withIntermediateDirectories: true)
        // A 4-minute input takes long enough that the three runs meet over it.
        try await FileManager.default.copyItem(at: try LongInputs.mp3FourMinutes(), to: directory.file("in/long.mp3"))
        try copyFixture(Self.audio, into: directory, as: "in/short.mp3")
        let manifest = directory.file("m.jsonl")
        let arguments = ["reverse", directory.file("in").path, "-o", directory.file("out").path, "--manifest", manifest.path,
                         "--shard", "0/1", "--threads", "1", "--jobs", "1"]
        let runs = try (0..<3).map { _ in try RunningTool(arguments) }
        for run in runs {
            #expect(await run.waitUntilExit(timeout: 120))
            #expect(run.process.terminationStatus == 0, "\(run.errorText)")
        }
        let objects = try String(contentsOf: manifest, encoding: .utf8).split(separator: "\n").map { try jsonObject(String($0)) }
        for input in ["long.mp3", "short.mp3"] {
            let statuses = objects.filter { ($0["input"] as? String)?.hasSuffix(input) == true }.compactMap { $0["status"] as? String }
            #expect(statuses.sorted() == ["done", "skipped", "skipped"], "\(input): \(statuses)")
        }
        #expect(outputContents(directory.file("out")) == ["long-REVERSED.wav", "short-REVERSED.wav"])
        #expect(folderContents(directory.file("out/.reverse-audio-state")) == ["long-REVERSED.wav.json", "short-REVERSED.wav.json"],
                "claims or partials left behind")
    }

    @Test("a FIFO manifest without a reader does not hold the work up: the first output is made, then its line waits for the reader")
    func fifoManifest() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("m.fifo")
        try makeFIFO(fifo)
        let tool = try RunningTool(["reverse", Fixtures.url(Self.audio).path, "-o", directory.file("out").path, "--manifest", fifo.path])
        let worked = await tool.wait(upTo: 20) { outputContents(directory.file("out")).contains { !$0.hasPrefix(".") } }
        let received = LockedBox()
        // The reader comes now; on Linux a reader waiting in open() already counts as one.
        let reading = Thread {
            if let handle = FileHandle(forReadingAtPath: fifo.path) { received.set(handle.readDataToEndOfFile()) }
        }
        reading.start()
        #expect(worked, "no output was made before the manifest had a reader")
        #expect(await tool.waitUntilExit(timeout: 20))
        #expect(tool.process.terminationStatus == 0, "\(tool.errorText)")
        let deadline = Date().addingTimeInterval(5)
        while received.value == nil && Date() < deadline { try? await Task.sleep(for: .microseconds(10_000)) }
        let lines = String(decoding: received.value ?? Data(), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 1 && (try? jsonObject(String(lines[0])))?["status"] as? String == "done", "\(lines)")
    }
}

/// Data handed from a reading thread to the test.
private final class LockedBox: @unchecked Sendable {
    // @unchecked: `data` is only touched under `lock`.
    private let lock = NSLock()
    private var data: Data?

    func set(_ value: Data) {
        lock.lock()
        data = value
        lock.unlock()
    }

    var value: Data? {
        lock.lock()
        defer { lock.unlock() }
        return data
    }
}
