/// How the length of a source was known before reading it.
public enum LengthSource: String, Sendable, Codable {
    /// Stated by the container (PCM's data size, FLAC's STREAMINFO, an MP4 edit list), and
    /// checked against the file.
    case container
    /// Counted from the packets, without decoding them.
    case packets
    /// The ends of the range asked for (reading checks that the source holds them).
    case range
    /// Only by reading it: nothing predicted it, or the prediction was wrong.
    case decode
}

/// The frames a source holds, when known before reading it, and how that was known.
public struct PCMLength: Sendable, Equatable, CustomStringConvertible {
    /// The frames; nil when only reading the source to its end can tell.
    public let frames: Int64?
    /// Where ``frames`` came from (``LengthSource/decode`` when it is unknown).
    public let source: LengthSource

    /// A length of `frames` known from `source`.
    public init(frames: Int64?, source: LengthSource) {
        self.frames = frames
        self.source = frames == nil ? .decode : source
    }

    /// Nothing tells the length before reading to the end.
    package static let unknown = PCMLength(frames: nil, source: .decode)

    /// "441000 frames (packets)", "unknown".
    public var description: String {
        frames.map { "\($0) frames (\(source.rawValue))" } ?? "unknown"
    }
}
