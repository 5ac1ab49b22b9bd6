import CFFmpeg

extension Packet {
    /// True when the demuxer marks the packet as a place decoding can start (a keyframe).
    package var isKeyframe: Bool { ra_packet_is_keyframe(pointer) != 0 }

    /// The decoding timestamp in the stream's time base, when the demuxer gives one.
    package var decodingTimestamp: Int64? {
        pointer.pointee.dts == ra_av_nopts_value() ? nil : pointer.pointee.dts
    }

    /// Moves the packet's timestamps by `offset` (in its time base), leaving unknown ones unknown.
    package func shiftTimestamps(by offset: Int64) {
        if pointer.pointee.pts != ra_av_nopts_value() { pointer.pointee.pts += offset }
        if pointer.pointee.dts != ra_av_nopts_value() { pointer.pointee.dts += offset }
    }
}
