import FFmpeg

/// The Xing/Info frame with a LAME tag that opens an MP3 cut, laid out as LAME's `VbrTag.c`
/// writes it, and the iTunes gapless comment (`iTunSMPB`) that states the same cut to players
/// that read that instead.
///
/// The tag states the cut: the encoder delay (samples a gapless decoder drops after the
/// decoder's own 529) and the padding (samples dropped at the end, 529 of them the decoder's
/// delay again), both 12-bit fields; with the frame count, `ffmpeg` and `mpg123` decode exactly
/// `frames × samples per frame − delay − padding` samples. Its CRC-16 covers the frame up to the
/// CRC field itself, as LAME computes it (FFmpeg's own muxer covers a fixed 190 bytes, which is
/// wrong for mono and MPEG-2 frames).
struct LAMETag {
    /// Samples the MP3 decoder's filter banks delay the signal by (which the tag's delay leaves out).
    static let decoderDelay = 529
    /// The largest value of a 12-bit field.
    static let maximumField = 4095

    /// Frames after the tag frame (it does not count itself).
    var frames: Int
    /// The frames' sizes in bytes, in order (for the byte count, the seek table and the music CRC).
    var frameSizes: [Int]
    /// CRC-16 (LAME's) of every byte after the tag frame.
    var musicCRC: UInt16
    var delay: Int
    var padding: Int
    /// The encoder's short name, as LAME writes it ("LAME3.100"): at most 9 bytes.
    var encoder: String
    /// True when the frames' bit rates differ: "Xing" rather than "Info".
    var isVariable: Bool

    /// The tag frame: a frame like `template` (version, sample rate, channel mode) without CRC,
    /// at the lowest bit rate whose frame holds the tag, decoding to nothing (its side
    /// information is zero, and decoders skip it as a tag).
    func frame(like template: MPEGAudioHeader) -> [UInt8] {
        let offset = 4 + template.sideInformationSize   // where "Xing"/"Info" starts
        let needed = offset + 156
        let index = (1...14).first { template.frameSize(bitRateIndex: $0, padding: false) >= needed } ?? 14
        let header = template.with(bitRateIndex: index, padding: false, crc: false, modeExtension: 0)
        let size = header.frameSize
        var bytes = [UInt8](repeating: 0, count: size)
        bytes.replaceSubrange(0..<4, with: header.bytes)
        func put(_ value: UInt64, _ width: Int, at position: Int) {
            for byte in 0..<width { bytes[position + byte] = UInt8((value >> (8 * UInt64(width - 1 - byte))) & 0xFF) }
        }
        bytes.replaceSubrange(offset..<(offset + 4), with: Array((isVariable ? "Xing" : "Info").utf8))
        put(0x0F, 4, at: offset + 4)                      // frames, bytes, seek table, quality
        put(UInt64(frames), 4, at: offset + 8)
        let total = size + frameSizes.reduce(0, +)
        put(UInt64(total), 4, at: offset + 12)
        // The seek table: for each percent of the duration, where that frame starts, in 256ths of the bytes.
        var starts: [Int] = []
        starts.reserveCapacity(frameSizes.count)
        var position = size
        for frameSize in frameSizes {
            starts.append(position)
            position += frameSize
        }
        for percent in 1..<100 where !starts.isEmpty {
            let start = starts[min(starts.count - 1, percent * starts.count / 100)]
            bytes[offset + 16 + percent] = UInt8(min(255, 256 * start / max(total, 1)))
        }
        put(0, 4, at: offset + 116)                       // quality: not known
        let name = Array(encoder.utf8.prefix(9))
        bytes.replaceSubrange((offset + 120)..<(offset + 120 + name.count), with: name)
        // Revision 0, method unknown; lowpass, ReplayGain, flags and ABR rate unknown for a cut.
        put(UInt64(min(delay, Self.maximumField) << 12 | min(padding, Self.maximumField)), 3, at: offset + 141)
        put(UInt64(total), 4, at: offset + 148)           // music length: this frame and every one after it
        put(UInt64(musicCRC), 2, at: offset + 152)
        put(UInt64(Self.crc(bytes[0..<(offset + 154)])), 2, at: offset + 154)
        return bytes
    }

    /// LAME's CRC-16 (polynomial 0x8005, reflected; initial value 0) of `bytes`, continuing `crc`.
    static func crc<Bytes: Sequence>(_ bytes: Bytes, continuing crc: UInt16 = 0) -> UInt16 where Bytes.Element == UInt8 {
        var value = crc
        for byte in bytes {
            value = (value >> 8) ^ crcTable[Int((value ^ UInt16(byte)) & 0xFF)]
        }
        return value
    }

    /// The CRC of each byte value, a byte at a time instead of a bit (the music CRC covers every
    /// byte copied: a split of an hour's MP3 runs it over all of them).
    private static let crcTable: [UInt16] = (0..<256).map { byte in
        var value = UInt16(byte)
        for _ in 0..<8 { value = value & 1 == 1 ? (value >> 1) ^ 0xA001 : value >> 1 }
        return value
    }

    /// The text of an iTunes gapless comment (`iTunSMPB`) for `length` samples with this tag's
    /// delay and padding: " 00000000 DELAY PADDING LENGTH" and eight zero fields, in hexadecimal.
    func iTunesGaplessText(length: Int64) -> String {
        ITunesGapless.text(delay: delay, padding: padding, length: length)
    }
}

/// Apple's gapless statement, `iTunSMPB`: kept in an ID3v2 comment in an MP3 and in an iTunes
/// `----` item in an MP4. Its fields are the samples to drop at the start and at the end and
/// the samples that remain.
enum ITunesGapless {
    static func text(delay: Int, padding: Int, length: Int64) -> String {
        func hex(_ value: UInt64, _ width: Int) -> String {
            let digits = String(value, radix: 16, uppercase: true)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return " 00000000 \(hex(UInt64(delay), 8)) \(hex(UInt64(padding), 8)) \(hex(UInt64(length), 16))"
            + String(repeating: " 00000000", count: 8)
    }

    /// An ID3v2 comment frame (`COMM`, language "eng", description "iTunSMPB") holding `text`,
    /// for a tag of ID3v2 `version` 3 or 4 (whose frame sizes are synchsafe).
    static func id3CommentFrame(text: String, version: Int) -> [UInt8] {
        let body: [UInt8] = [0] + Array("eng".utf8) + Array("iTunSMPB".utf8) + [0] + Array(text.utf8)
        let size = body.count
        let sizeBytes: [UInt8] = version >= 4
            ? [UInt8((size >> 21) & 0x7F), UInt8((size >> 14) & 0x7F), UInt8((size >> 7) & 0x7F), UInt8(size & 0x7F)]
            : [UInt8((size >> 24) & 0xFF), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
        return Array("COMM".utf8) + sizeBytes + [0, 0] + body
    }
}
