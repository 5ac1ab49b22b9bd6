/// Which channels of the source end up in the output.
public enum ChannelSelection: Sendable, Hashable, CustomStringConvertible {
    /// Every channel, interleaved as in the source (a stereo song stays stereo).
    case all
    /// Channel 0 only: what the original ReverseAudio app did.
    case first
    /// All channels mixed to one by swresample, exactly as `ffmpeg -ac 1`.
    case mix
    /// One channel by its zero-based index.
    case channel(Int)

    /// Parses "all", "first", "mix" or a zero-based channel index such as "1".
    public init?(argument: String) {
        switch argument.lowercased() {
        case "all": self = .all
        case "first": self = .first
        case "mix", "mono": self = .mix
        default:
            guard let index = Int(argument), index >= 0 else { return nil }
            self = .channel(index)
        }
    }

    /// "all", "first", "mix" or the channel number, as the command line takes it.
    public var description: String {
        switch self {
        case .all: return "all"
        case .first: return "first"
        case .mix: return "mix"
        case .channel(let index): return String(index)
        }
    }

    /// The single source channel this selection copies, if it copies exactly one.
    package var extractedChannel: Int? {
        switch self {
        case .first: return 0
        case .channel(let index): return index
        case .all, .mix: return nil
        }
    }

    /// Channels in the output for a source with `sourceChannels` channels.
    package func outputChannelCount(sourceChannels: Int) -> Int {
        self == .all ? sourceChannels : 1
    }
}
