import CFFmpeg

/// The header and side information of one MPEG audio layer III frame, read from a packet's
/// bytes: what a cut needs to know about the bit reservoir (ISO/IEC 11172-3 §2.4.1.3 and
/// §2.4.1.7; ISO/IEC 13818-3 §2.4.1.7 for MPEG-2 and its 2.5 extension).
///
/// These are the format's own fields, read by hand because libavcodec keeps them private:
/// `main_data_begin` (how many bytes before this frame's main-data area its main data starts,
/// counted over earlier frames' main-data areas only) and each granule's `part2_3_length` (the
/// bits of scale factors and Huffman data it takes). Nothing else of the frame is interpreted.
package struct MPEGAudioFrame: Sendable, Equatable {
    /// The 4-byte frame header.
    package let header: MPEGAudioHeader

    /// The frame header a packet of these bytes starts with, after the zero bytes the decoder
    /// passes over; nil when it starts with none (an ID3v1 tag, junk).
    package static func header(of bytes: UnsafeRawBufferPointer) -> MPEGAudioHeader? {
        let start = leadingZeros(bytes)
        guard bytes.count - start >= 4 else { return nil }
        return MPEGAudioHeader((UInt32(bytes[start]) << 24) | (UInt32(bytes[start + 1]) << 16)
                               | (UInt32(bytes[start + 2]) << 8) | UInt32(bytes[start + 3]))
    }

    private static func leadingZeros(_ bytes: UnsafeRawBufferPointer) -> Int {
        var start = 0
        while start < bytes.count && bytes[start] == 0 { start += 1 }
        return start
    }
    /// Bytes before this frame's main-data area where its main data starts (9 bits in MPEG-1,
    /// 8 in MPEG-2 and 2.5).
    package let mainDataBegin: Int
    /// `part2_3_length` of every granule and channel, in bitstream order (granule 0's channels,
    /// then granule 1's): bits of main data each takes.
    package let part23Lengths: [Int]

    /// Reads the header and side information at the start of `bytes`; nil when they are not a
    /// layer III frame's (or the bytes are too short to hold them).
    package init?(bytes: UnsafeRawBufferPointer) {
        guard bytes.count >= 4 else { return nil }
        let word = (UInt32(bytes[0]) << 24) | (UInt32(bytes[1]) << 16) | (UInt32(bytes[2]) << 8) | UInt32(bytes[3])
        guard let header = MPEGAudioHeader(word), header.layer == 3 else { return nil }
        let start = header.sideInformationOffset
        guard bytes.count >= start + header.sideInformationSize else { return nil }
        var reader = BitReader(bytes: bytes, byteOffset: start)
        let channels = header.channelCount
        if header.isLowSamplingFrequency {
            mainDataBegin = reader.read(8)
            reader.skip(channels == 1 ? 1 : 2)            // private bits
        } else {
            mainDataBegin = reader.read(9)
            reader.skip(channels == 1 ? 5 : 3)            // private bits
            reader.skip(4 * channels)                     // scfsi
        }
        var lengths: [Int] = []
        lengths.reserveCapacity(header.granules * channels)
        for _ in 0..<header.granules {
            for _ in 0..<channels {
                lengths.append(reader.read(12))           // part2_3_length
                reader.skip(9 + 8)                        // big_values, global_gain
                reader.skip(header.isLowSamplingFrequency ? 9 : 4)  // scalefac_compress
                if reader.read(1) == 1 {                  // window_switching_flag
                    reader.skip(2 + 1 + 2 * 5 + 3 * 3)    // block_type, mixed_block_flag, table_select ×2, subblock_gain ×3
                } else {
                    reader.skip(3 * 5 + 4 + 3)            // table_select ×3, region0_count, region1_count
                }
                if !header.isLowSamplingFrequency { reader.skip(1) }  // preflag
                reader.skip(1 + 1)                        // scalefac_scale, count1table_select
            }
        }
        self.header = header
        part23Lengths = lengths
    }

    /// True when libavcodec's MPEG audio decoder gives no samples for a packet of these bytes:
    /// an ID3v1 tag, passed over; otherwise a packet it rejects (`AVERROR_INVALIDDATA`). As
    /// its `decode_frame` does, leading zero bytes are passed over; then it rejects no frame
    /// header ("Header missing"), free format (a header that does not say the frame's size),
    /// and for layer III side information that `mp_decode_layer3` refuses: a granule's
    /// `big_values` above 288 ("big_values too big"), or a window-switched granule of block
    /// type 0 ("invalid block type"). Damage elsewhere in a frame decodes, to other samples.
    /// Side information cut off by the end of the bytes reads as zeros, as the decoder's
    /// padded buffer does.
    package static func yieldsNoSamples(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let start = leadingZeros(bytes)
        // An ID3v1 tag reaching the decoder ("TAG") is passed over: no frame header.
        guard let header = header(of: bytes), header.bitRateIndex != 0 else { return true }
        guard header.layer == 3 else { return false }
        var reader = BitReader(bytes: UnsafeRawBufferPointer(rebasing: bytes[start...]), byteOffset: header.sideInformationOffset)
        let channels = header.channelCount
        if header.isLowSamplingFrequency {
            reader.skip(8 + channels)                     // main_data_begin, private bits
        } else {
            reader.skip(9 + (channels == 1 ? 5 : 3) + 4 * channels)  // main_data_begin, private bits, scfsi
        }
        for _ in 0..<(header.granules * channels) {
            reader.skip(12)                               // part2_3_length
            if reader.read(9) > 288 { return true }       // big_values
            reader.skip(8 + (header.isLowSamplingFrequency ? 9 : 4))  // global_gain, scalefac_compress
            if reader.read(1) == 1 {                      // window_switching_flag
                if reader.read(2) == 0 { return true }    // block_type
                reader.skip(1 + 2 * 5 + 3 * 3)
            } else {
                reader.skip(3 * 5 + 4 + 3)
            }
            reader.skip((header.isLowSamplingFrequency ? 0 : 1) + 1 + 1)
        }
        return false
    }

    /// Bytes of the frame's main-data area: what follows the header, the CRC and the side
    /// information (the bit reservoir's share of this frame).
    package var mainDataAreaSize: Int { header.mainDataAreaSize }

    /// Bytes of main data this frame's granules take, rounded up to a byte.
    package var mainDataSize: Int { (part23Lengths.reduce(0, +) + 7) / 8 }
}

