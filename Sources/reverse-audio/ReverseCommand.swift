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
        let options: ConversionOptions
        do {
            options = try flags.options(reverse: true, output: URL(fileURLWithPath: "x." + (flags.format ?? "wav")))
            if verify, let codec = options.outputFormat?.codec, !codec.isLossless {
                throw ReverseAudioError.invalidOption("--verify compares samples exactly and needs a lossless format, not \(codec.rawValue)")
            }
        } catch {
            ErrorReporting.printError(error)
            throw ExitCode.failure
        }
        let batch = BatchReversal(
            inputs: inputs, names: OutputNaming.uniqueNames(for: inputs), directory: directory,
            options: options, verify: verify, verbose: flags.verbose,
            display: ProgressDisplay(style: flags.progress))
        let report: BatchReversal.Report
        do {
            // One Ctrl-C handler for the whole batch: the file being written is removed.
            report = try await SignalCancellation.run { try await batch.run() }
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
        if !inputs.isEmpty { Console.out(report.table) }
        failures += report.failures
        if failures > 0 {
            // Each failure already has its own error line; a batch also gets the count.
            if attempted > 1 { Console.error("reverse-audio: \(failures) of \(attempted) files failed") }
            throw ExitCode.failure
        }
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
