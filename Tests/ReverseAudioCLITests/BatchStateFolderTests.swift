import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The batch's state folder (`OUT/.reverse-audio-state`) is the output side: one that cannot be
/// read stops the batch with 74; a record is never read whole when it is huge, never echoed when
/// it names another output, and never reached through a symbolic link (issue 28, item 12).
@Suite(.runsProcesses) struct BatchStateFolderTests {
    /// A batch of the small library into a fresh output folder, done once.
    static func doneBatch() async throws -> (source: TemporaryDirectory, output: TemporaryDirectory) {
        let source = try BatchResumeTests.smallLibrary()
        let output = try TemporaryDirectory()
        let first = try await CLI.run(["reverse", source.url.path, "-o", output.url.path])
        try #require(first.status == 0, "\(first.errorText)")
        return (source, output)
    }

    static let state = ".reverse-audio-state"

    /// True where this root process can run the tool as `nobody` (root bypasses permissions).
    static func canDropToNobody() async -> Bool {
        guard getuid() == 0 else { return false }
        return (try? await ProcessRunner.run("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "true"]).status) == 0
    }

    @Test("a state folder that cannot be read stops the batch with 74, naming it, not 'output already exists'",
          .enabled("as root, needs setpriv to run as nobody") { getuid() != 0 ? true : await canDropToNobody() })
    func unreadableStateFolder() async throws {
        let (source, output) = try await Self.doneBatch()
        let stateFolder = output.file(Self.state)
        // Everyone may reach and read the rest (the run is as nobody when the tests run as root).
        for folder in [source.url, source.file("live"), output.url, output.file("live")] { chmod(folder.path, 0o777) }
        try #require(chmod(stateFolder.path, 0) == 0)
        defer { chmod(stateFolder.path, 0o755) }
        var command = [BuiltProducts.reverseAudio.path, "reverse", source.url.path, "-o", output.url.path]
        if getuid() == 0 { command = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command }
        let result = try await ProcessRunner.run(command[0], Array(command.dropFirst()))
        #expect(result.status == 74, "\(result.errorText)")
        #expect(!result.errorText.contains("already exists"), "\(result.errorText)")
        #expect(result.errorReports.first?.contains(Self.state) == true, "\(result.errorText)")
    }

    @Test("a huge record (a 3 GB sparse file) is not read whole: it is not a record")
    func hugeRecord() async throws {
        let (source, output) = try await Self.doneBatch()
        let record = output.file("\(Self.state)/song-mp3-REVERSED.wav.json")
        let handle = try FileHandle(forWritingTo: record)
        try handle.truncate(atOffset: 3 << 30)  // sparse: no disk space used
        try handle.close()
        // GNU time's %M: the largest resident set, in KiB.
        let result = try await ProcessRunner.run("/usr/bin/time", ["-f", "peak %M", BuiltProducts.reverseAudio.path,
                                                             "reverse", source.url.path, "-o", output.url.path])
        let peak = result.errorLines.last { $0.hasPrefix("peak ") }.flatMap { Int($0.dropFirst(5)) } ?? .max
        #expect(peak < 300_000, "peak resident set \(peak) KiB: \(result.errorText)")
        // Not the batch's record, so the output is not the batch's own: left alone, as without one.
        #expect(result.status == 1 && result.errorText.contains("song-mp3-REVERSED.wav") && result.errorText.contains("already exists"),
                "\(result.errorText)")
    }

    @Test("a record that names another output is not this output's: its path is never echoed to --json or the manifest")
    func recordNamingAnotherOutput() async throws {
        let (source, output) = try await Self.doneBatch()
        let record = output.file("\(Self.state)/song-mp3-REVERSED.wav.json")
        var object = try jsonObject(String(decoding: try Data(contentsOf: record), as: UTF8.self))
        object["output"] = "../../../../tmp/evil.wav"
        try JSONSerialization.data(withJSONObject: object).write(to: record)
        let manifest = output.file("m.jsonl")
        let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path, "--json", "--manifest", manifest.path])
        let written = try String(contentsOf: manifest, encoding: .utf8)
        #expect(!result.outputText.contains("evil") && !written.contains("evil"), "\(result.outputText)\n\(written)")
        #expect(!result.outputText.contains("..") && !written.contains(".."), "\(result.outputText)\n\(written)")
    }

    @Test("a state folder that is a symbolic link is never followed: the batch stops with 74 and writes nothing through it")
    func symlinkedStateFolder() async throws {
        let source = try BatchResumeTests.smallLibrary()
        let output = try TemporaryDirectory()
        let elsewhere = try TemporaryDirectory()
        try FileManager.default.createSymbolicLink(atPath: output.file(Self.state).path, withDestinationPath: elsewhere.url.path)
        let result = try await CLI.run(["reverse", source.url.path, "-o", output.url.path])
        #expect(result.status == 74, "\(result.errorText)")
        #expect(result.errorReports.first?.contains(Self.state) == true && result.errorText.contains("symbolic link"), "\(result.errorText)")
        #expect(elsewhere.contents.isEmpty, "written through the link: \(elsewhere.contents)")
        #expect(output.contents == [Self.state], "outputs written: \(output.contents)")

        // A rerun after a batch made its records: the link is not followed to read them either.
        let (doneSource, done) = try await Self.doneBatch()
        let records = done.file(Self.state)
        try FileManager.default.moveItem(at: records, to: elsewhere.file("records"))
        try FileManager.default.createSymbolicLink(atPath: records.path, withDestinationPath: elsewhere.file("records").path)
        let rerun = try await CLI.run(["reverse", doneSource.url.path, "-o", done.url.path])
        #expect(rerun.status == 74 && rerun.errorText.contains("symbolic link"), "\(rerun.errorText)")
    }
}
