import FFmpeg
import Foundation

/// MP3 frames encoded again for the part of a copied cut under a fade, made to sit beside
/// copied frames.
///
/// LAME (libmp3lame, through libavcodec) encodes them in the input's own version, rate and
/// channel mode (a constant bit rate's stream at its own rate; a variable one's at LAME's best
/// variable quality, `-V 0`, whose rate is above any other `-V`'s), with the bit reservoir off: every frame's
/// main data begins in it, so the first one needs nothing before it and nothing the copied
/// frames need is overwritten. Its output is decoded `initialPadding` samples late (LAME's
/// 576 and the decoder's 529), so the samples fed start that far into what the frames must
/// decode to: the frames line up with the input's frame grid and the stitch is on a frame boundary.
enum MP3FadeFrames {
    /// The bit rate of the frames encoded again.
    enum Rate: Equatable {
        /// Constant, in bits per second.
        case constant(Int)
        /// Variable, at LAME's best quality.
        case variable
    }

    /// An encoder of frames like `header` at `rate`, for `channels` channels.
    static func encoder(like header: MPEGAudioHeader, rate: Rate, channels: Int, path: String) throws(FFmpegError) -> FadeEncoder {
        var settings = Encoder.Settings(codecName: "libmp3lame", sampleType: .float, sampleRate: header.sampleRate,
                                        channelLayout: ChannelLayout(defaultFor: channels))
        switch rate {
        case .constant(let bitRate): settings.bitRate = bitRate
        case .variable: settings.quality = 0
        }
        // Joint stereo where the input has it; plain stereo for stereo and dual channel.
        return try FadeEncoder(settings, options: ["reservoir": "0", "joint_stereo": header.channelMode == 1 ? "1" : "0"], path: path)
    }

    /// The rate of frames encoded in place of some of `frames` (a stream's, around the cut):
    /// theirs when they all have one, else variable.
    static func rate(like frames: [MPEGAudioHeader]) -> Rate {
        let rates = Set(frames.map(\.bitRate))
        guard rates.count == 1, let rate = rates.first, rate > 0 else { return .variable }
        return .constant(rate)
    }

    /// `frames` (encoded without the bit reservoir: each one's main data begins in it) laid out
    /// so that `reservoir` (the bytes the next, copied, frame's main data begins with) ends the
    /// last one's main-data area: the last frame at the lowest bit rate whose area holds its own
    /// data and those bytes; when even the highest does not, its data begins in the frame
    /// before (its `main_data_begin` set, as LAME's reservoir does), which in turn carries those
    /// bytes at its end, and so on back. Nil when the first frame would need bytes before it.
    static func packed(_ frames: [[UInt8]], carrying reservoir: [UInt8]) -> [[UInt8]]? {
        var result = frames
        var carried = reservoir
        for index in frames.indices.reversed() {
            if carried.isEmpty { return result }
            let frame = frames[index]
            guard let parsed = frame.withUnsafeBytes({ MPEGAudioFrame(bytes: $0) }), parsed.mainDataBegin == 0 else { return nil }
            let header = parsed.header
            let areaStart = header.sideInformationOffset + header.sideInformationSize
            let data = Array(frame[areaStart..<min(frame.count, areaStart + parsed.mainDataSize)])
            guard data.count == parsed.mainDataSize else { return nil }
            let need = data.count + carried.count
            let fitting = (max(1, header.bitRateIndex)...14).first { header.mainDataAreaSize(bitRateIndex: $0) >= need }
            let wider = header.with(bitRateIndex: fitting ?? 14, padding: false)
            // Bytes of this frame's data that go at the end of the frame before.
            let spill = max(0, need - wider.mainDataAreaSize)
            guard spill <= (header.isLowSamplingFrequency ? 255 : 511), spill == 0 || index > 0 else { return nil }
            var bytes = [UInt8](repeating: 0, count: wider.frameSize)
            bytes.replaceSubrange(0..<4, with: wider.bytes)
            bytes.replaceSubrange(4..<areaStart, with: frame[4..<areaStart])
            setMainDataBegin(spill, in: &bytes, header: wider)
            bytes.replaceSubrange(areaStart..<(areaStart + data.count - spill), with: data[spill...])
            bytes.replaceSubrange((bytes.count - carried.count)..., with: carried)
            if wider.hasCRC {
                let side = wider.sideInformationOffset
                let crc = MP3CutPlan.mpegCRC(bytes[2..<4] + bytes[side..<(side + wider.sideInformationSize)])
                bytes[4] = UInt8(crc >> 8)
                bytes[5] = UInt8(crc & 0xFF)
            }
            result[index] = bytes
            carried = Array(data[0..<spill])
        }
        return carried.isEmpty ? result : nil
    }

    /// Writes `value` into the side information's first field, `main_data_begin` (9 bits in
    /// MPEG-1, 8 in MPEG-2 and 2.5).
    private static func setMainDataBegin(_ value: Int, in bytes: inout [UInt8], header: MPEGAudioHeader) {
        let bits = header.isLowSamplingFrequency ? 8 : 9
        let start = header.sideInformationOffset
        var word = UInt16(bytes[start]) << 8 | UInt16(bytes[start + 1])
        let shift = 16 - bits
        let mask = UInt16((1 << bits) - 1) << shift
        word = (word & ~mask) | (UInt16(value) << shift & mask)
        bytes[start] = UInt8(word >> 8)
        bytes[start + 1] = UInt8(word & 0xFF)
    }
}