/// The 32-bit header of an MPEG audio frame (ISO/IEC 11172-3 §2.4.1.3), with what follows
/// from it for layer III.
package struct MPEGAudioHeader: Sendable, Equatable {
    /// The header as it is in the file, big-endian.
    package let word: UInt32

    /// nil for a word that is not a frame header: no sync, a reserved version, layer or sample
    /// rate, or the forbidden bit-rate index 15.
    package init?(_ word: UInt32) {
        guard word & 0xFFE0_0000 == 0xFFE0_0000, (word >> 19) & 3 != 1, (word >> 17) & 3 != 0,
              (word >> 12) & 0xF != 0xF, (word >> 10) & 3 != 3 else { return nil }
        self.word = word
    }

    /// The version field: 3 for MPEG-1, 2 for MPEG-2, 0 for MPEG-2.5.
    package var version: Int { Int((word >> 19) & 3) }
    /// 1, 2 or 3.
    package var layer: Int { 4 - Int((word >> 17) & 3) }
    /// True when a 16-bit CRC follows the header (the protection bit is 0).
    package var hasCRC: Bool { (word >> 16) & 1 == 0 }
    /// 1…14, or 0 for free format.
    package var bitRateIndex: Int { Int((word >> 12) & 0xF) }
    package var sampleRateIndex: Int { Int((word >> 10) & 3) }
    package var hasPadding: Bool { (word >> 9) & 1 == 1 }
    /// 0 stereo, 1 joint stereo, 2 dual channel, 3 mono.
    package var channelMode: Int { Int((word >> 6) & 3) }
    package var channelCount: Int { channelMode == 3 ? 1 : 2 }
    /// MPEG-2 or 2.5: half or a quarter of MPEG-1's rates, one granule per frame.
    package var isLowSamplingFrequency: Bool { version != 3 }
    /// Granules per frame: 2 in MPEG-1, 1 in MPEG-2 and 2.5; each is 576 samples.
    package var granules: Int { isLowSamplingFrequency ? 1 : 2 }
    package static let samplesPerGranule = 576
    /// Samples the frame decodes to: 384 in layer I, 1152 in layer II, and a granule's 576
    /// per granule in layer III.
    package var samplesPerFrame: Int {
        switch layer {
        case 1: return 384
        case 2: return 1152
        default: return granules * Self.samplesPerGranule
        }
    }

    package var sampleRate: Int {
        let base = [44100, 48000, 32000][sampleRateIndex]
        switch version {
        case 3: return base
        case 2: return base / 2
        default: return base / 4
        }
    }

    /// The bit rate of `index` in this frame's version, in bits per second (0 for free format).
    package func bitRate(index: Int) -> Int {
        let mpeg1 = [0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320]
        let mpeg2 = [0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160]
        return 1000 * (isLowSamplingFrequency ? mpeg2 : mpeg1)[index]
    }

    package var bitRate: Int { bitRate(index: bitRateIndex) }

    /// Bytes of a layer III frame of this header's kind at bit-rate index `index` (0 for free format).
    package func frameSize(bitRateIndex index: Int, padding: Bool) -> Int {
        (isLowSamplingFrequency ? 72 : 144) * bitRate(index: index) / sampleRate + (padding ? 1 : 0)
    }

    /// Bytes of the whole frame, header included (0 for free format, whose size the header does not say).
    package var frameSize: Int { frameSize(bitRateIndex: bitRateIndex, padding: hasPadding) }

    /// Bytes of side information: 17 or 32 in MPEG-1 (mono, stereo), 9 or 17 in MPEG-2 and 2.5.
    package var sideInformationSize: Int {
        isLowSamplingFrequency ? (channelCount == 1 ? 9 : 17) : (channelCount == 1 ? 17 : 32)
    }

    /// Where the side information starts: after the header and its CRC.
    package var sideInformationOffset: Int { 4 + (hasCRC ? 2 : 0) }

    /// Bytes of main data a frame of this kind at bit-rate index `index` holds.
    package func mainDataAreaSize(bitRateIndex index: Int, padding: Bool = false) -> Int {
        frameSize(bitRateIndex: index, padding: padding) - sideInformationOffset - sideInformationSize
    }

    package var mainDataAreaSize: Int { mainDataAreaSize(bitRateIndex: bitRateIndex, padding: hasPadding) }

    /// The same header with another bit-rate index, padding bit, protection and mode
    /// extension (everything else kept: version, layer, sample rate, channel mode, private,
    /// copyright, original and emphasis bits).
    package func with(bitRateIndex index: Int, padding: Bool = false, crc: Bool? = nil, modeExtension: Int? = nil) -> MPEGAudioHeader {
        var word = self.word & ~(0xF << 12) & ~(1 << 9)
        word |= UInt32(index & 0xF) << 12
        if padding { word |= 1 << 9 }
        if let crc { word = crc ? word & ~(1 << 16) : word | (1 << 16) }
        if let modeExtension { word = (word & ~(3 << 4)) | (UInt32(modeExtension & 3) << 4) }
        return MPEGAudioHeader(word)!
    }

    /// True when frames of `other` decode with the same decoder set-up: the same version,
    /// layer, sample rate and number of channels (bit rate, padding and CRC may differ).
    package func isCompatible(with other: MPEGAudioHeader) -> Bool {
        version == other.version && layer == other.layer && sampleRateIndex == other.sampleRateIndex
            && channelCount == other.channelCount
    }

    /// The four bytes, big-endian.
    package var bytes: [UInt8] { [UInt8(word >> 24), UInt8((word >> 16) & 0xFF), UInt8((word >> 8) & 0xFF), UInt8(word & 0xFF)] }
}

