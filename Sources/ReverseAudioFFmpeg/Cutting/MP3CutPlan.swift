import FFmpeg

/// Where an exact MP3 cut starts, and the bit reservoir bytes its first frames need from
/// before it: worked out from each frame's side information (``MPEGAudioFrame``).
///
/// A layer III decoder's output for granule g (576 samples) depends on g's spectrum, on the
/// previous granule's (the IMDCT overlap) and, through the synthesis filter bank's 16-slot
/// history, on the one before that for all but its last 96 samples. So a fresh decoder gives
/// exactly the continuous decode's samples from granule g on when it decodes granules g − 2
/// and g − 1 (g − 1 alone when the cut lies in g's last 96 samples) with all their main data.
/// That main data may begin up to 511 bytes (255 in MPEG-2 and 2.5) back in earlier frames:
/// the bytes of the bit reservoir. When the first kept frame's data reaches back before it,
/// the missing bytes are carried by a frame prepended for the purpose (``reservoirFrame``):
/// its side information is zero, so it decodes to silence, and its main-data area ends with
/// exactly those bytes.
struct MP3CutPlan {
    /// Index (in the stream's packets) of the first frame copied.
    let first: Int
    /// The bytes the copied frames need from before `first`, oldest first; empty when none.
    let reservoir: [UInt8]
    /// Index of the last frame whose main data reaches before `first` (`first` when none does):
    /// a check of the decode should reach at least this far.
    let lastReachingBack: Int

    /// Why a cut cannot be copied from the frames read.
    struct Refusal: Error {
        let reason: String
    }

    /// Granules before the cut's own that must decode as in the continuous decode.
    static func granulesBefore(offsetInGranule: Int) -> Int {
        // The synthesis filter bank's output in slot s (32 samples) uses slots s − 15 … s: only
        // the last three slots of a granule depend on nothing before the granule's own IMDCT
        // output, which itself overlaps the previous granule's.
        offsetInGranule >= 15 * 32 ? 1 : 2
    }

    /// The plan for a cut starting `offset` samples into frame `holding`'s decoded output.
    /// - Parameters:
    ///   - extraFrames: frames of pre-roll to add to the least that is exact (a retry).
    ///   - frames: the frames read, by packet index (nil for a packet that is not a layer III
    ///     frame); they must cover the reservoir's reach on both sides of the first frame.
    ///   - payload: the bytes of packet `index`.
    ///   - lastCopied: the index of the last frame the cut copies.
    static func make(holding: Int, offset: Int, extraFrames: Int, frames: [Int: MPEGAudioFrame], lastCopied: Int,
                     payload: (Int) -> [UInt8]) throws(Refusal) -> MP3CutPlan {
        guard let held = frames[holding] else { throw Refusal(reason: "the frame holding the cut's start is not an MP3 layer III frame") }
        let header = held.header
        // Walk back over whole frames until the granules the cut needs are in.
        var needed = granulesBefore(offsetInGranule: offset % MPEGAudioHeader.samplesPerGranule)
            - offset / MPEGAudioHeader.samplesPerGranule
        var first = holding
        var extra = extraFrames
        while needed > 0 || extra > 0, first > 0, let previous = frames[first - 1], previous.header.isCompatible(with: header) {
            first -= 1
            if needed > 0 { needed -= previous.header.granules } else { extra -= 1 }
        }
        return try plan(first: first, like: header, frames: frames, lastCopied: lastCopied, payload: payload)
    }

    /// The plan for copying from frame `first`: the bit reservoir bytes it and the frames after
    /// it need from before it.
    static func plan(first: Int, like header: MPEGAudioHeader, frames: [Int: MPEGAudioFrame], lastCopied: Int,
                     payload: (Int) -> [UInt8]) throws(Refusal) -> MP3CutPlan {
        // Bytes before the first frame's main-data area that it and the next frames need.
        let maximumReach = header.isLowSamplingFrequency ? 255 : 511
        var areaStart = 0
        var reach = 0
        var lastReaching = first
        var index = first
        while index <= lastCopied && areaStart < maximumReach {
            guard let frame = frames[index] else {
                throw Refusal(reason: "a packet near the cut's start is not an MP3 layer III frame")
            }
            guard frame.header.isCompatible(with: header) else {
                throw Refusal(reason: "the stream changes its sample rate or channels near the cut's start")
            }
            if frame.mainDataBegin > areaStart {
                reach = max(reach, frame.mainDataBegin - areaStart)
                lastReaching = index
            }
            areaStart += frame.mainDataAreaSize
            index += 1
        }
        guard reach > 0 else { return MP3CutPlan(first: first, reservoir: [], lastReachingBack: first) }
        // Gather them from the main-data areas of the frames before, newest last.
        var gathered: [UInt8] = []
        var earlier = first - 1
        while gathered.count < reach, earlier >= 0, let frame = frames[earlier], frame.header.isCompatible(with: header) {
            let bytes = payload(earlier)
            let areaOffset = frame.header.sideInformationOffset + frame.header.sideInformationSize
            guard bytes.count == frame.header.frameSize, areaOffset <= bytes.count else {
                throw Refusal(reason: "an MP3 frame before the cut is not the size its header states")
            }
            gathered.insert(contentsOf: bytes[areaOffset...], at: 0)
            earlier -= 1
        }
        guard gathered.count >= reach else {
            throw Refusal(reason: "the first frames kept need bit reservoir bytes from before the stream's first frame")
        }
        return MP3CutPlan(first: first, reservoir: Array(gathered.suffix(reach)), lastReachingBack: lastReaching)
    }

    /// A frame of `header`'s kind (its version, sample rate, channel mode and protection)
    /// whose side information is all zero (every granule empty: it decodes to silence, and
    /// its main data begins in it) and whose main-data area ends with `reservoir`: at the
    /// lowest bit rate whose area holds them. 511 bytes fit in MPEG-1 from 32 kHz at 192 kb/s;
    /// 255 in MPEG-2 and 2.5 at their top rates: there is always one.
    static func reservoirFrame(carrying reservoir: [UInt8], like header: MPEGAudioHeader) -> [UInt8]? {
        guard let index = (1...14).first(where: { header.mainDataAreaSize(bitRateIndex: $0) >= reservoir.count }) else { return nil }
        let frameHeader = header.with(bitRateIndex: index, padding: false, modeExtension: 0)
        var bytes = [UInt8](repeating: 0, count: frameHeader.frameSize)
        bytes.replaceSubrange(0..<4, with: frameHeader.bytes)
        bytes.replaceSubrange((bytes.count - reservoir.count)..., with: reservoir)
        if frameHeader.hasCRC {
            // ISO 11172-3 §2.4.3.1: CRC-16 (0x8005, initial 0xFFFF) of the header's last two
            // bytes and the side information.
            let side = frameHeader.sideInformationOffset
            let crc = mpegCRC(bytes[2..<4] + bytes[side..<(side + frameHeader.sideInformationSize)])
            bytes[4] = UInt8(crc >> 8)
            bytes[5] = UInt8(crc & 0xFF)
        }
        return bytes
    }

    /// The MPEG audio CRC-16: polynomial 0x8005, most significant bit first, initial value 0xFFFF.
    static func mpegCRC<Bytes: Sequence>(_ bytes: Bytes) -> UInt16 where Bytes.Element == UInt8 {
        var crc: UInt16 = 0xFFFF
        for byte in bytes {
            crc ^= UInt16(byte) << 8
            for _ in 0..<8 { crc = crc & 0x8000 != 0 ? (crc << 1) ^ 0x8005 : crc << 1 }
        }
        return crc
    }
}
