import ArgumentParser
import ReverseAudio
import ReverseAudioBatch

/// `--shard K/N` (share K of N, counted from 0) or `--shard auto` (the share a batch engine's
/// variables say: see `ShardEngine`).
enum ShardOption: ExpressibleByArgument, Equatable {
    case fixed(Shard)
    case auto

    init?(argument: String) {
        if argument == "auto" {
            self = .auto
        } else if let shard = Shard(argument) {
            self = .fixed(shard)
        } else {
            return nil
        }
    }

    static var defaultCompletionKind: CompletionKind { .list(["auto", "0/2", "1/2"]) }
}
