import Foundation
import Testing
import TestSupport

/// A conversion stopped from outside (Ctrl-C, a closed pipe) leaves nothing in the output folder.
@Suite(.runsProcesses) struct InterruptTests {
    /// `convert LONG.mp3 DIRECTORY/out.wav --progress json`, running, its first progress line seen.
    struct RunningConversion {
        let process = Process()
        /// True when a progress line arrived, so the conversion (and its signal handling) started.
        let sawProgress: Bool
        private let drained = AsyncFlag()

        /// - Parameters:
        ///   - closeStandardError: stop reading standard error after the first line and close its
        ///     pipe, as `| head -1` would.
        ///   - signal: sent the moment the first progress line is read, by the thread reading it
        ///     (a short conversion may end before a test's task is scheduled again).
        init(into directory: TemporaryDirectory, reverse: Bool, closeStandardError: Bool = false,
             outputName: String = "out.wav", signal: Int32? = nil) async throws {
            process.executableURL = BuiltProducts.reverseAudio
            process.arguments = CLI.convertArguments(try await LongInputs.mp3FourMinutes().path, directory.file(outputName).path,
                                                     reverse: reverse, ["--progress", "json"])
            let standardError = Pipe()
            process.standardError = standardError
            process.standardOutput = FileHandle.nullDevice
            process.standardInput = FileHandle.nullDevice
            let started = AsyncFlag()
            let reader = standardError.fileHandleForReading
            let drained = drained
            try process.run()
            let pid = process.processIdentifier
            Thread.detachNewThread {
                var signalled = false
                while case let data = reader.availableData, !data.isEmpty {
                    if !signalled, data.contains(UInt8(ascii: "\n")) {
                        signalled = true
                        if let signal { kill(pid, signal) }
                        started.raise()
                        if closeStandardError { break }
                    }
                }
                try? reader.close()
                drained.raise()
            }
            sawProgress = await started.wait(upTo: 5)
        }

        func waitUntilExit() async {
            await process.exited()
            await drained.wait()
        }
    }

    @Test("SIGINT mid-conversion exits 130 and leaves no output", arguments: [false, true])
    func sigint(_ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        let conversion = try await RunningConversion(into: directory, reverse: reverse, signal: SIGINT)
        await conversion.waitUntilExit()
        #expect(conversion.sawProgress, "no progress line before the interrupt")
        #expect(conversion.process.terminationReason == .exit)
        #expect(conversion.process.terminationStatus == 130)
        #expect(directory.contents.isEmpty, "no output and no partial file")
    }

    @Test("SIGTERM during a reversal into an encoded format exits 143 and leaves neither output nor temporary file",
          arguments: ["out.flac", "out.m4a"])
    func sigtermEncoded(_ name: String) async throws {
        let directory = try TemporaryDirectory()
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
        let conversion = try await RunningConversion(into: directory, reverse: true, outputName: name, signal: SIGTERM)
        await conversion.waitUntilExit()
        #expect(conversion.sawProgress, "no progress line before the signal")
        #expect(conversion.process.terminationStatus == 143)
        #expect(directory.contents.isEmpty, "left behind: \(directory.contents)")
        let after = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
        #expect(after.subtracting(before).filter { $0.hasPrefix(".reverse-audio") }.isEmpty)
    }

    @Test("a closed standard error pipe leaves no partial file", arguments: [false, true])
    func closedPipe(_ reverse: Bool) async throws {
        let directory = try TemporaryDirectory()
        let conversion = try await RunningConversion(into: directory, reverse: reverse, closeStandardError: true)
        await conversion.waitUntilExit()
        #expect(conversion.sawProgress)
        #expect(!directory.contents.contains { $0.hasSuffix(".partial") },
                "left behind: \(directory.contents); exit \(conversion.process.terminationStatus), \(conversion.process.terminationReason)")
    }
}