/// Reads big-endian bit fields from bytes.
private struct BitReader {
    let bytes: UnsafeRawBufferPointer
    var bit: Int

    init(bytes: UnsafeRawBufferPointer, byteOffset: Int) {
        self.bytes = bytes
        bit = byteOffset * 8
    }

    /// Reads `count` bits; bits past the end read as zeros.
    mutating func read(_ count: Int) -> Int {
        var value = 0
        for _ in 0..<count {
            let byte = bit >> 3 < bytes.count ? bytes[bit >> 3] : 0
            value = (value << 1) | Int((byte >> (7 - UInt8(bit & 7))) & 1)
            bit += 1
        }
        return value
    }

    mutating func skip(_ count: Int) { bit += count }
}

extension Packet {
    /// The packet's payload, copied.
    package var bytes: [UInt8] {
        guard let data = pointer.pointee.data, pointer.pointee.size > 0 else { return [] }
        return Array(UnsafeBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }

    /// Calls `body` with the packet's payload (valid only inside the call).
    package func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        guard let data = pointer.pointee.data, pointer.pointee.size > 0 else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: data, count: Int(pointer.pointee.size)))
    }

    /// A packet carrying a copy of `bytes` (a frame made rather than read).
    package convenience init(bytes: [UInt8]) throws(FFmpegError) {
        try self.init()
        try FFmpegError.check(av_new_packet(pointer, Int32(bytes.count)), "allocating a packet")
        bytes.withUnsafeBufferPointer { source in
            pointer.pointee.data.update(from: source.baseAddress!, count: bytes.count)
        }
    }
}

extension Frame {
    /// Bytes of one decoded sample of one channel.
    package var bytesPerSample: Int { Int(av_get_bytes_per_sample(AVSampleFormat(rawValue: pointer.pointee.format))) }

    /// Appends each channel's decoded samples, as bytes, to `channels` (one array per channel,
    /// created as needed): for comparing two decodes sample by sample.
    package func appendSamples(to channels: inout [[UInt8]]) {
        let format = AVSampleFormat(rawValue: pointer.pointee.format)
        let count = Int(pointer.pointee.ch_layout.nb_channels)
        let size = bytesPerSample
        let samples = Int(pointer.pointee.nb_samples)
        while channels.count < count { channels.append([]) }
        if av_sample_fmt_is_planar(format) != 0 {
            for channel in 0..<count {
                guard let data = pointer.pointee.extended_data[channel] else { continue }
                channels[channel].append(contentsOf: UnsafeBufferPointer(start: data, count: samples * size))
            }
        } else if let data = pointer.pointee.extended_data[0] {
            for sample in 0..<samples {
                for channel in 0..<count {
                    let start = (sample * count + channel) * size
                    channels[channel].append(contentsOf: UnsafeBufferPointer(start: data + start, count: size))
                }
            }
        }
    }
}
