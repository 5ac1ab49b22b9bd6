import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

// What a composition's result says of its pieces and its output: the paths and the warnings.
extension Composition {
    /// How a piece of `file` reaches an output in `codec`, in the words of the result's paths:
    /// copied, converted (with `changes`), decoded, encoded or re-encoded.
    static func path(of file: AudioFileSource, changes: [String], into codec: CodecFormat) -> String {
        var path: String
        switch (file.openedInput.traits.isLossy, !codec.isLossless) {
        case (true, true): path = "re-encoded: generation loss"
        case (false, true): path = "encoded (\(codec.name) is lossy)"
        case (true, false): path = "decoded (a lossy \(file.openedInput.traits.name) input, stored losslessly)"
        case (false, false): path = changes.isEmpty ? "copied (samples as they are)" : "converted"
        }
        if !changes.isEmpty { path += (path == "converted" ? " (" : "; converted (") + changes.joined(separator: ", ") + ")" }
        return path
    }

    /// What `output`, `frames` written, decodes to, and the warnings that says: the lossy
    /// inputs encoded again (and why, `notCopied`), or frames a lossy container does not state
    /// exactly (ADTS cannot state the encoder's priming and padding; an MP3 or MP4 may not state
    /// a cut of a few samples exactly).
    static func outcome(of output: URL, frames: Int64, format: OutputFormat, codec: String, lossy: Bool,
                                reencoded: [String], from lossyInputs: [String], notCopied: String?) -> (Int64, [ReverseAudioWarning]) {
        var decoded = frames
        var unstated: String?
        if lossy, AudioInput.isSeekableFile(output), let measured = try? AudioInfo.read(from: output).frames, measured != frames {
            decoded = measured
            unstated = "it decodes to \(measured) frames, \(abs(measured - frames)) \(measured > frames ? "more" : "fewer") than the "
                + "\(frames) written" + (format.file.cutsInexactly != nil ? "; write .m4a to keep exactly \(frames)" : "")
        }
        if !reencoded.isEmpty {
            let reason = [notCopied, unstated].compactMap { $0 }.joined(separator: ": ")
            return (decoded, [ReverseAudioWarning(.reencoded(codecs: Set(reencoded).sorted(), outputCodec: codec,
                                                             reason: reason.isEmpty ? nil : reason),
                                                  subject: lossyInputs.joined(separator: ", "))])
        }
        guard let unstated else { return (decoded, []) }
        let limit = format.file.cutsInexactly ?? "the encoder's priming and padding are not stated exactly"
        return (decoded, [ReverseAudioWarning(.framesNotStated(writtenFrames: frames, decodedFrames: decoded, reason: "\(limit): \(unstated)"),
                                              subject: output.displayPath)])
    }
}
