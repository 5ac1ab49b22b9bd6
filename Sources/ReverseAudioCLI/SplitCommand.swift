import ArgumentParser
import Foundation
import ReverseAudio
import ReverseAudioBatch
import ReverseAudioCommandLine

struct SplitCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    static let configuration = CommandConfiguration(
        commandName: "split",
        abstract: "Split a file into pieces that play back to back as the whole, each cut as trim cuts (in the file's own format, copied where exact; ADTS .aac into .m4a, other containers we do not write into their codec's).")

    static let examples = [
        "reverse-audio split mix.mp3 -o Tracks --cue mix.cue          # 01 - Title.mp3, 02 - ..., and mix-pieces.json",
        "reverse-audio split take.flac -o Parts --at 1:30,3:05.5",
        "reverse-audio split lecture.m4a -o Chunks --every 10:00 --name lecture-%n",
        "reverse-audio split audiobook.m4b -o Chapters --chapters",
        "reverse-audio split Lectures -o Chunks --every 10:00 --jobs 2   # Chunks/NAME/NAME-01.m4a, ... for every file",
    ]

    @Argument(help: "The files to split, or folders of them: with more than one file, each file's pieces go in a folder of their own under -o, named after it.",
              completion: .file())
    var inputs: [String]

    @Flag(inversion: .prefixedNo, help: "Descend into subfolders of folder arguments.")
    var recursive = true

    @Option(help: "Files split at once, 1 to 1024; default 1 (each file's pieces are written on every core already).")
    var jobs: Int?

    @Option(name: [.customShort("o"), .customLong("output-directory")],
            help: ArgumentHelp("The folder the pieces go in (created if missing), with a JSON list of them beside.", valueName: "FOLDER"),
            completion: .directory)
    var outputDirectory: String

    @Option(help: ArgumentHelp("Split at these times (comma-separated, increasing).", valueName: "T1,T2,..."))
    var at: String?

    @Option(help: ArgumentHelp("Split every D (the last piece takes what is left).", valueName: "D"), transform: TimeValue.position)
    var every: TimePosition?

    @Option(help: ArgumentHelp("Split where a cue sheet's tracks start (INDEX 01), naming the pieces by their titles.", valueName: "FILE.cue"),
            completion: .file(extensions: ["cue"]))
    var cue: String?

    @Option(help: ArgumentHelp("Split in the middle of every silence: at least D seconds below THRESHOLD dB (as mp3splt -s; e.g. -48:0.5).",
                               valueName: "THRESHOLD:D"))
    var silence: String?

    @Flag(help: "Split where the file's chapters start (MP4 and Matroska chapters, ID3v2 CHAP frames), naming the pieces by their titles.")
    var chapters = false

    @Option(help: ArgumentHelp("Name the pieces from a template: %n the number (zero-padded), %t the title (a cue sheet's, else the file's name), %a the performer, %% a percent sign (default: NAME-%n, or %n - %t from a cue sheet or chapters).",
                               valueName: "TEMPLATE"))
    var name: String?

    @OptionGroup(title: SharedOptions.title) var overwriting: OverwriteOptions
    @OptionGroup(title: SharedOptions.title) var progress: ProgressOptions
    @OptionGroup(title: SharedOptions.title) var verbosity: VerbosityOptions
    @OptionGroup(title: SharedOptions.title) var result: JSONResultOption

    func validate() throws {
        if inputs.isEmpty { throw ValidationError("give a file to split (or several, or folders of them)") }
        if let jobs, !(1...1024).contains(jobs) { throw ValidationError("--jobs must be 1 to 1024, not \(jobs)") }
        if cue != nil && isBatch { throw ValidationError("--cue is one file's sheet: split that file alone with it") }
        let ways = [at != nil, every != nil, cue != nil, chapters, silence != nil].filter { $0 }.count
        if ways != 1 { throw ValidationError("give one of --at, --every, --cue, --chapters or --silence") }
        if let silence { _ = try Self.silenceSetting(silence) }
        if let every, every.frame(atRate: 48_000) == 0 { throw ValidationError("--every needs a length above 0") }
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: outputDirectory, isDirectory: &isFolder), !isFolder.boolValue {
            throw ValidationError("-o \(outputDirectory) is a file; split writes its pieces into a folder: name a folder (created if missing)")
        }
        if let name, name.contains("/") { throw ValidationError("--name makes file names: no '/' in it") }
    }

    /// One piece to write.
    private struct Piece {
        let start: Int64
        let title: String?
        let performer: String?
    }

    /// More than one file, or a folder: each file's pieces go in a folder of their own.
    private var isBatch: Bool {
        var isFolder: ObjCBool = false
        return inputs.count > 1 || (FileManager.default.fileExists(atPath: inputs[0], isDirectory: &isFolder) && isFolder.boolValue)
    }

    func run() async throws {
        if !isBatch {
            let input = inputs[0]
            let inputURL = try ErrorReporting.exitingOnFailure { try StandardStreams.seekableInputURL(input) }
            let display = ProgressDisplay(style: progress.style)
            do {
                _ = try await split(inputURL, named: input, into: URL(fileURLWithPath: outputDirectory),
                                    stem: inputURL.deletingPathExtension().lastPathComponent,
                                    progress: display.handler(file: input, index: 1, count: 1))
                display.clear()
            } catch {
                display.clear()
                ErrorReporting.printError(error)
                throw error is TemplateClash ? ExitCode(64) : ErrorReporting.exitCode(for: error)
            }
            return
        }
        try await splitBatch()
    }

    /// Every file the arguments name, side by side by `--jobs`, each into `-o FOLDER/[SUBFOLDERS/]NAME/`;
    /// a file that fails is reported and the others go on (exit 1 when any failed).
    private func splitBatch() async throws {
        let folder = URL(fileURLWithPath: outputDirectory, isDirectory: true)
        let found: SupportedAudioFiles.Collection
        do {
            let arguments = try inputs.map { SupportedAudioFiles.Argument(url: try StandardStreams.namedInput($0)) }
            found = try SupportedAudioFiles.collect(arguments: arguments, recursive: recursive, allFormats: false, excluding: [folder])
        } catch {
            ErrorReporting.printError(error)
            throw ErrorReporting.exitCode(for: error)
        }
        found.failures.forEach(ErrorReporting.printError)
        if verbosity.verbose { found.skipped.forEach { Console.error("reverse-audio: skipped \($0.path): \($0.reason)") } }
        let files = found.files
        let display = ProgressDisplay(style: progress.style)
        let command = self
        let outcomes = try await SignalCancellation.run { () async throws -> [Int?] in
            try await withThrowingTaskGroup(of: (Int, Int?).self) { group in
                var results = [Int?](repeating: nil, count: files.count)
                var next = 0
                func start(_ index: Int) {
                    let file = files[index]
                    let name = file.url.relativePath
                    let into = folder.appendingPathComponent(file.relativeFolder).appendingPathComponent(file.outputStem, isDirectory: true)
                    let handler = display.handler(file: name, index: index + 1, count: files.count)
                    group.addTask {
                        do {
                            return (index, try await command.split(file.url, named: name, into: into, stem: file.outputStem, progress: handler))
                        } catch is CancellationError {
                            throw CancellationError()
                        } catch {
                            display.clear()
                            ErrorReporting.printError(error)
                            return (index, nil)
                        }
                    }
                }
                while next < min(files.count, command.jobs ?? 1) {
                    start(next)
                    next += 1
                }
                while let (index, pieces) = try await group.next() {
                    results[index] = pieces
                    if next < files.count {
                        start(next)
                        next += 1
                    }
                }
                return results
            }
        }
        display.clear()
        let failed = outcomes.filter { $0 == nil }.count + found.failures.count
        let pieces = outcomes.compactMap { $0 }.reduce(0, +)
        if !Console.isQuiet {
            Console.error("reverse-audio: split \(files.count - outcomes.filter { $0 == nil }.count) of \(files.count + found.failures.count) files into \(pieces) pieces under \(folder.relativePath)"
                          + (failed > 0 ? "; \(failed) failed" : ""))
        }
        if failed > 0 { throw ExitCode(1) }
    }

    /// Two pieces of one name: a usage error (exit 64) for one file.
    private struct TemplateClash: Error, CustomStringConvertible {
        let template: String
        var description: String { "--name \(template) gives two pieces the same name: put %n in it" }
    }

    /// Splits `inputURL` (`named` as the user gave it) into `folder`, its pieces named from `stem`
    /// by default; returns how many pieces it wrote. The folder is removed again when this made
    /// it and nothing was left in it.
    private func split(_ inputURL: URL, named input: String, into folder: URL, stem: String, progress handler: ProgressHandler?) async throws -> Int {
        let (pieces, album, length, rate) = try plan(inputURL, named: input)
        // An ADTS stream cannot state where a piece starts and ends (the encoder's priming and
        // padding): its pieces go into MP4 (.m4a), whose edit lists can, the AAC packets copied;
        // a container we do not write (Matroska) gives the format made for its codec.
        let ext = try Composition.pieceExtension(for: inputURL)
        let template = name ?? (cue != nil || chapters ? "%n - %t" : "\(stem.replacingOccurrences(of: "%", with: "%%"))-%n")
        let digits = max(2, String(pieces.count).count)
        let names = pieces.enumerated().map { index, piece in
            Self.fileName(template, number: index + 1, digits: digits, title: piece.title ?? stem, performer: piece.performer ?? "") + "." + ext
        }
        if Set(names).count != names.count { throw TemplateClash(template: template) }
        let outputs = names.map { folder.appendingPathComponent($0) }
        // The input's tags stay on every piece; each gets its track number, and a cue sheet's
        // title and performer (and the album's title) where it names them.
        let tags = pieces.enumerated().map { index, piece in
            var tags = ["track": "\(index + 1)/\(pieces.count)"]
            if let title = piece.title { tags["title"] = title }
            if let performer = piece.performer { tags["artist"] = performer }
            if let album = album { tags["album"] = album }
            return tags
        }
        let folderExisted = FileManager.default.fileExists(atPath: folder.path)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let overwrite = overwriting.overwrite
            let written = try await SignalCancellation.run {
                try await Composition.split(inputURL, at: pieces.dropFirst().map(\.start), to: outputs, tags: tags,
                                            overwrite: overwrite, progress: handler)
            }
            var listed: [[String: Any]] = []
            for (index, piece) in written.enumerated() {
                let start = pieces[index].start
                let end = index + 1 < pieces.count ? pieces[index + 1].start : length
                piece.warnings.forEach(ErrorReporting.printWarning)
                var entry: [String: Any] = ["number": index + 1, "file": names[index], "startFrame": start, "endFrame": end,
                                            "startSeconds": Double(start) / Double(rate), "frames": piece.frames]
                if let title = pieces[index].title { entry["title"] = title }
                if let performer = pieces[index].performer { entry["performer"] = performer }
                listed.append(entry)
                let seconds = Double(piece.frames) / Double(rate)
                let how = verbosity.verbose ? " (\(piece.paths.joined(separator: "; ")))" : ""
                result.print("wrote \(folder.appendingPathComponent(names[index]).relativePath): \(String.seconds(seconds)), \(piece.frames) frames\(how)",
                             json: ["input": input, "output": folder.appendingPathComponent(names[index]).relativePath, "number": index + 1,
                                    "frames": piece.frames, "durationSeconds": seconds, "pieces": piece.paths, "status": "done"])
            }
            let manifest = folder.appendingPathComponent("\(stem)-pieces.json")
            let data = try JSONSerialization.data(withJSONObject: ["input": input, "sampleRate": rate, "frames": length, "pieces": listed],
                                                  options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            try data.write(to: manifest, options: .atomic)
            return written.count
        } catch {
            // The folder this run made goes too when nothing was left in it.
            if !folderExisted, (try? FileManager.default.contentsOfDirectory(atPath: folder.path))?.isEmpty == true {
                try? FileManager.default.removeItem(at: folder)
            }
            throw error
        }
    }

    /// The pieces' starts (the first at 0), titles and performers, a cue sheet's album title,
    /// the input's length and rate.
    private func plan(_ url: URL, named input: String) throws -> ([Piece], String?, Int64, Int) {
        let info = try AudioInfo.read(from: url)
        guard let length = info.frames else {
            throw CommandLineError("\(input): its length cannot be known without decoding it, so the last piece's end is unknown; convert it first")
        }
        let rate = info.sampleRate
        var pieces = [Piece(start: 0, title: nil, performer: nil)]
        var album: String?
        if let at {
            var previous: Int64 = 0
            for text in at.split(separator: ",", omittingEmptySubsequences: false) {
                let frame = try TimeValue.position(String(text)).frame(atRate: rate)
                guard frame > previous else {
                    throw CommandLineError("--at \(at): \(text) is not after the time before it (the times must increase, after 0)")
                }
                guard frame < length else {
                    throw CommandLineError("--at \(at): \(text) is not inside \(input), which lasts \(String.seconds(Double(length) / Double(rate)))")
                }
                pieces.append(Piece(start: frame, title: nil, performer: nil))
                previous = frame
            }
        } else if let every {
            let step = every.frame(atRate: rate)
            var frame = step
            while frame < length {
                pieces.append(Piece(start: frame, title: nil, performer: nil))
                frame += step
            }
        } else if let cue {
            let sheet: CueSheet
            do {
                sheet = try CueSheet(data: try Data(contentsOf: URL(fileURLWithPath: cue)))
            } catch let error as CueSheet.Invalid {
                throw CommandLineError("\(cue): \(error.description)")
            } catch {
                throw CommandLineError("\(cue): cannot be read (\(error.localizedDescription))")
            }
            album = sheet.title
            if !Console.isQuiet { sheet.warnings.forEach { Console.error("reverse-audio: warning: \(cue): \($0)") } }
            pieces = []
            for (index, track) in sheet.tracks.enumerated() {
                // The first piece starts at 0 (a pregap before track 1 belongs to it), so that
                // the pieces together are the whole file.
                let frame = index == 0 ? 0 : TimePosition.seconds(track.start).frame(atRate: rate)
                guard frame < length else {
                    throw CommandLineError("\(cue): track \(track.number) starts at \(CueSheet.clock(track.start)), past the end of \(input) (\(CueSheet.clock(Double(length) / Double(rate))))")
                }
                pieces.append(Piece(start: frame, title: track.title, performer: track.performer ?? sheet.performer))
            }
        }
        if let silence {
            let setting = try Self.silenceSetting(silence)
            let found = try Composition.silences(in: url, thresholdDB: setting.thresholdDB, minimumFrames: setting.minimum.frame(atRate: rate))
            guard !found.isEmpty else {
                throw CommandLineError("--silence \(silence): no silence inside \(input) lasts that long that far down; nothing to split")
            }
            // In the middle of each silence, as mp3splt does.
            pieces += found.map { Piece(start: ($0.lowerBound + $0.upperBound) / 2, title: nil, performer: nil) }
        }
        if chapters {
            let listed = try Composition.chapters(of: url)
            guard !listed.isEmpty else {
                throw CommandLineError("\(input) has no chapters FFmpeg reads (MP4 and Matroska chapters, ID3v2 CHAP frames)")
            }
            pieces = []
            for (index, chapter) in listed.enumerated() {
                let seconds = { (frame: Int64) in CueSheet.clock(Double(frame) / Double(rate)) }
                if index > 0 {
                    let previous = listed[index - 1]
                    guard chapter.start > previous.start else {
                        throw CommandLineError("\(input): chapter \(index + 1) starts at \(seconds(chapter.start)), not after chapter \(index) (\(seconds(previous.start))): the chapters are out of order")
                    }
                    if chapter.start < previous.end && !Console.isQuiet {
                        Console.error("reverse-audio: warning: \(input): chapter \(index + 1) starts at \(seconds(chapter.start)), before chapter \(index) ends (\(seconds(previous.end))): the pieces meet at its start")
                    }
                }
                // The first piece starts at 0, so that the pieces together are the whole file.
                let frame = index == 0 ? 0 : chapter.start
                guard frame < length else {
                    throw CommandLineError("\(input): chapter \(index + 1) starts at \(seconds(chapter.start)), past the end of the audio (\(seconds(length)))")
                }
                pieces.append(Piece(start: frame, title: chapter.title, performer: nil))
            }
        }
        return (pieces, album, length, rate)
    }

    /// `--silence THRESHOLD:D`: the threshold in dB (at most 0) and the shortest silence.
    static func silenceSetting(_ text: String) throws -> (thresholdDB: Double, minimum: TimePosition) {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let threshold = Double(parts[0]), threshold.isFinite, threshold <= 0, threshold >= -200 else {
            throw ValidationError("--silence \(text): give THRESHOLD:D, a level in dB from -200 to 0 and a length (-48:0.5)")
        }
        let minimum: TimePosition
        do {
            minimum = try TimeValue.position(String(parts[1]))
        } catch {
            throw ValidationError("--silence \(text): \(error)")
        }
        guard minimum.frame(atRate: 48_000) > 0 else { throw ValidationError("--silence \(text): the shortest silence must last more than 0") }
        return (threshold, minimum)
    }

    /// A piece's file name from `template`; titles made safe for file names (no `/`, no control
    /// characters, no leading dot, at most 100 characters).
    static func fileName(_ template: String, number: Int, digits: Int, title: String, performer: String) -> String {
        func safe(_ text: String) -> String {
            var cleaned = String(text.map { $0 == "/" || $0 == "\\" || $0.isNewline || ($0.asciiValue.map { $0 < 32 || $0 == 127 } ?? false) ? "_" : $0 })
                .trimmingCharacters(in: .whitespaces)
            while cleaned.hasPrefix(".") { cleaned.removeFirst() }
            return String(cleaned.prefix(100))
        }
        var result = ""
        var iterator = template.makeIterator()
        while let character = iterator.next() {
            guard character == "%" else { result.append(character); continue }
            switch iterator.next() {
            case "n": let text = String(number); result += String(repeating: "0", count: max(0, digits - text.count)) + text
            case "t": result += safe(title)
            case "a": result += safe(performer)
            case "%": result += "%"
            case let other?: result += "%" + String(other)
            case nil: result += "%"
            }
        }
        let name = safe(result)
        return name.isEmpty ? String(number) : name
    }
}
