import CFFmpeg

/// Owns one `AVChannelLayout` (a custom-order layout holds a heap-allocated channel map).
package final class ChannelLayout {
    var layout: AVChannelLayout

    /// Copies `source`; the copy is ours to free.
    init(copying source: AVChannelLayout) {
        layout = AVChannelLayout()
        var source = source
        if av_channel_layout_copy(&layout, &source) < 0 {
            // Only a custom map can fail to copy (out of memory); fall back to the native default.
            av_channel_layout_default(&layout, source.nb_channels)
        }
    }

    /// FFmpeg's default layout for `channelCount` channels ("mono", "stereo", "5.1", ...).
    package init(defaultFor channelCount: Int) {
        layout = AVChannelLayout()
        av_channel_layout_default(&layout, Int32(channelCount))
    }

    /// The single-channel layout a mix-down produces.
    package static func mono() -> ChannelLayout {
        ChannelLayout(copying: ra_channel_layout_mono())
    }

    deinit { av_channel_layout_uninit(&layout) }

    package var channelCount: Int { Int(layout.nb_channels) }

    /// False when the file names no channel positions, only a count.
    package var isSpecified: Bool { layout.order != AV_CHANNEL_ORDER_UNSPEC }

    /// FFmpeg's description ("stereo", "5.1(side)", "3 channels"), as `ffprobe` prints it.
    package var name: String {
        var buffer = [CChar](repeating: 0, count: 128)
        var copy = layout
        guard av_channel_layout_describe(&copy, &buffer, buffer.count) >= 0 else {
            return channelCount == 1 ? "1 channel" : "\(channelCount) channels"
        }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The layout swresample should assume: the file's own, or the default for its channel count
    /// when the file gives only a count.
    func resolvedForMixing() -> ChannelLayout {
        isSpecified ? self : ChannelLayout(defaultFor: channelCount)
    }

    func isSame(as other: ChannelLayout) -> Bool {
        var mine = layout
        var theirs = other.layout
        return av_channel_layout_compare(&mine, &theirs) == 0
    }
}

extension ChannelLayout {
    /// The layout FFmpeg knows by `name` ("stereo", "5.1"), if it has `channelCount` channels;
    /// otherwise the default layout for `channelCount`.
    package convenience init(named name: String?, channelCount: Int) {
        self.init(defaultFor: channelCount)
        guard let name else { return }
        var parsed = AVChannelLayout()
        if av_channel_layout_from_string(&parsed, name) == 0, parsed.nb_channels == Int32(channelCount) {
            av_channel_layout_uninit(&layout)
            layout = parsed
        } else {
            av_channel_layout_uninit(&parsed)
        }
    }
}
