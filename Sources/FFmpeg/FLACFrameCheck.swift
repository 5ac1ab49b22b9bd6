import CFFmpeg

extension Packet {
    /// True when the packet is a FLAC frame whose CRC-16 (its last two bytes, over everything
    /// before them, header included) holds: the frame is as its encoder wrote it. The check
    /// libavcodec's FLAC decoder makes only when asked to (`err_detect crccheck`): a frame that
    /// fails it may still decode, or be rejected, which only decoding it tells.
    package var holdsIntactFLACFrame: Bool {
        withBytes { bytes in
            guard bytes.count > 2, let base = bytes.baseAddress else { return false }
            return av_crc(av_crc_get_table(AV_CRC_16_ANSI), 0, base.assumingMemoryBound(to: UInt8.self), bytes.count) == 0
        }
    }
}
