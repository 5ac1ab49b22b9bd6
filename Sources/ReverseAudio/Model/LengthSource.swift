/// How the length of a decode was known before decoding it.
public enum LengthSource: String, Sendable, Codable {
    /// Stated by the container (PCM data size, FLAC STREAMINFO).
    case container
    /// Counted from the packets, without decoding.
    case packets
    /// The ends of the range asked for (the decode checks that the file holds them).
    case range
    /// Only by decoding: nothing predicted it, or the prediction was wrong.
    case decode
}
