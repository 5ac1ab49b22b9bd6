import ArgumentParser
import Foundation
import ReverseAudio

struct ReverseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "Reverse audio files, or every audio file in a folder, to NAME-REVERSED.wav.",
        discussion: """
            A folder means every file in it with one of the extensions \
            aac m4a aiff aif wav mp3 caf m4r flac (any case), sorted by name. With --verify each \
            file is also reversed back to NAME-REVERSED-REVERSED.wav and compared with the \
            original, sample for sample. A file that fails is reported and the rest go on; the \
            exit status is then 1.
            """)

    @Argument(help: "Audio files and folders.")
    var paths: [String]

    @Option(name: [.customShort("o"), .long], help: "Folder for the output files (created if missing).")
    var outputDirectory: String = "Reversed"

    @Flag(help: "Also write NAME-REVERSED-REVERSED.wav and check it equals the original.")
    var verify = false

    @OptionGroup var flags: ConversionFlags

    func run() async throws {
        flags.showFFmpegDiagnostics()
        var failures = 0
        let inputs = collectInputs(failures: &failures)
        let attempted = inputs.count + failures
        let directory = URL(fileURLWithPath: outputDirectory, isDirectory: true)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            ErrorReporting.printError(ReverseAudioError.cannotCreateOutput(path: outputDirectory, reason: "cannot create the folder"))
            throw ExitCode.failure
        }
        let names = OutputNaming.uniqueNames(for: inputs)
        let options = flags.options(reverse: true)
        let display = ProgressDisplay(style: flags.progress)
        var table = verify
            ? TextTable("file", "format", "duration", "frames", "block", "verified", "output")
            : TextTable("file", "format", "duration", "frames", "block", "output")
        for (index, input) in inputs.enumerated() {
            let label = input.relativePath
            let handler = display.handler(file: label, index: index + 1, count: inputs.count)
            do {
                let outcome = try await SignalCancellation.run { [verify] in
                    try await ReverseCommand.process(input, name: names[index], into: directory, options: options,
                                                     verify: verify, progress: handler)
                }
                display.clear()
                let result = outcome.reversed
                outcome.warnings.forEach { ErrorReporting.printWarning($0, file: label) }
                let format = "\(result.source.container.split(separator: ",").first ?? "") / \(result.source.codec)"
                let seconds = String.seconds(Double(result.frames) / Double(result.format.sampleRate))
                let output = directory.appendingPathComponent(result.output.lastPathComponent).relativePath
                if verify {
                    let verdict = outcome.mismatch == nil ? "yes" : "NO"
                    table.add(label, format, seconds, "\(result.frames)", "\(result.blockFrames)", verdict, output)
                    if let mismatch = outcome.mismatch {
                        failures += 1
                        ErrorReporting.printError(ReverseAudioError.verificationFailed(path: label, reason: mismatch))
                    }
                } else {
                    table.add(label, format, seconds, "\(result.frames)", "\(result.blockFrames)", output)
                }
                if flags.verbose { ConversionSummary.details(result).forEach { Console.error("\(label):\($0)") } }
            } catch is CancellationError {
                display.clear()
                ErrorReporting.printError(CancellationError())
                throw ExitCode(130)
            } catch {
                display.clear()
                failures += 1
                ErrorReporting.printError(error)
                table.add(label, "FAILED (see the error above)")
            }
        }
        if !inputs.isEmpty { Console.out(table.render()) }
        if failures > 0 {
            // Each failure already has its own error line; a batch also gets the count.
            if attempted > 1 { Console.error("reverse-audio: \(failures) of \(attempted) files failed") }
            throw ExitCode.failure
        }
    }

    /// What one file's reversal (and verification) produced.
    struct Outcome: Sendable {
        let reversed: ConversionResult
        let mismatch: String?
        let warnings: [String]
    }

    private static func process(_ input: URL, name: String, into directory: URL, options: ConversionOptions,
                                verify: Bool, progress: ProgressHandler?) async throws -> Outcome {
        if verify {
            let report = try await RoundTrip.run(input, into: directory, name: name, options: options, progress: progress)
            return Outcome(reversed: report.reversed, mismatch: report.mismatch, warnings: report.reversed.warnings)
        }
        let output = directory.appendingPathComponent(RoundTrip.outputNames(for: input, name: name).reversed)
        let result = try await AudioConverter.convert(input, to: output, options: options, progress: progress)
        return Outcome(reversed: result, mismatch: nil, warnings: result.warnings)
    }

    /// Files named directly, plus the supported audio files of each folder named.
    private func collectInputs(failures: inout Int) -> [URL] {
        var inputs: [URL] = []
        for path in paths {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
                ErrorReporting.printError(ReverseAudioError.fileNotFound(path: path))
                failures += 1
                continue
            }
            if isDirectory.boolValue {
                do {
                    let files = try SupportedAudioFiles.files(in: URL(fileURLWithPath: path, isDirectory: true))
                    if files.isEmpty { Console.error("reverse-audio: warning: \(path): no audio files in this folder") }
                    inputs += files
                } catch {
                    ErrorReporting.printError(error)
                    failures += 1
                }
            } else {
                inputs.append(URL(fileURLWithPath: path))
            }
        }
        return inputs
    }
}
