import ArgumentParser
import Foundation
import ReverseAudio
import ReverseAudioBatch
import ReverseAudioCommandLine

struct ReverseCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "reverse",
        abstract: "Reverse audio files, or every audio file in folders, to NAME-REVERSED.wav.",
        discussion: """
            A folder means every file in it and in its subfolders (--no-recursive: only its own) \
            with one of the extensions \(SupportedAudioFiles.extensions.joined(separator: " ")) (any case), or with \
            --all-formats every file FFmpeg reads; outputs keep the subfolders under -o. With \
            --verify each file is also reversed back to NAME-REVERSED-REVERSED.wav and compared \
            with the original, sample for sample. A file that fails is reported and the rest go \
            on; the exit status is then 1. Files passed over are counted; --verbose lists them. \
            Outputs are named from the input alone (its folders under the folder given, its \
            name), so a rerun skips the outputs that are complete and current (a record in \
            OUT/.reverse-audio-state/ says so; -y writes them again) and shares of one batch \
            (--shard) agree. Exit status: 0 every file done or skipped, 1 some failed (the rest \
            done), 64 a usage error, 74 the output side failed (a full disk, a folder it may not \
            write in) and the batch stopped.
            """)

    static let examples = [
        "reverse-audio reverse \"Audio Files\" -o Reversed --verify",
        "reverse-audio reverse Music -o Reversed --jobs 4 --json",
        "reverse-audio reverse Downloads --all-formats --no-recursive --verbose",
        "reverse-audio reverse Music -o Reversed --jobs 1 --shard 0/4 --manifest reversed.jsonl   # share 0 of 4",
    ]

    @Argument(help: "Audio files and folders.", completion: .file())
    var paths: [String] = []

    @Flag(help: "Also write NAME-REVERSED-REVERSED.wav and check it equals the original.")
    var verify = false

    @Flag(inversion: .prefixedNo, help: "Descend into subfolders of folder arguments.")
    var recursive = true

    @Flag(help: "Take every file in folders, not only the audio extensions; files FFmpeg cannot read are skipped.")
    var allFormats = false

    @Option(help: "Files to reverse at once, 1 to 1024; default: the number of cores.")
    var jobs: Int?

    @Option(help: ArgumentHelp("Also take the files and folders listed in FILE, one path a line (- for standard input); relative paths keep their folders under -o.",
                               valueName: "FILE"), completion: .file())
    var filesFrom: String?

    @Option(help: ArgumentHelp("Take only share K of N (K from 0 to N-1), by a hash of each file's path under its folder; auto: the share a Slurm, Kubernetes or AWS Batch array task is given.",
                               valueName: "K/N|auto"))
    var shard: ShardOption?

    @Option(help: ArgumentHelp("With --shard auto: how many tasks the array has (Kubernetes and AWS Batch do not say it).", valueName: "N"))
    var shardCount: Int?

    @Option(help: ArgumentHelp("Append one JSON line per input to FILE (shards may share one).", valueName: "FILE"), completion: .file())
    var manifest: String?

    @OptionGroup var flags: ConversionFlags

    @OptionGroup(title: SharedOptions.title) var outputFolder: OutputFolderOption
    @OptionGroup(title: SharedOptions.title) var overwriting: OverwriteOptions
    @OptionGroup(title: SharedOptions.title) var progress: ProgressOptions
    @OptionGroup(title: SharedOptions.title) var verbosity: VerbosityOptions
    @OptionGroup(title: SharedOptions.title) var result: JSONResultOption

    /// The files reversed at once.
    private var jobCount: Int { jobs ?? ProcessInfo.processInfo.activeProcessorCount }
    private var outputDirectory: String { outputFolder.outputDirectory }
    private var json: Bool { result.json }

    /// The exit status of a batch stopped by its output side (a full disk, a folder it may not
    /// write in): sysexits' EX_IOERR, apart from 1 (some files failed, the rest done) so that a
    /// scheduler can tell a retry that may help from one that cannot.
    static let fatalStatus: Int32 = 74

    func validate() throws {
        if let jobs, !(1...1024).contains(jobs) { throw ValidationError("--jobs must be 1 to 1024, not \(jobs)") }
        // Without --format the outputs are WAV: a codec or bit rate must suit it before any input is read.
        if flags.format == nil { try ConversionFlags.validateFormat(nil, output: "x.wav", codec: flags.codec, bitRate: flags.bitrate) }
        if paths.isEmpty && filesFrom == nil { throw ValidationError("give files or folders to reverse, or --files-from FILE") }
        // `reverse in.mp3 out.wav`, as `sox in out reverse` reads: the second name is no input.
        if paths.count == 2, filesFrom == nil, Self.isFile(paths[0]), !FileManager.default.fileExists(atPath: paths[1]),
           (try? OutputFormat.forFile(URL(fileURLWithPath: paths[1]))) != nil {
            throw ValidationError("\(paths[1]): no such file; reverse writes NAME-REVERSED files (into -o FOLDER). "
                                  + "To reverse one file into another: reverse-audio convert \(paths[0]) \(paths[1]) --reverse")
        }
        if let shardCount {
            guard shard == .auto else { throw ValidationError("--shard-count goes with --shard auto (--shard K/N says the count itself)") }
            guard Shard(index: 0, count: shardCount) != nil else {
                throw ValidationError("--shard-count must be 1 to \(Shard.maximumCount), not \(shardCount)")
            }
        }
    }

    /// True when `path` names a regular file (or a link to one).
    private static func isFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
    }

    func run() async throws {
        var found: SupportedAudioFiles.Collection
        let share: Shard?
        do {
            if paths.contains(where: StandardStreams.isStandardInput) {
                throw CommandLineError("reverse writes NAME-REVERSED files from named inputs; for standard input use: reverse-audio convert - OUT --reverse")
            }
            share = try chosenShard()
            var arguments = try paths.map { SupportedAudioFiles.Argument(url: try StandardStreams.namedInput($0)) }
            if let filesFrom { arguments += try FilesFromList.arguments(from: filesFrom) }
            // The output folder is never an input: a rerun of `reverse .` would reverse its own outputs.
            found = try SupportedAudioFiles.collect(arguments: arguments, recursive: recursive, allFormats: allFormats,
                                                    excluding: [URL(fileURLWithPath: outputDirectory, isDirectory: true)])
            try checkManifestIsNotAnInput(found)
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
        let walked = found.files.count
        if let share { found.files.removeAll { !share.contains(relativePath: $0.relativePath) } }
        found.failures.forEach(ErrorReporting.printError)
        if walked == 0 && !Console.isQuiet {
            for path in paths where isFolderWithoutInputs(path, found) {
                Console.error("reverse-audio: warning: \(path): no audio files in this folder")
            }
        }
        let directory = URL(fileURLWithPath: outputDirectory, isDirectory: true)
        var options: ConversionOptions
        do {
            options = try flags.options(reverse: true, output: URL(fileURLWithPath: "x." + (flags.format ?? "wav")),
                                        overwrite: overwriting.overwrite)
            // Files decoded side by side share the cores: each takes its part unless told.
            if flags.threads == nil { options.threads = max(1, ConversionOptions.availableCores / max(1, min(jobCount, found.files.count))) }
            if verify, let format = options.outputFormat, !format.keepsSamples {
                throw CommandLineError("--verify compares samples exactly and needs a lossless format, not \(format.codec ?? format.name)")
            }
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
        let bookkeeping: BatchBookkeeping
        do {
            try ProcessCleanup.createFolder(directory)
            bookkeeping = BatchBookkeeping(
                state: BatchStateStore(outputFolder: directory),
                manifest: try manifest.map { path in
                    try ManifestWriter(path: path, onRepair: { repair in
                        if !Console.isQuiet { Console.error("reverse-audio: warning: \(URL(fileURLWithPath: path).displayPath): \(repair)") }
                    }, isCancelled: { SignalCancellation.flag.isCancelled })
                },
                options: BatchOptionsText.text(options, verify: verify), version: ReverseAudioVersion.string,
                shard: share?.description, overwrite: overwriting.overwrite)
        } catch {
            let reported = error as? ReverseAudioError
                ?? .output(.cannotCreateOutput(path: outputDirectory, reason: "cannot create the folder"))
            ErrorReporting.printError(reported)
            throw ExitCode(Self.fatalStatus)
        }
        let batch = BatchReversal(
            inputs: found.files, outputs: OutputNaming.outputs(for: found.files, format: options.outputFormat ?? .wav),
            directory: directory, options: options, verify: verify, verbose: verbosity.verbose, allFormats: allFormats, jobs: jobCount,
            json: json, display: ProgressDisplay(style: progress.style), bookkeeping: bookkeeping)
        let report: BatchReversal.Report
        do {
            // One Ctrl-C handler for the whole batch: the files being written are removed.
            report = try await SignalCancellation.run { try await batch.run() }
        } catch let stopped as BatchReversal.Stopped {
            ErrorReporting.printError(stopped.error)
            Console.error("reverse-audio: the batch stopped: the output side fails every file (exit \(Self.fatalStatus)); the files done so far are kept, and a rerun skips them")
            throw ExitCode(Self.fatalStatus)
        } catch {
            // Stopped: no partial is left, nor the folders this run made and left empty.
            if SignalCancellation.receivedSignal != nil { ProcessCleanup.removeAll() }
            if error is CancellationError {
                // A batch keeps what it finished before the signal (a single output's "nothing
                // was left behind" would be false here).
                Console.error("reverse-audio: error: \(ErrorReporting.stoppedBy()); the outputs finished before it are kept, unfinished files were removed, and a rerun does the rest")
            } else {
                ErrorReporting.printError(error)
            }
            throw ErrorReporting.exitCode(for: error)
        }
        if found.files.count > report.upToDate && !json && !Console.isQuiet { Console.out(report.table) }
        let skipped = found.skipped + report.skipped
        if verbosity.verbose {
            for (path, reason) in skipped { Console.error("reverse-audio: skipped \(path): \(reason)") }
        }
        let failures = found.failures.count + report.failures
        let attempted = found.files.count + found.failures.count - report.skipped.count - report.upToDate
        var summary: [String] = []
        if let share { summary.append("shard \(share): \(found.files.count) of \(walked) files") }
        if failures > 0 && attempted > 1 { summary.append("\(failures) of \(attempted) files failed") }
        if report.upToDate > 0 { summary.append("\(report.upToDate) already done (complete and current), skipped") }
        if !skipped.isEmpty {
            summary.append("\(skipped.count) skipped\(verbosity.verbose ? "" : " (--verbose lists them)")")
        }
        if !summary.isEmpty && !Console.isQuiet { Console.error("reverse-audio: " + summary.joined(separator: "; ")) }
        if failures > 0 { throw ExitCode.failure }
    }

    /// A manifest is appended to: one that is an input (by any name: a link, a hard link, the
    /// `--files-from` list) would have JSON appended to the audio, on every run, and so would
    /// any other file that is not a manifest (`--manifest *.mp3` makes the first MP3 the
    /// manifest). Known before anything is written, so a usage error.
    private func checkManifestIsNotAnInput(_ found: SupportedAudioFiles.Collection) throws {
        guard let manifest else { return }
        let url = URL(fileURLWithPath: manifest)
        let listed = filesFrom.flatMap { StandardStreams.isStandardInput($0) ? nil : URL(fileURLWithPath: $0) }
        if let listed, OutputFile.isSameFile(url, listed) {
            throw CommandLineError("--manifest \(url.displayPath): it is the --files-from list; name another file for the manifest")
        }
        if let input = found.files.first(where: { OutputFile.isSameFile(url, $0.url) }) {
            throw CommandLineError("--manifest \(url.displayPath): it is an input of this batch (\(input.url.displayPath)); name another file for the manifest")
        }
        if let first = ManifestWriter.firstByte(of: manifest), first != UInt8(ascii: "{") {
            throw CommandLineError("--manifest \(url.displayPath): it holds something other than a manifest's JSON lines (an input named by mistake?); name another file for the manifest")
        }
    }

    /// The share this run takes: `--shard K/N`, or what `--shard auto` reads (and says it read).
    private func chosenShard() throws -> Shard? {
        switch shard {
        case nil:
            return nil
        case .fixed(let share):
            return share
        case .auto:
            do {
                let detection = try ShardEngine.detect(in: ProcessInfo.processInfo.environment, count: shardCount)
                if !Console.isQuiet { Console.error("reverse-audio: \(detection.summary)") }
                return detection.shard
            } catch {
                throw CommandLineError(error.description)
            }
        }
    }

    /// True for a folder argument that yielded no input.
    private func isFolderWithoutInputs(_ path: String, _ found: SupportedAudioFiles.Collection) -> Bool {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else { return false }
        let prefix = URL(fileURLWithPath: path).standardizedFileURL.path + "/"
        let shown = URL(fileURLWithPath: path).displayPath + "/"
        return !found.files.contains { $0.url.standardizedFileURL.path.hasPrefix(prefix) || $0.url.displayPath.hasPrefix(shown) }
    }
}
