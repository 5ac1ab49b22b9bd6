/// A number of channels in words, for messages: "1 channel", "6 channels".
package enum ChannelCountText {
    /// `count` with "channel" or "channels" after it.
    package static func phrase(_ count: Int) -> String {
        count == 1 ? "1 channel" : "\(count) channels"
    }
}
