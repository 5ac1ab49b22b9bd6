import CFFmpeg

extension ChannelLayout {
    /// Each channel's short name in order, as FFmpeg names them ("FL", "FR", "LFE").
    package var channelNames: [String] {
        var copy = layout
        return (0..<channelCount).map { index in
            let channel = av_channel_layout_channel_from_index(&copy, UInt32(index))
            var buffer = [CChar](repeating: 0, count: 32)
            guard av_channel_name(&buffer, buffer.count, channel) >= 0 else { return "\(index + 1)" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }
}
