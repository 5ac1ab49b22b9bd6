import Foundation
import ReverseAudio

/// How a finished conversion is described to people.
enum ConversionSummary {
    static func line(_ result: ConversionResult, output: String) -> String {
        let seconds = Double(result.frames) / Double(result.format.sampleRate)
        let what = result.reversed ? "reversed" : "converted"
        let input = result.input.map { $0.isFileURL ? $0.relativePath : $0.displayPath } ?? result.source.path
        return "\(what) \(input) -> \(output): \(String.seconds(seconds)), "
            + "\(result.frames) frames, \(result.format)"
    }

    /// The `--json` object for one conversion, `input` and `output` as they were named.
    static func json(_ result: ConversionResult, input: String, output: String) -> [String: Any] {
        [
            "input": input, "output": output, "reversed": result.reversed, "frames": result.frames,
            "sampleRate": result.format.sampleRate, "channels": result.format.channelCount,
            "durationSeconds": Double(result.frames) / Double(result.format.sampleRate),
            "sampleFormat": result.format.sampleFormat.rawValue, "container": result.outputFormat.name,
            "codec": result.codec, "status": "done", "warnings": result.warnings.map(\.description),
            "temporaryBytes": result.temporaryBytes,
        ]
    }

    /// The `--json` object for a file that failed: the same `status`, `input` and `output` as a
    /// result's, the message, and the failure's own name (`notMedia`, `writeFailed`) as `kind`.
    static func failedJSON(_ error: any Error, input: String?, output: String?) -> [String: Any] {
        var object: [String: Any] = ["status": "failed", "error": ErrorReporting.describe(error),
                                     "kind": (error as? ReverseAudioError)?.kind ?? (error is CancellationError ? "cancelled" : "other")]
        if let input { object["input"] = input }
        if let output { object["output"] = output }
        return object
    }

    /// The `--verbose` explanation: lengths, passes, blocks and temporary space.
    static func details(_ result: ConversionResult) -> [String] {
        [
            "  source: \(result.source.container) / \(result.source.codec), \(result.source.sampleRate) Hz, \(result.source.channelCount) ch",
            "  blocks: \(result.blockFrames) frames each",
            "  threads: \(result.decodeThreads) decoding" + (result.singleThreadReason.map { " (one thread: \($0))" } ?? ""),
            "  length known from: \(result.lengthSource) (predicted \(result.predictedFrames.map(String.init) ?? "nothing\(result.predictionFailure.map { ": " + $0 } ?? "")"), decoded \(result.frames)); decoded \(result.decodePasses) time\(result.decodePasses == 1 ? "" : "s")",
            "  written as: \(result.outputFormat.name) / \(result.codec), \(result.format.sampleRate) Hz, \(result.format.channelCount) ch, "
                + (result.storedSampleFormat.map { "\($0)" } ?? "lossy"),
            "  conversions: \(result.conversions.isEmpty ? "none (the samples are the input's own)" : result.conversions.joined(separator: "; "))",
            "  temporary files: \(result.temporaryBytes) bytes besides the output (written under a temporary name and renamed)",
        ]
    }
}
