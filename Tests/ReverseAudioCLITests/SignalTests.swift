import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 19, items 2–4: one cancellation rule for every command. SIGINT, SIGTERM or SIGHUP,
/// sent while a command works or waits (a FIFO with no writer, a writer that went silent, a
/// long silence being written), ends it within one second with 128 + the signal's number, and
/// leaves neither the output nor a partial nor a temporary file.
@Suite(.serialized, .runsProcesses) struct SignalTests {
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    static let shortInput = "wav-pcm_s16le-1ch-8000.wav"

    /// Signals `tool` once `ready` holds, and checks how it ended.
    static func expectStopped(_ tool: RunningTool, by signal: Int32, _ label: String, folder: TemporaryDirectory, keeping: [String],
                              sourceLocation: SourceLocation = #_sourceLocation, ready: () -> Bool) async {
        guard await tool.wait(upTo: 30, until: ready) else {
            let how = tool.hasExited ? "it ended first" : "still waiting after 30 s"
            _ = await tool.stop(with: SIGKILL)  // a no-op if it ended; either way its stderr is read
            let reason = tool.process.terminationReason == .exit ? "exit" : "killed by signal"
            Issue.record("\(label): never got going (\(how); \(reason) \(tool.process.terminationStatus)): \(tool.errorText)",
                         sourceLocation: sourceLocation)
            return
        }
        let seconds = await tool.stop(with: signal)
        #expect(seconds != nil && seconds! < 1.0, "\(label): \(seconds.map { String(format: "%.2f s", $0) } ?? "no exit") after signal \(signal)",
                sourceLocation: sourceLocation)
        #expect(tool.process.terminationReason == .exit, "\(label): killed by the signal instead of exiting", sourceLocation: sourceLocation)
        #expect(tool.process.terminationStatus == 128 + signal, "\(label): exit \(tool.process.terminationStatus): \(tool.errorText)",
                sourceLocation: sourceLocation)
        #expect(folder.contents == keeping.sorted(), "\(label): left behind \(folder.contents)", sourceLocation: sourceLocation)
        #expect(tool.temporaryLeftovers.isEmpty, "\(label): temporary files left: \(tool.temporaryLeftovers)", sourceLocation: sourceLocation)
    }

    // MARK: Blocked: a FIFO nobody writes to

    /// The commands that take a file, each given a FIFO that no one opens for writing (`video`
    /// refuses a pipe before reading: see below; `list` passes FIFOs over: see WalkTests).
    static let fifoCommands: [String] = ["convert", "reverse", "trim", "join", "compose", "info", "play", "waveform"]

    static func arguments(for command: String, fifo: String, folder: TemporaryDirectory) throws -> [String] {
        switch command {
        case "convert": return ["convert", fifo, folder.file("out.wav").path]
        case "reverse": return ["reverse", fifo, "-o", folder.file("out").path]
        case "trim": return ["trim", fifo, folder.file("out.wav").path, "--start", "0.1"]
        case "join": return ["join", fifo, Fixtures.url(shortInput).path, "-o", folder.file("out.wav").path]
        case "compose":
            try "\"\(fifo)\" 0 1\n".write(to: folder.file("plan.txt"), atomically: true, encoding: .utf8)
            return ["compose", folder.file("plan.txt").path, "-o", folder.file("out.wav").path]
        case "info": return ["info", fifo]
        case "play": return ["play", fifo, "--to-file", folder.file("out.wav").path]
        default: return ["waveform", fifo, folder.file("out.png").path]
        }
    }

    @Test("video refuses a FIFO at once: it reads a video from its end")
    func videoOnFifo() async throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.file("in.fifo")
        try makeFIFO(fifo)
        let tool = try RunningTool(["video", fifo.path, folder.file("out.mp4").path])
        #expect(await tool.waitUntilExit(timeout: 5), "video waited on the FIFO")
        #expect(tool.process.terminationStatus == 1 && tool.errorText.contains("not a pipe"), "\(tool.errorText)")
        #expect(folder.contents == ["in.fifo"])
    }

    @Test("a FIFO with no writer: every command stops on every signal within 1 s, leaving nothing",
          arguments: fifoCommands, signals)
    func fifoWithoutWriter(_ command: String, _ signal: Int32) async throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.file("in.fifo")
        try makeFIFO(fifo)
        let arguments = try Self.arguments(for: command, fifo: fifo.path, folder: folder)
        let tool = try RunningTool(arguments)
        await Self.expectStopped(tool, by: signal, "\(command) on a FIFO", folder: folder, keeping: folder.contents) {
            tool.holdsOpen(fifo.path)
        }
    }

    // MARK: Blocked: a writer that went silent

    @Test("a FIFO whose writer stalls after a few bytes: convert stops", arguments: signals)
    func silentFifoWriter(_ signal: Int32) async throws {
        let folder = try TemporaryDirectory()
        let fifo = folder.file("in.fifo")
        try makeFIFO(fifo)
        let head = try Data(contentsOf: Fixtures.url("mp3-cbr64-xing-1ch-22050.mp3")).prefix(3000)
        let writer = StallingWriter(fifo: fifo, head: head)
        defer { writer.close() }
        let tool = try RunningTool(["convert", fifo.path, folder.file("out.wav").path])
        await Self.expectStopped(tool, by: signal, "convert on a stalled FIFO", folder: folder, keeping: ["in.fifo"]) {
            tool.holdsOpen(fifo.path) && writer.hasWritten
        }
    }

    @Test("standard input that stalls: convert (streamed), trim and info (copied first) stop",
          arguments: [(["convert", "-", "OUT"], SIGINT), (["trim", "-", "OUT", "--start", "0.1"], SIGTERM),
                      (["info", "-"], SIGHUP), (["convert", "-", "OUT", "--reverse"], SIGHUP)])
    func stalledStandardInput(_ arguments: [String], _ signal: Int32) async throws {
        let folder = try TemporaryDirectory()
        let pipe = Pipe()
        try pipe.fileHandleForWriting.write(contentsOf: Data(contentsOf: Fixtures.url("mp3-cbr64-xing-1ch-22050.mp3")).prefix(3000))
        defer { try? pipe.fileHandleForWriting.close() }
        let tool = try RunningTool(arguments.map { $0 == "OUT" ? folder.file("out.wav").path : $0 }, standardInput: pipe)
        // Nothing to observe from outside while it waits: give it time to start and block.
        let started = Date()
        await Self.expectStopped(tool, by: signal, "\(arguments.joined(separator: " ")) on a stalled pipe", folder: folder, keeping: []) {
            Date().timeIntervalSince(started) > 0.4
        }
    }

    // MARK: Working: a long silence

    @Test("a long silence being written: trim, join and compose stop on each signal",
          arguments: ["trim", "join", "compose"], signals)
    func longSilence(_ command: String, _ signal: Int32) async throws {
        let folder = try TemporaryDirectory()
        let input = try copyFixture(Self.shortInput, into: folder, as: "in.wav")
        let output = folder.file("out.flac").path
        var arguments: [String]
        switch command {
        case "trim": arguments = ["trim", input.path, output, "--pad-end", "80000"]
        case "join": arguments = ["join", input.path, input.path, "-o", output, "--gap", "80000"]
        default:
            try "in.wav\nsilence 80000\n".write(to: folder.file("plan.txt"), atomically: true, encoding: .utf8)
            arguments = ["compose", folder.file("plan.txt").path, "-o", output]
        }
        let before = folder.contents
        let tool = try RunningTool(arguments)
        await Self.expectStopped(tool, by: signal, "\(command) with 80000 s of silence", folder: folder, keeping: before) {
            folder.contents.contains { $0.hasSuffix(".partial") }
        }
    }

    // MARK: Working: decoding, encoding, drawing, rendering

    @Test("mid-work: convert, reverse, waveform, play and video stop; the output folder stays empty",
          arguments: [("convert", SIGHUP), ("reverse", SIGINT), ("waveform", SIGTERM), ("waveform", SIGINT),
                      ("play", SIGTERM), ("video", SIGHUP)])
    func midWork(_ command: String, _ signal: Int32) async throws {
        let folder = try TemporaryDirectory()
        let long = try await LongInputs.mp3FourMinutes().path
        let arguments: [String]
        // On one thread: on every core a 4-minute MP3 is done in about 0.1 s, too close to the
        // 10 ms it takes to see the partial and send the signal.
        switch command {
        case "convert": arguments = ["convert", long, folder.file("out.flac").path, "--reverse", "--threads", "1"]
        case "reverse": arguments = ["reverse", long, "-o", folder.url.path, "--threads", "1"]
        case "waveform": arguments = ["waveform", long, folder.file("out.png").path, "--width", "4000", "--threads", "1"]
        case "play": arguments = ["play", long, "--to-file", folder.file("out.wav").path, "--loop", "--duration", "36000"]
        default: arguments = await ["video", try Self.video().path, folder.file("out.mp4").path, "--preset", "slow"]
        }
        let tool = try RunningTool(arguments)
        await Self.expectStopped(tool, by: signal, "\(command) mid-work", folder: folder, keeping: []) {
            folder.contents.contains { $0.hasSuffix(".partial") }
        }
    }

    /// True when a thread of process `pid` waits in a read of a Unix socket.
    static func waitsOnUnixSocket(_ pid: pid_t) -> Bool {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
        return tasks.contains { task in
            let channel = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/wchan", encoding: .utf8)) ?? ""
            return channel.hasPrefix("unix_stream")
        }
    }

    @Test("a second signal ends the work at once; the line says so, not that a read was waited on")
    func secondSignal() async throws {
        let folder = try TemporaryDirectory()
        // Standard input a socket whose writer went silent: FFmpeg's `pipe` protocol waits in a
        // `read` no signal interrupts, so the first signal cannot end the work by itself and the
        // second always comes while it is stopping. (On work that polls, the first signal may end
        // it before the second is handled: a race the line would rightly not mention.)
        var ends: [Int32] = [0, 0]
        try #require(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0)
        let writer = FileHandle(fileDescriptor: ends[0], closeOnDealloc: true)
        let reader = FileHandle(fileDescriptor: ends[1], closeOnDealloc: true)
        defer { try? writer.close() }
        try writer.write(contentsOf: Data(contentsOf: Fixtures.url("mp3-cbr64-xing-1ch-22050.mp3")).prefix(3000))
        let tool = try RunningTool(["convert", "-", folder.file("out.wav").path], standardInput: reader)
        try reader.close()
        // Signalled once a thread of it waits on the socket (its kernel wait channel says so): a
        // signal that came while it still started up would end it before the second came.
        // (Without /proc, as on macOS, a pause stands in.)
        var waiting = true
        if FileManager.default.fileExists(atPath: "/proc/self/task") {
            waiting = await tool.wait(upTo: 30) { Self.waitsOnUnixSocket(tool.process.processIdentifier) }
        } else {
            try? await Task.sleep(for: .seconds(0.4))
        }
        try #require(waiting && tool.process.isRunning, "convert never waited on its input: \(tool.errorText)")
        // The second well inside the first signal's watchdog delay (0.5 s), so that it, not the
        // watchdog, ends the work: both sent from a thread of their own, whose 0.1 s sleep a busy
        // cooperative pool cannot stretch.
        let pid = tool.process.processIdentifier
        _ = try await ProcessRunner.onThreadOfItsOwn {
            kill(pid, SIGINT)
            usleep(100_000)
            kill(pid, SIGTERM)
        }
        #expect(await tool.waitUntilExit(timeout: 10))
        let ended = (tool.process.terminationStatus, tool.errorText)
        let expected = (128 + SIGINT, "reverse-audio: error: stopped by SIGINT: then SIGTERM ended the work at once; unfinished files were removed\n")
        #expect(ended == expected, "exit \(ended.0): \(ended.1)")
        #expect(folder.contents.isEmpty, "left behind \(folder.contents)")
        #expect(tool.temporaryLeftovers.isEmpty, "temporary files left: \(tool.temporaryLeftovers)")
    }

    /// True once process `pid` no longer leaves `signal` to its default: it catches or ignores it.
    static func tookOver(_ signal: Int32, in pid: pid_t) -> Bool {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        return status.split(separator: "\n").contains { line in
            guard line.hasPrefix("SigIgn:") || line.hasPrefix("SigCgt:"),
                  let mask = UInt64(line.split(separator: "\t").last ?? "", radix: 16) else { return false }
            return mask & (1 << UInt64(signal - 1)) != 0
        }
    }

    /// Runs where `/proc` shows a process's signal dispositions (Linux): macOS has no such view.
    @Test("a signal sent the moment the tool takes it over is handled, never lost",
          .enabled(if: FileManager.default.fileExists(atPath: "/proc/self/status")), arguments: signals)
    func signalAtTakeover(_ signal: Int32) async throws {
        // The tool once ignored the signal first and registered its handler later, on another
        // thread: a signal in between was dropped and the work ran to its end. Watched from a
        // thread of its own, to send the signal within microseconds of the change.
        for attempt in 1...5 {
            let folder = try TemporaryDirectory()
            let fifo = folder.file("in.fifo")
            try makeFIFO(fifo)
            let tool = try RunningTool(["convert", fifo.path, folder.file("out.wav").path])
            let pid = tool.process.processIdentifier
            let sent = try await ProcessRunner.onThreadOfItsOwn { () -> Bool in
                let deadline = Date().addingTimeInterval(20)
                while !Self.tookOver(signal, in: pid) {
                    guard Date() < deadline, kill(pid, 0) == 0 else { return false }
                    usleep(100)
                }
                return kill(pid, signal) == 0
            }
            try #require(sent, "attempt \(attempt): the tool never took over signal \(signal): \(tool.errorText)")
            #expect(await tool.waitUntilExit(timeout: 5), "attempt \(attempt): signal \(signal) was lost")
            #expect(tool.process.terminationReason == .exit && tool.process.terminationStatus == 128 + signal,
                    "attempt \(attempt): ended with \(tool.process.terminationStatus): \(tool.errorText)")
            #expect(folder.contents == ["in.fifo"], "attempt \(attempt): left behind \(folder.contents)")
        }
    }

    @Test("mid-work on junk that takes a while to reject: info and list stop", arguments: [("info", SIGINT), ("list", SIGHUP)])
    func infoAndList(_ command: String, _ signal: Int32) async throws {
        let folder = try TemporaryDirectory()
        for index in 0..<6 {
            let junk = folder.file("zeros-\(index).mp3")
            try #require(FileManager.default.createFile(atPath: junk.path, contents: nil))
            let handle = try FileHandle(forWritingTo: junk)
            try handle.truncate(atOffset: 1 << 30)  // sparse: no disk space used
            try handle.close()
        }
        let before = folder.contents
        let tool = try RunningTool(command == "info" ? ["info"] + before.map { folder.file($0).path } : ["list", folder.url.path])
        let started = Date()
        await Self.expectStopped(tool, by: signal, "\(command) mid-work", folder: folder, keeping: before) {
            Date().timeIntervalSince(started) > 0.4
        }
    }

    /// A 10 s 640×360 H.264 clip with audio, made once.
    static func video() async throws -> URL {
        try await SignalFiles.shared("signal-video.mp4", seconds: 10, codecArguments: [
            "-f", "lavfi", "-i", "testsrc=size=640x360:rate=30:duration=10", "-map", "1:v", "-map", "0:a",
            "-c:v", "libx264", "-preset", "ultrafast", "-c:a", "aac", "-shortest",
        ])
    }
}

/// Opens a FIFO for writing (which waits for its reader), writes `head`, then holds it open
/// without writing more until closed: a writer gone silent.
final class StallingWriter: @unchecked Sendable {
    // @unchecked: `handle` and `written` are only touched under `lock`.
    private let lock = NSLock()
    private var handle: FileHandle?
    private var written = false

    init(fifo: URL, head: Data) {
        DispatchQueue.global().async { [self] in
            guard let opened = FileHandle(forWritingAtPath: fifo.path) else { return }
            try? opened.write(contentsOf: head)
            lock.lock()
            handle = opened
            written = true
            lock.unlock()
        }
    }

    var hasWritten: Bool {
        lock.lock()
        defer { lock.unlock() }
        return written
    }

    func close() {
        lock.lock()
        try? handle?.close()
        handle = nil
        lock.unlock()
    }
}
