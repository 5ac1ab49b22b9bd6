import FFmpeg

/// Channel names for labels: FFmpeg's short names of the layout's channels ("FL", "FR",
/// "LFE"), "mono" for one channel, the channel's number when the file names no positions.
package enum ChannelNames {
    /// The names of `channelCount` channels of the layout FFmpeg calls `layoutName`.
    package static func of(layoutName: String?, channelCount: Int) -> [String] {
        if channelCount == 1 { return ["mono"] }
        let layout = ChannelLayout(named: layoutName, channelCount: channelCount)
        guard layoutName != nil, layout.isSpecified else { return (1...max(channelCount, 1)).map { "ch\($0)" } }
        return layout.channelNames
    }
}
