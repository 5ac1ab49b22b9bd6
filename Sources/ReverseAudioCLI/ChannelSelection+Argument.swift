import ArgumentParser
import ReverseAudio

extension ChannelSelection: ExpressibleByArgument {
    public static var allValueStrings: [String] { ["all", "first", "mix", "N"] }

    public static var defaultCompletionKind: CompletionKind { .list(["all", "first", "mix"]) }
}
