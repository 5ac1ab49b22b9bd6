import Foundation

/// A problem that did not stop the work, about one file (an input, or a stream in it): a
/// damaged packet skipped, a header that misstates the length, a lossy input encoded again.
/// ``description`` is one sentence without the file's name; ``subject`` names the file.
public struct ReverseAudioWarning: Sendable, Equatable, CustomStringConvertible {
    /// What happened.
    public enum Kind: Sendable, Equatable {
        /// Packets FFmpeg could not decode were skipped, as the `ffmpeg` CLI skips them.
        case skippedPackets(count: Int, reason: String)
        /// A read error ended the input early; what came before was used.
        case readStoppedEarly(reason: String)
        /// The decode ended well before the stated length after damage: the file looks cut off.
        case truncated(decodedFrames: Int64, statedFrames: Int64, sampleRate: Int)
        /// Packets rejected inside the stream held the frames the decode lacks of the stated
        /// length: the file is damaged, not cut short.
        case damagedPacketsLost(decodedFrames: Int64, statedFrames: Int64, sampleRate: Int)
        /// Every frame decoded, but the header states another length; the decoded one was used.
        case headerMisstatesLength(statedFrames: Int64, decodedFrames: Int64, sampleRate: Int)
        /// The length predicted from the packets (or asked for) was not what decoding gave.
        case lengthDiffers(predictedFrames: Int64, decodedFrames: Int64, isRange: Bool)
        /// The stream holds no samples at all.
        case noSamples
        /// Lossy input decoded and encoded again (generation loss), and why it was not copied.
        case reencoded(codecs: [String], outputCodec: String, reason: String?)
        /// The output decodes to another number of frames than were written: its container
        /// cannot state the encoder's priming and padding (ADTS AAC); `reason` says so.
        case framesNotStated(writtenFrames: Int64, decodedFrames: Int64, reason: String)
        /// Frames of a video stream that could not be decoded, or were left out, and why.
        case videoFramesLeftOut(count: Int, reason: String)
        /// The container lists more video frames than could be read.
        case videoTruncated(statedFrames: Int, readFrames: Int)
        /// Something about the pictures that changed on the way (size, pixel format, rotation).
        case pictureChange(String)
        /// An input converted to match the others (asked for): resampled, mixed down or remixed.
        case converted(changes: [String])
    }

    /// The file (or "file: video stream 0 (h264)") the warning is about.
    public let subject: String
    /// What happened.
    public let kind: Kind

    /// A warning about `subject`.
    package init(_ kind: Kind, subject: String) {
        self.subject = subject
        self.kind = kind
    }

    /// One sentence, without the subject.
    public var description: String {
        switch kind {
        case .skippedPackets(let count, let reason):
            return "skipped \(count) packet\(count == 1 ? "" : "s") FFmpeg could not decode (\(reason))"
        case .readStoppedEarly(let reason):
            return "reading stopped early: \(reason); decoded what came before"
        case .truncated(let decoded, let stated, let rate):
            return "decoded \(Self.seconds(decoded, rate)) s of the \(Self.seconds(stated, rate)) s the file declares: it looks truncated"
        case .damagedPacketsLost(let decoded, let stated, let rate):
            return "decoded \(Self.seconds(decoded, rate)) s of the \(Self.seconds(stated, rate)) s the file declares: the damaged packets skipped held the rest"
        case .headerMisstatesLength(let stated, let decoded, let rate):
            return "the header declares \(Self.seconds(stated, rate)) s (\(stated) frames) but the stream holds \(Self.seconds(decoded, rate)) s (\(decoded) frames), every frame intact: the header is wrong; the decoded length was used"
        case .lengthDiffers(let predicted, let decoded, let isRange):
            let what = isRange ? "the range should hold" : "the file declares"
            return "\(what) \(predicted) frames but decodes to \(decoded); the decoded length was used"
        case .noSamples:
            return "the file holds no audio samples"
        case .reencoded(let codecs, let output, let reason):
            return "re-encoded: generation loss (\(codecs.joined(separator: ", ")) decoded and encoded again as \(output)\(reason.map { ": \($0)" } ?? ""))"
        case .framesNotStated(_, _, let reason):
            return reason
        case .videoFramesLeftOut(let count, let reason):
            return "\(count) frame\(count == 1 ? "" : "s") \(reason)"
        case .videoTruncated(let stated, let read):
            return "the container lists \(stated) frames but only \(read) could be read: the file looks truncated"
        case .pictureChange(let text):
            return text
        case .converted(let changes):
            return "converted to match the first input: " + changes.joined(separator: ", ")
        }
    }

    private static func seconds(_ frames: Int64, _ rate: Int) -> String {
        String(format: "%.2f", Double(frames) / Double(max(rate, 1)))
    }
}
