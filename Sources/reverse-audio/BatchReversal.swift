import Foundation
import ReverseAudio

/// Reverses (and optionally verifies) a list of files, up to `jobs` at a time. A file that
/// fails is reported and the rest go on; cancellation stops the whole batch. Results are
/// reported in input order whatever order the files finish in.
struct BatchReversal: Sendable {
    let inputs: [SupportedAudioFiles.Found]
    /// "relative/folder/NAME" for each input: NAME-REVERSED.ext goes there under `directory`.
    let names: [String]
    let directory: URL
    let options: ConversionOptions
    let verify: Bool
    let verbose: Bool
    /// With `--all-formats`, a file FFmpeg cannot read is skipped rather than failed.
    let allFormats: Bool
    let jobs: Int
    let json: Bool
    let display: ProgressDisplay

    struct Report: Sendable {
        let table: String
        let failures: Int
        let skipped: [(path: String, reason: String)]
    }

    /// What one file's reversal (and verification) produced.
    private enum Outcome: Sendable {
        case done(ConversionResult, mismatch: String?)
        case failed(any Error)
        case skipped(String)
    }

    func run() async throws -> Report {
        let outcomes = try await processAll()
        var table = verify
            ? TextTable("file", "format", "duration", "frames", "block", "verified", "output")
            : TextTable("file", "format", "duration", "frames", "block", "output")
        var failures = 0
        var skipped: [(path: String, reason: String)] = []
        for (index, outcome) in outcomes.enumerated() {
            let label = inputs[index].url.relativePath
            switch outcome {
            case .done(let result, let mismatch):
                result.warnings.forEach(ErrorReporting.printWarning)
                if let mismatch {
                    failures += 1
                    ErrorReporting.printError(ReverseAudioError.verificationFailed(path: label, reason: mismatch))
                }
                if json {
                    Console.out(BatchReversal.jsonLine(result, label: label, verified: verify ? mismatch == nil : nil))
                } else {
                    let format = "\(result.source.container.split(separator: ",").first ?? "") / \(result.source.codec)"
                    let seconds = String.seconds(Double(result.frames) / Double(result.format.sampleRate))
                    let output = result.output.relativePath
                    let columns = [label, format, seconds, "\(result.frames)", "\(result.blockFrames)"]
                    table.add(verify ? columns + [mismatch == nil ? "yes" : "NO", output] : columns + [output])
                }
                if verbose { ConversionSummary.details(result).forEach { Console.error("\(label):\($0)") } }
            case .failed(let error):
                failures += 1
                ErrorReporting.printError(error)
                if json {
                    Console.out(BatchReversal.jsonObject(["input": label, "error": ErrorReporting.describe(error)]))
                } else {
                    table.add([label, "FAILED (see the error above)"])
                }
            case .skipped(let reason):
                skipped.append((label, reason))
            }
        }
        return Report(table: table.render(), failures: failures, skipped: skipped)
    }

    /// Runs every file, `jobs` at a time, and returns the outcomes in input order.
    private func processAll() async throws -> [Outcome] {
        var outcomes = [Outcome?](repeating: nil, count: inputs.count)
        try await withThrowingTaskGroup(of: (Int, Outcome).self) { group in
            var next = 0
            func startNext() {
                guard next < inputs.count else { return }
                let index = next
                next += 1
                group.addTask { (index, try await process(index)) }
            }
            for _ in 0..<max(1, jobs) { startNext() }
            while let (index, outcome) = try await group.next() {
                outcomes[index] = outcome
                startNext()
            }
        }
        display.clear()
        return outcomes.map { $0 ?? .skipped("not run") }
    }

    private func process(_ index: Int) async throws -> Outcome {
        let input = inputs[index].url
        let label = input.relativePath
        let seconds = try? AudioInfo.probe(from: input).duration
        let progress = display.handler(file: label, index: index + 1, count: inputs.count, seconds: seconds)
        defer { display.finished(index: index + 1) }
        do {
            let folder = directory.appendingPathComponent(inputs[index].relativeFolder, isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let name = (names[index] as NSString).lastPathComponent
            if verify {
                let report = try await RoundTrip.run(input, into: folder, name: name, options: options, progress: progress)
                return .done(report.reversed, mismatch: report.mismatch)
            }
            let outputName = RoundTrip.outputNames(for: input, name: name, container: options.outputFormat?.container ?? .wav).reversed
            let result = try await AudioConverter.convert(input, to: folder.appendingPathComponent(outputName),
                                                          options: options, progress: progress)
            return .done(result, mismatch: nil)
        } catch is CancellationError {
            throw CancellationError()
        } catch let error as ReverseAudioError {
            if allFormats, case .notMedia = error { return .skipped("FFmpeg reads no audio in it") }
            if allFormats, case .noAudioStream = error { return .skipped("it has no audio stream") }
            return .failed(error)
        } catch {
            return .failed(error)
        }
    }

    /// One result as a JSON object on one line (`reverse --json`).
    static func jsonLine(_ result: ConversionResult, label: String, verified: Bool?) -> String {
        var object: [String: Any] = [
            "input": label, "output": result.output.relativePath, "frames": result.frames,
            "sampleRate": result.format.sampleRate, "channels": result.format.channelCount,
            "durationSeconds": Double(result.frames) / Double(result.format.sampleRate),
            "sampleFormat": result.format.sampleFormat.rawValue, "container": result.outputFormat.container.rawValue,
            "codec": result.codec.rawValue, "warnings": result.warnings.map(\.description), "temporaryBytes": result.temporaryBytes,
        ]
        if let verified { object["verified"] = verified }
        return jsonObject(object)
    }

    static func jsonObject(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            return "{}"
        }
        return String(decoding: data, as: UTF8.self)
    }
}
