import ArgumentParser
import Foundation
import ReverseAudio

struct ReverseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "Reverse audio files, or every audio file in folders, to NAME-REVERSED.wav.",
        discussion: """
            A folder means every file in it and in its subfolders (--no-recursive: only its own) \
            with one of the extensions aac m4a aiff aif wav mp3 caf m4r flac (any case), or with \
            --all-formats every file FFmpeg reads; outputs keep the subfolders under -o. With \
            --verify each file is also reversed back to NAME-REVERSED-REVERSED.wav and compared \
            with the original, sample for sample. A file that fails is reported and the rest go \
            on; the exit status is then 1. Files passed over are counted; --verbose lists them.
            """)

    @Argument(help: "Audio files and folders.", completion: .file())
    var paths: [String]

    @Option(name: [.customShort("o"), .long], help: "Folder for the output files (created if missing).",
            completion: .directory)
    var outputDirectory: String = "Reversed"

    @Flag(help: "Also write NAME-REVERSED-REVERSED.wav and check it equals the original.")
    var verify = false

    @Flag(inversion: .prefixedNo, help: "Descend into subfolders of folder arguments.")
    var recursive = true

    @Flag(help: "Take every file in folders, not only the nine audio extensions; files FFmpeg cannot read are skipped.")
    var allFormats = false

    @Option(help: "Files to reverse at once (default: the number of cores).")
    var jobs: Int = ProcessInfo.processInfo.activeProcessorCount

    @Flag(help: "Print one JSON object per file on standard output instead of the table.")
    var json = false

    @OptionGroup var flags: ConversionFlags

    func validate() throws {
        if jobs < 1 { throw ValidationError("--jobs must be at least 1") }
    }

    func run() async throws {
        flags.showFFmpegDiagnostics()
        let found: SupportedAudioFiles.Collection
        do {
            if paths.contains(where: StandardStreams.isStandardInput) {
                throw CommandLineError("reverse writes NAME-REVERSED files from named inputs; for standard input use: reverse-audio convert - OUT --reverse")
            }
            found = try SupportedAudioFiles.collect(paths.map { URL(fileURLWithPath: $0) }, recursive: recursive,
                                                    allFormats: allFormats)
        } catch {
            ErrorReporting.printError(error)
            throw ExitCode.failure
        }
        found.failures.forEach(ErrorReporting.printError)
        for path in paths where isFolderWithoutInputs(path, found) {
            Console.error("reverse-audio: warning: \(path): no audio files in this folder")
        }
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
                throw CommandLineError("--verify compares samples exactly and needs a lossless format, not \(codec.rawValue)")
            }
        } catch {
            ErrorReporting.printError(error)
            throw ExitCode.failure
        }
        let batch = BatchReversal(
            inputs: found.files, names: OutputNaming.uniqueNames(for: found.files), directory: directory,
            options: options, verify: verify, verbose: flags.verbose, allFormats: allFormats, jobs: jobs, json: json,
            display: ProgressDisplay(style: flags.progress))
        let report: BatchReversal.Report
        do {
            // One Ctrl-C handler for the whole batch: the files being written are removed.
            report = try await SignalCancellation.run { try await batch.run() }
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
        if !found.files.isEmpty && !json { Console.out(report.table) }
        let skipped = found.skipped + report.skipped
        if flags.verbose {
            for (path, reason) in skipped { Console.error("reverse-audio: skipped \(path): \(reason)") }
        }
        let failures = found.failures.count + report.failures
        let attempted = found.files.count + found.failures.count - report.skipped.count
        var summary: [String] = []
        if failures > 0 && attempted > 1 { summary.append("\(failures) of \(attempted) files failed") }
        if !skipped.isEmpty {
            summary.append("\(skipped.count) skipped\(flags.verbose ? "" : " (--verbose lists them)")")
        }
        if !summary.isEmpty { Console.error("reverse-audio: " + summary.joined(separator: "; ")) }
        if failures > 0 { throw ExitCode.failure }
    }

    /// True for a folder argument that yielded no input.
    private func isFolderWithoutInputs(_ path: String, _ found: SupportedAudioFiles.Collection) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return false }
        let prefix = URL(fileURLWithPath: path).standardizedFileURL.path + "/"
        return !found.files.contains { $0.url.standardizedFileURL.path.hasPrefix(prefix) }
    }
}
