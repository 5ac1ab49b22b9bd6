import Foundation
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The faults found by probing the edges (special files as outputs, huge block sizes, races,
/// long names, hang-ups, flag-like names, misleading messages, junk inputs).
@Suite(.runsProcesses) struct HardeningTests {
    static let input = Fixtures.url("mp3-cbr64-xing-1ch-22050.mp3")
    static let isRoot = getuid() == 0

    /// `mknod PATH TYPE MAJOR MINOR`, made in a test folder (never on the real /dev).
    static func makeNode(_ url: URL, type: String, major: Int, minor: Int) async throws {
        let result = try await ProcessRunner.run("mknod", [url.path, type, "\(major)", "\(minor)"])
        try #require(result.status == 0, "mknod failed: \(result.errorText)")
    }

    static func fileType(_ url: URL) -> mode_t {
        var status = stat()
        lstat(url.path, &status)
        return status.st_mode & S_IFMT
    }

    // MARK: 0. Special files as outputs

    @Test("a null device node is written in place with -y and stays a device", .enabled(if: isRoot))
    func nullDevice() async throws {
        let directory = try TemporaryDirectory()
        let node = directory.file("null")
        try await Self.makeNode(node, type: "c", major: 1, minor: 3)
        for reverse in [false, true] {
            let result = try await CLI.convert(Self.input, node, reverse: reverse, ["-y"])
            #expect(result.status == 0, "\(result.errorText)")
            #expect(Self.fileType(node) == S_IFCHR, "the device node was replaced")
        }
        #expect(directory.contents == ["null"])
    }

    @Test("a full device fails with 'no space left' and stays a device", .enabled(if: isRoot))
    func fullDevice() async throws {
        let directory = try TemporaryDirectory()
        let node = directory.file("full")
        try await Self.makeNode(node, type: "c", major: 1, minor: 7)
        for reverse in [false, true] {
            let result = try await CLI.convert(Self.input, node, reverse: reverse, ["-y"])
            expectFailure(result, naming: "full")
            #expect(result.errorText.contains("No space left on device"), "\(result.errorText)")
            #expect(Self.fileType(node) == S_IFCHR)
        }
        #expect(directory.contents == ["full"])
    }

    @Test("a FIFO is written in place: the reader gets the WAV, the FIFO stays", arguments: [false, true])
    func fifo(_ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("pipe.wav")
        try #require(mkfifo(fifo.path, 0o644) == 0)
        let received = directory.file("received.wav")
        let done = AsyncFlag()
        Thread.detachNewThread {
            // Opening a FIFO for reading waits for the writer.
            if let handle = FileHandle(forReadingAtPath: fifo.path) {
                try? handle.readDataToEndOfFile().write(to: received)
            }
            done.raise()
        }
        let result = try await CLI.convert(Self.input, fifo, reverse: reverse)
        #expect(await done.wait(upTo: 30))
        #expect(result.status == 0, "\(result.errorText)")
        #expect(Self.fileType(fifo) == S_IFIFO)
        let expected = try await reverse ? FFmpegOracle.reversedSamples(of: Self.input) : FFmpegOracle.samples(of: Self.input)
        #expect(try await FFmpegOracle.samples(of: received) == expected)
        #expect(directory.contents == ["pipe.wav", "received.wav"])
    }

    @Test("/dev/stdout into a pipe carries the WAV; the report goes to standard error", arguments: [false, true])
    func standardOutput(_ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.run(CLI.convertArguments(Self.input.path, "/dev/stdout", reverse: reverse))
        #expect(result.status == 0, "\(result.errorText)")
        let received = directory.file("stdout.wav")
        try result.standardOutput.write(to: received)
        let expected = try await reverse ? FFmpegOracle.reversedSamples(of: Self.input) : FFmpegOracle.samples(of: Self.input)
        #expect(try await FFmpegOracle.samples(of: received) == expected)
        #expect(result.errorText.contains(reverse ? "reversed" : "converted"))
    }

    @Test("a symbolic link to a regular file is followed: the target is replaced, the link stays")
    func linkToRegularFile() async throws {
        let directory = try TemporaryDirectory()
        try Data("old".utf8).write(to: directory.file("target.wav"))
        try FileManager.default.createSymbolicLink(atPath: directory.file("link.wav").path, withDestinationPath: "target.wav")
        let refused = try await CLI.convert(Self.input, directory.file("link.wav"), reverse: true)
        expectFailure(refused, naming: "link.wav")
        #expect(try Data(contentsOf: directory.file("target.wav")) == Data("old".utf8))

        let result = try await CLI.convert(Self.input, directory.file("link.wav"), reverse: true, ["-y"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(Self.fileType(directory.file("link.wav")) == S_IFLNK)
        try await expectReversal(directory.file("target.wav"), of: Self.input)
        #expect(directory.contents == ["link.wav", "target.wav"])
    }

    @Test("a folder, a block device or a link to nowhere is refused, untouched")
    func refused() async throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("folder.wav"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: directory.file("dangling.wav").path, withDestinationPath: "missing/x.wav")
        var names = ["dangling.wav", "folder.wav"]
        if Self.isRoot {
            try await Self.makeNode(directory.file("block.wav"), type: "b", major: 7, minor: 200)
            names.append("block.wav")
        }
        for name in names {
            let result = try await CLI.convert(Self.input, directory.file(name), reverse: false, ["-y"])
            // A folder is known from the command line: a usage error naming it (issue 20).
            if name == "folder.wav" { expectUsageError(result, naming: name) } else { expectFailure(result, naming: name) }
        }
        #expect(directory.contents == names.sorted())
        #expect(Self.fileType(directory.file("dangling.wav")) == S_IFLNK)
        if Self.isRoot { #expect(Self.fileType(directory.file("block.wav")) == S_IFBLK) }
    }

    // MARK: 1. Block sizes

    @Test("a block size past the file's length works; the output is still the reversal",
          arguments: ["9223372036854775807", "99999999999"])
    func hugeBlockFrames(_ blockFrames: String) async throws {
        let directory = try TemporaryDirectory()
        let output = directory.file("out.wav")
        let result = try await CLI.convert(Self.input, output, reverse: true, ["--block-frames", blockFrames])
        #expect(result.status == 0, "\(result.errorText)")
        try await expectReversal(output, of: Self.input)
    }

    // MARK: 2. Publishing without replacing

    @Test("two runs onto one new name without -y: exactly one wins, the other says it exists")
    func concurrentRuns() async throws {
        let directory = try TemporaryDirectory()
        // Long enough (a second or more of decoding) that the two runs overlap.
        let long = try await LongInputs.mp3FourMinutes()
        let output = directory.file("out.wav")
        async let first = try? CLI.convert(long, output, reverse: true)
        async let second = try? CLI.convert(long, output, reverse: false)
        let all = await [first, second].compactMap { $0 }
        try #require(all.count == 2)
        #expect(all.filter { $0.status == 0 }.count == 1, "\(all.map(\.errorText))")
        #expect(all.contains { $0.status != 0 && $0.errorText.contains("already exists") }, "\(all.map(\.errorText))")
        #expect(directory.contents == ["out.wav"])
    }

    @Test("a file that appears at the output during the run is kept, and the run fails")
    func outputAppearsDuringRun() async throws {
        let directory = try TemporaryDirectory()
        let conversion = try await InterruptTests.RunningConversion(into: directory, reverse: true)
        try #require(conversion.sawProgress)
        let intruder = Data("written by someone else".utf8)
        try intruder.write(to: directory.file("out.wav"))
        await conversion.waitUntilExit()
        #expect(conversion.process.terminationStatus == 1)
        #expect(try Data(contentsOf: directory.file("out.wav")) == intruder)
        #expect(directory.contents == ["out.wav"])
    }

    // MARK: 3. Long names

    @Test("an output name of 255 characters can be written")
    func longName() async throws {
        let directory = try TemporaryDirectory()
        let name = String(repeating: "n", count: 251) + ".wav"
        let result = try await CLI.convert(Self.input, directory.file(name), reverse: true)
        #expect(result.status == 0, "\(result.errorText)")
        try await expectReversal(directory.file(name), of: Self.input)
        #expect(directory.contents == [name])
    }

    // MARK: 4. Hang-ups and stale temporary files

    @Test("SIGHUP mid-conversion exits 129 and leaves nothing", arguments: [false, true])
    func hangUp(_ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        let conversion = try await InterruptTests.RunningConversion(into: directory, reverse: reverse, signal: SIGHUP)
        await conversion.waitUntilExit()
        #expect(conversion.sawProgress)
        #expect(conversion.process.terminationReason == .exit)
        #expect(conversion.process.terminationStatus == 129)
        #expect(directory.contents.isEmpty)
    }

    @Test("a run removes the partial files of our runs that died, and nothing else")
    func stalePartials() async throws {
        let directory = try TemporaryDirectory()
        // A process that has exited: its PID names nobody now.
        let finished = Process()
        finished.executableURL = URL(fileURLWithPath: "/bin/true")
        try finished.run()
        await finished.exited()
        let dead = ".reverse-audio-\(finished.processIdentifier)-1a2b3c.partial"
        let alive = ".reverse-audio-\(getpid())-1a2b3c.partial"
        let foreign = ".song.wav.12345-678.partial"
        for name in [dead, alive, foreign] { try Data("x".utf8).write(to: directory.file(name)) }
        let result = try await CLI.convert(Self.input, directory.file("out.wav"), reverse: false)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(directory.contents == [foreign, alive, "out.wav"].sorted())
    }

    // MARK: 5. Names that look like flags

    @Test("a file name that looks like flags is a usage error, not help")
    func flagLikeName() async throws {
        let directory = try TemporaryDirectory()
        try copyFixture(Self.input.lastPathComponent, into: directory, as: "-dash.mp3")
        let result = try await CLI.run(["convert", "-dash.mp3", "out.wav"], in: directory.url)
        expectFailure(result, naming: "-dash.mp3")
        #expect(result.status == 64)
        #expect(result.errorText.contains("./-dash.mp3") && result.errorText.contains("--"))
        #expect(result.outputText.isEmpty, "no help on standard output")
        #expect(directory.contents == ["-dash.mp3"])

        let named = try await CLI.run(["convert", "--", "-dash.mp3", "out.wav"], in: directory.url)
        #expect(named.status == 0, "\(named.errorText)")
        #expect(try await FFmpegOracle.samples(of: directory.file("out.wav")) == FFmpegOracle.samples(of: Self.input))
    }

    // MARK: 6. Messages that name the file and the true reason

    @Test("a FIFO as input is read as a pipe; a device says what it is, not 'empty'")
    func specialInputs() async throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("in.mp3")
        try #require(mkfifo(fifo.path, 0o644) == 0)
        let input = Self.input
        DispatchQueue.global().async {
            // Opening a FIFO for writing waits for the reader.
            if let handle = FileHandle(forWritingAtPath: fifo.path) {
                try? handle.write(contentsOf: Data(contentsOf: input))
                try? handle.close()
            }
        }
        let fromFifo = try await CLI.convert(fifo, directory.file("a.wav"), reverse: true)
        #expect(fromFifo.status == 0, "\(fromFifo.errorText)")
        try await expectReversal(directory.file("a.wav"), of: Self.input)
        let fromDevice = try await CLI.convert(URL(fileURLWithPath: "/dev/zero"), directory.file("b.wav"), reverse: false)
        expectFailure(fromDevice, naming: "/dev/zero")
        #expect(fromDevice.errorText.contains("device") && !fromDevice.errorText.contains("empty"))
        #expect(directory.contents == ["a.wav", "in.mp3"])
    }

    @Test("a file the sample converter cannot take names the file and the channel limit")
    func tooManyChannels() async throws {
        let directory = try TemporaryDirectory()
        let input = directory.file("wide.wav")
        let made = try await ProcessRunner.run("sox", ["-n", "-c", "127", "-r", "8000", "-e", "floating-point", "-b", "32",
                                                 input.path, "synth", "0.05", "sine", "440"])
        try #require(made.status == 0, "sox: \(made.errorText)")
        let result = try await CLI.convert(input, directory.file("out.wav"), reverse: true)
        expectFailure(result, naming: "wide.wav")
        #expect(result.errorText.contains("64 channels") && result.errorText.contains("127"), "\(result.errorText)")
        #expect(directory.contents == ["wide.wav"])
    }

    @Test("a FLAC whose header overstates its length is not called truncated")
    func flacHeaderLies() async throws {
        let directory = try TemporaryDirectory()
        let result = try await CLI.convert(Fixtures.url("edge-wrong-length-long.flac"), directory.file("out.wav"), reverse: true)
        #expect(result.status == 0, "\(result.errorText)")
        #expect(!result.errorText.contains("truncated"), "\(result.errorText)")
        #expect(result.warningReports.contains { $0.contains("header is wrong") }, "\(result.errorText)")
    }

    // MARK: 7. Junk inputs

    @Test("a gigabyte of zeros named .mp3 is rejected after a bounded read, in bounded memory")
    func junk() async throws {
        let directory = try TemporaryDirectory()
        let junk = directory.file("zeros.mp3")
        try #require(FileManager.default.createFile(atPath: junk.path, contents: nil))
        let handle = try FileHandle(forWritingTo: junk)
        try handle.truncate(atOffset: 1 << 30)  // sparse: no disk space used
        try handle.close()
        for arguments in [["info", junk.path], CLI.convertArguments(junk.path, directory.file("out.wav").path, reverse: true)] {
            let result = try await ProcessRunner.run("/usr/bin/time", ["-f", "peak-kib=%M", BuiltProducts.reverseAudio.path] + arguments)
            #expect(result.status != 0)
            #expect(result.errorText.contains("reverse-audio: error: ") && result.errorText.contains("zeros.mp3")
                    && result.errorText.contains("MiB"), "\(result.errorText)")
            let peak = result.errorLines.last { $0.hasPrefix("peak-kib=") }.flatMap { Int($0.dropFirst(9)) }
            let kib = try #require(peak, "no peak from /usr/bin/time: \(result.errorText)")
            #expect(kib < 256 * 1024, "peak RSS \(kib / 1024) MiB")
        }
        #expect(directory.contents == ["zeros.mp3"])
    }
}

