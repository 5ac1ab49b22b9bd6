import CFFmpeg

/// What the rest of the library needs to know about a stream's codec, in its container,
/// resolved once per stream from FFmpeg's codec identifier: the one place where codecs are told
/// apart. (Numbers measured against continuous decodes with libavcodec 5.1; see
/// ENGINEERING.md.)
package struct CodecTraits: Sendable, Equatable {
    /// The kinds of codec the library treats differently.
    package enum Family: Sendable, Equatable {
        /// Uncompressed samples in any format or byte order.
        case pcm
        case flac
        case alac
        /// MPEG audio layer 3.
        case mp3
        /// MPEG audio layers 1 and 2.
        case mpegLayer1or2
        case aac
        case opus
        case vorbis
        case otherLossless
        case otherLossy
    }

    /// How exactly a decode restarted after a seek matches the continuous decode.
    package enum SeekExactness: Sendable, Equatable {
        /// Bit for bit.
        case bitExact
        /// Bit for bit unless the stream uses perceptual noise substitution (AAC): its noise
        /// generator's state exists only in a continuous decode.
        case bitExactWithoutNoiseSubstitution
        /// The decoder converges, not to the bit (Opus).
        case converges
    }

    /// How a part of the stream is written in the same format.
    package enum CutMethod: Sendable, Equatable {
        /// Samples copied exactly (lossless codecs are encoded again, losslessly).
        case samples
        /// MP3 frames copied byte for byte behind a LAME tag that states the cut.
        case mp3Frames
        /// AAC packets copied byte for byte into an MP4 whose edit list states the cut.
        case mp4EditList
        /// Decoded and encoded again (generation loss).
        case reencode
    }

    package let family: Family
    /// FFmpeg's codec name ("mp3", "aac"), for messages.
    package let name: String
    /// True for lossy codecs, whose decoders emit whole frames of ``frameSize``.
    package let isLossy: Bool
    /// Samples per packet of a fixed-size codec (1152 for MP3 layer 3 at 32 kHz and above), else 0.
    package let frameSize: Int
    /// For a seek by container timestamp: samples to restart before the target.
    package let prerollSamples: Int
    /// The demuxer only estimates positions after a seek (MP3 and ADTS AAC): packets are
    /// indexed by reading them, and a seek restarts at an indexed packet.
    package let needsPacketIndex: Bool
    /// The container states the exact length (PCM's data size, FLAC's STREAMINFO): trusted
    /// once checked against the file, never counted packet by packet.
    package let containerStatesLength: Bool
    /// The container states where the audio ends and a decode stops there, as Apple's players
    /// stop: an MP4 edit list's end (FFmpeg 5.1 honours only its start).
    package let followsContainerDuration: Bool
    package let seekExactness: SeekExactness
    /// A decode restarted at the first frame is exact only with a fresh decoder (a flush keeps
    /// AAC's noise generator going).
    package let restartsWithFreshDecoder: Bool
    /// How a cut keeps the stream's own format.
    package let cutMethod: CutMethod
    /// AAC with spectral band replication (HE-AAC) and with parametric stereo on top (HE-AAC
    /// v2), as phones and streaming encoders make it: tools whose state spans packets, so a
    /// decode restarted after a seek needs more of them before the target than the core does
    /// (``prerollPackets``).
    package let spectralBandReplication: Bool
    package let parametricStereo: Bool
    /// Packets before the one holding a seek's target that are decoded and dropped, for codecs
    /// decoded by a packet index (MP3 counts its bit reservoir instead: ``restartPacket(holding:packetBytes:)``).
    package let prerollPackets: Int
    /// PCM whose stored bytes are exactly what libavcodec decodes it to (unsigned 8-bit, and
    /// little-endian 16- and 32-bit integers and floats, on a little-endian machine): a reader
    /// may copy the bytes instead of decoding them.
    package let storesDecodedSamples: Bool

    init(stream: UnsafeMutablePointer<AVStream>, containerName: String) {
        let parameters = stream.pointee.codecpar.pointee
        let id = parameters.codec_id
        let descriptor = avcodec_descriptor_get(id)
        isLossy = ((descriptor?.pointee.props ?? 0) & AV_CODEC_PROP_LOSSY) != 0
        name = String(cString: avcodec_get_name(id))
        let rate = max(Int(parameters.sample_rate), 1)
        let isPCM = id.rawValue >= AV_CODEC_ID_FIRST_AUDIO.rawValue && id.rawValue < AV_CODEC_ID_ADPCM_IMA_QT.rawValue
        let isMP4 = containerName.hasPrefix("mov")
        switch id {
        case _ where isPCM: family = .pcm
        case AV_CODEC_ID_FLAC: family = .flac
        case AV_CODEC_ID_ALAC: family = .alac
        case AV_CODEC_ID_MP3: family = .mp3
        case AV_CODEC_ID_MP1, AV_CODEC_ID_MP2: family = .mpegLayer1or2
        case AV_CODEC_ID_AAC: family = .aac
        case AV_CODEC_ID_OPUS: family = .opus
        case AV_CODEC_ID_VORBIS: family = .vorbis
        default: family = isLossy ? .otherLossy : .otherLossless
        }
        frameSize = isLossy ? Int(max(parameters.frame_size, 0)) : 0
        let tools = family == .aac ? Self.aacTools(parameters) : (sbr: false, ps: false)
        spectralBandReplication = tools.sbr
        parametricStereo = tools.ps
        // The AAC core: one packet of MDCT overlap, two decoded (measured bit-exact without
        // noise substitution). SBR (ISO/IEC 14496-3 §4.6.18) keeps its QMF analysis (320
        // samples) and synthesis (1280) delay lines, the previous frame's low band that its
        // high-frequency generator reads and an envelope grid that may begin in the previous
        // frame, and smooths its gains over the envelopes before: under one more frame. PS
        // (§8.6.4) adds its hybrid filter bank's delay, decorrelator delay lines of up to 14
        // QMF slots with all-pass links, a transient detector whose peak decay (0.765625 a
        // slot) needs some 42 slots to fall below 16 bits, and parameters interpolated from
        // the previous envelope: under two more frames of 32 slots.
        switch (family, tools.sbr, tools.ps) {
        case (.aac, true, true): prerollPackets = 5
        case (.aac, true, false): prerollPackets = 3
        default: prerollPackets = 2
        }
        switch family {
        case .aac: prerollSamples = prerollPackets * max(frameSize, tools.sbr ? 2048 : 1024)
        // Its stated pre-roll, at least 320 ms.
        case .opus: prerollSamples = max(Int(parameters.seek_preroll), rate * 320 / 1000)
        // Two of its longest packets.
        case .vorbis: prerollSamples = 2 * 8192
        // The bit reservoir's worst case; with an index the exact rule is restartPacket's.
        case .mp3, .mpegLayer1or2: prerollSamples = 12 * 1152
        case .otherLossy: prerollSamples = max(frameSize, 4096) * 2
        case .pcm, .flac, .alac, .otherLossless: prerollSamples = 0
        }
        needsPacketIndex = isLossy && (containerName == "mp3" || containerName == "aac")
        containerStatesLength = family == .pcm || family == .flac
        followsContainerDuration = isMP4
        switch family {
        // SBR's noise floor and sinusoids take their phase from indices that run on from the
        // decode's first packet (a flush keeps them): only a continuous decode has them.
        case .aac where tools.sbr: seekExactness = .converges
        case .aac: seekExactness = .bitExactWithoutNoiseSubstitution
        case .opus: seekExactness = .converges
        default: seekExactness = .bitExact
        }
        restartsWithFreshDecoder = isLossy
        let littleEndian = 1.littleEndian == 1
        storesDecodedSamples = littleEndian && [AV_CODEC_ID_PCM_U8, AV_CODEC_ID_PCM_S16LE, AV_CODEC_ID_PCM_S32LE,
                                                AV_CODEC_ID_PCM_F32LE, AV_CODEC_ID_PCM_F64LE].contains(id)
        switch family {
        case .mp3 where containerName == "mp3": cutMethod = .mp3Frames
        case .aac where isMP4: cutMethod = .mp4EditList
        default: cutMethod = isLossy ? .reencode : .samples
        }
    }

    /// The packet to restart decoding from so that packet `holding` (and everything after it)
    /// decodes as in a continuous decode, given the payload bytes of earlier packets.
    ///
    /// MP3: a frame's main data may start up to 511 bytes back in earlier frames (the bit
    /// reservoir's 9-bit `main_data_begin`), and its output depends on the two granules before
    /// (the IMDCT overlap and the synthesis filter bank's history): the restart is where the
    /// packets before the frames holding those granules (the target's predecessor in MPEG-1,
    /// the two before it in MPEG-2 and 2.5, whose frames are one granule) hold 511 bytes of
    /// payload, plus one packet of margin. Other codecs: two packets before.
    ///
    /// This is the worst case, known from the packets' sizes alone: what a seek needs. A cut,
    /// which reads the frames' side information (``MPEGAudioFrame``), starts at the least
    /// pre-roll that is exact instead, and carries the reservoir bytes it lacks in a frame of
    /// its own; it uses this rule only for the reference decode it checks its first frames against.
    package func restartPacket(holding: Int, packetBytes: (Int) -> Int) -> Int {
        switch family {
        case .mp3, .mpegLayer1or2:
            // The frames whose granules the target's output depends on (two granules: one frame
            // of MPEG-1's two, two of MPEG-2's and 2.5's one) must have all their main data.
            var start = max(holding - (frameSize == 576 ? 2 : 1), 0)
            var payload = 0
            while start > 0 && payload < 511 {
                start -= 1
                payload += max(packetBytes(start) - 36, 1)  // header and side information excluded
            }
            return max(start - 1, 0)
        case .pcm, .flac, .alac, .otherLossless:
            // Each packet decodes on its own.
            return holding
        default:
            return max(holding - prerollPackets, 0)
        }
    }

    /// Whether an AAC stream uses SBR and PS: the decoder's profile (FFmpeg names HE-AAC and
    /// HE-AAC v2 so when it finds them signalled implicitly, in the packets, as ADTS carries
    /// them), the AudioSpecificConfig's object type (5 or 29 when signalled explicitly, as MP4
    /// carries them; the profile then names the core), or a frame of 2048 samples (SBR doubles
    /// the core's 1024).
    private static func aacTools(_ parameters: AVCodecParameters) -> (sbr: Bool, ps: Bool) {
        var objectType = 0
        if parameters.extradata_size >= 1, let data = parameters.extradata {
            objectType = Int(data[0] >> 3)
            if objectType == 31, parameters.extradata_size >= 2 {
                objectType = 32 + (Int(data[0] & 7) << 3 | Int(data[1] >> 5))
            }
        }
        let profile = parameters.profile
        let ps = profile == FF_PROFILE_AAC_HE_V2 || objectType == 29
        let sbr = ps || profile == FF_PROFILE_AAC_HE || objectType == 5 || parameters.frame_size == 2048
        return (sbr, ps)
    }

    /// False for a packet the decoder will reject without output, decided from its bytes as the
    /// decoder decides: for MPEG audio, one that does not start with a frame header (an ID3 tag
    /// between two concatenated MP3 files reaches the decoder as such a packet), or whose layer
    /// III side information the decoder refuses (a bit flipped there by a disk or a network:
    /// ``MPEGAudioFrame/yieldsNoSamples(_:)``). A count of the packets, and an index of where each
    /// one's samples come, then place every later frame where a continuous decode puts it.
    package func canDecode(_ packet: Packet) -> Bool {
        guard family == .mp3 || family == .mpegLayer1or2 else { return true }
        guard packet.size > 0 else { return false }
        return packet.withBytes { !MPEGAudioFrame.yieldsNoSamples($0) }
    }

    /// True for an MPEG audio packet whose header states another rate or frame size than the
    /// stream's (`sampleRate`, `frameSize`): a file joined from parts at different rates, or a
    /// damaged header. Its decoder emits the frame's own samples, resampled to the first frame's
    /// rate on the way out, so neither a count of packets of one size nor their timestamps
    /// place anything after it: only decoding does.
    package func departsFromStream(_ packet: Packet, sampleRate: Int, frameSize: Int) -> Bool {
        guard family == .mp3 || family == .mpegLayer1or2 else { return false }
        return packet.withBytes { bytes in
            guard let header = MPEGAudioFrame.header(of: bytes), header.bitRateIndex != 0 else { return false }
            return header.sampleRate != sampleRate || header.samplesPerFrame != frameSize
        }
    }

    /// True for a packet ``canDecode(_:)`` refuses that the decoder reports as an error (an
    /// ID3v1 tag is passed over without one).
    package func reportsRejection(of packet: Packet) -> Bool {
        guard !canDecode(packet) else { return false }
        return packet.withBytes { bytes in bytes.count < 3 || !(bytes[0] == 0x54 && bytes[1] == 0x41 && bytes[2] == 0x47) }
    }
}
