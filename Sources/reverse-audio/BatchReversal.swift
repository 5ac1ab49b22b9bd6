import Foundation
import ReverseAudio

/// Reverses (and optionally verifies) a list of files one after another. A file that fails is
/// reported and the rest go on; cancellation stops the whole batch.
struct BatchReversal: Sendable {
    let inputs: [URL]
    /// The NAME of NAME-REVERSED.wav for each input.
    let names: [String]
    let directory: URL
    let options: ConversionOptions
    let verify: Bool
    let verbose: Bool
    let display: ProgressDisplay

    struct Report: Sendable {
        let table: String
        let failures: Int
    }

    /// What one file's reversal (and verification) produced.
    private struct Outcome: Sendable {
        let reversed: ConversionResult
        let mismatch: String?
    }

    func run() async throws -> Report {
        var table = verify
            ? TextTable("file", "format", "duration", "frames", "block", "verified", "output")
            : TextTable("file", "format", "duration", "frames", "block", "output")
        var failures = 0
        for (index, input) in inputs.enumerated() {
            let label = input.relativePath
            let progress = display.handler(file: label, index: index + 1, count: inputs.count)
            do {
                let outcome = try await process(input, name: names[index], progress: progress)
                display.clear()
                let result = outcome.reversed
                result.warnings.forEach { ErrorReporting.printWarning($0, file: label) }
                let format = "\(result.source.container.split(separator: ",").first ?? "") / \(result.source.codec)"
                let seconds = String.seconds(Double(result.frames) / Double(result.format.sampleRate))
                let output = directory.appendingPathComponent(result.output.lastPathComponent).relativePath
                let columns = [label, format, seconds, "\(result.frames)", "\(result.blockFrames)"]
                if verify {
                    table.add(columns + [outcome.mismatch == nil ? "yes" : "NO", output])
                    if let mismatch = outcome.mismatch {
                        failures += 1
                        ErrorReporting.printError(ReverseAudioError.verificationFailed(path: label, reason: mismatch))
                    }
                } else {
                    table.add(columns + [output])
                }
                if verbose { ConversionSummary.details(result).forEach { Console.error("\(label):\($0)") } }
            } catch is CancellationError {
                display.clear()
                throw CancellationError()
            } catch {
                display.clear()
                failures += 1
                ErrorReporting.printError(error)
                table.add([label, "FAILED (see the error above)"])
            }
        }
        return Report(table: table.render(), failures: failures)
    }

    private func process(_ input: URL, name: String, progress: ProgressHandler?) async throws -> Outcome {
        if verify {
            let report = try await RoundTrip.run(input, into: directory, name: name, options: options, progress: progress)
            return Outcome(reversed: report.reversed, mismatch: report.mismatch)
        }
        let output = directory.appendingPathComponent(RoundTrip.outputNames(for: input, name: name, container: options.outputFormat?.container ?? .wav).reversed)
        let result = try await AudioConverter.convert(input, to: output, options: options, progress: progress)
        return Outcome(reversed: result, mismatch: nil)
    }
}
