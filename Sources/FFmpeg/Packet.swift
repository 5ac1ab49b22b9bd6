import CFFmpeg

/// Owns one `AVPacket`: compressed data read from a demuxer, or PCM handed to a muxer.
package final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    package init() throws(FFmpegError) {
        guard let packet = av_packet_alloc() else { throw .outOfMemory("allocating a packet") }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    /// Drops the payload so the packet can be reused.
    package func unreference() { av_packet_unref(pointer) }

    /// Makes this packet refer to `other`'s payload and properties (no copy of the data).
    package func reference(_ other: Packet) throws(FFmpegError) {
        av_packet_unref(pointer)
        try FFmpegError.check(av_packet_ref(pointer, other.pointer), "keeping a packet")
    }

    package var streamIndex: Int { Int(pointer.pointee.stream_index) }
    /// Duration in the stream's time base; 0 when the demuxer does not know it.
    package var duration: Int64 { pointer.pointee.duration }
    package var byteCount: Int { Int(pointer.pointee.size) }
    /// Byte position of the packet in the file, or nil when unknown.
    package var filePosition: Int64? { pointer.pointee.pos >= 0 ? pointer.pointee.pos : nil }
    package var presentationTimestamp: Int64? {
        pointer.pointee.pts == ra_av_nopts_value() ? nil : pointer.pointee.pts
    }

    /// Samples the decoder will drop from the start and the end of this packet's audio
    /// (gapless trimming, from `AV_PKT_DATA_SKIP_SAMPLES`).
    package var skipSamples: (start: Int, end: Int) {
        var start: UInt32 = 0
        var end: UInt32 = 0
        ra_packet_skip_samples(pointer, &start, &end)
        return (Int(start), Int(end))
    }

    /// The packet's skip-samples side data, nil when it carries none. libavcodec *replaces* the
    /// start samples it still has to skip with a packet's value whenever a packet carries one.
    package var skipSideData: (start: Int, end: Int)? {
        var start: UInt32 = 0
        var end: UInt32 = 0
        guard ra_packet_skip_samples(pointer, &start, &end) != 0 else { return nil }
        return (Int(start), Int(end))
    }

    /// True when the demuxer marked the packet as decode-only (e.g. before an MP4 edit list's start).
    package var isDiscarded: Bool { ra_packet_is_discarded(pointer) != 0 }

    /// Bytes of payload.
    package var size: Int { Int(pointer.pointee.size) }

    /// Stamps the packet with `timestamp` (in its stream's time base) as its presentation and
    /// decoding time: for inputs whose demuxer only estimates timestamps after a seek.
    package func setTimestamp(_ timestamp: Int64) {
        pointer.pointee.pts = timestamp
        pointer.pointee.dts = timestamp
    }

    /// Sets the packet's duration (in its stream's time base): a muxer takes where a track ends
    /// from its last packet's (an audio cut's exact end, a video's last frame).
    package func setDuration(_ duration: Int64) {
        pointer.pointee.duration = duration
    }

    /// Drops the side data and the decode-only flag a demuxer attached, so the packet can be
    /// written to another file as it is (that file's header states its own trimming).
    package func clearForCopy() {
        ra_packet_clear_for_copy(pointer)
    }

    /// Sets the samples the decoder drops from the start and the end of this packet's audio.
    package func setSkipSamples(start: Int, end: Int) throws(FFmpegError) {
        try FFmpegError.check(ra_packet_set_skip_samples(pointer, UInt32(start), UInt32(end)), "marking gapless trimming")
    }
}
