import FFmpeg
import Foundation
import ReverseAudioCore

extension LengthResolver {
    /// What resolving found.
    struct Resolution {
        let length: PCMLength
        /// Why nothing tells the length, when nothing does.
        let unknownReason: String?
        /// Every packet's place, when the count built it for a stream that seeks by index.
        let index: PacketIndex?
        /// True when only decoding from the start places a frame: a packet departs from the
        /// stream's rate or frame size (``CodecTraits/departsFromStream(_:sampleRate:frameSize:)``).
        var positionsOnlyByDecoding = false
        /// True when checking the container's statement met damage at the stream's end.
        var endIsDamaged = false
        /// Packets the decoder rejects, as the resolution found them (their frames are not in
        /// the decode), and the decoder's reason.
        var rejectedPackets = 0
        var rejectionReason: String?
        /// True when the rejected packets inside the stream account for all the frames the
        /// container states and the decode lacks: the file is damaged, not cut short.
        var losesFramesInside = false
        /// The frames the file's header declares where FFmpeg states what the file holds
        /// instead (a WAV's data size past the end of the file).
        var declaredFrames: Int64?
        /// True when the stream decodes differently on the decoder's own frame threads: a FLAC
        /// packet holding more than one frame (junk or a second file's header between frames,
        /// as `cat a.flac b.flac` makes) gives only its first frame there, and every frame on
        /// one thread, which is the decode every reader then uses.
        var decodesOnOneThread = false
        /// False when a FLAC stream's frames were not checked (see ``FLACDamageScan``): frames
        /// the decoder rejects are unknown until a decode meets them.
        var checkedFrames = true
        /// False when a FLAC stream's timestamps were taken for the decode's positions without a
        /// scan: its readers check that every frame continues the one before
        /// (``FramePositioner/checksContinuity``), and the stream is scanned before one
        /// continuous decode when any found otherwise.
        var positionsChecked = true
        /// For an MP3 stream whose length its tag frame gave, to readers side by side: the packet
        /// index the first of them to seek builds for all (its count checks the tag's). The
        /// packets are counted before one continuous decode.
        var indexToShare: SharedPacketIndex?
        /// Where a FLAC scan stopped, for a range that reads no further (the length is then
        /// STREAMINFO's, unchecked past it); nil when the whole stream was scanned. A seek past
        /// it scans the rest first.
        var checkedThrough: Int64?
        /// Where the stream's first packet starts in the file, when a count read it: an MP3
        /// decode goes back there by a byte seek, which reads on exactly as a fresh open does,
        /// where no packet index was kept.
        var streamStart: Int64?

        /// True when the resolution was made for readers side by side, who check what it took
        /// on trust: one reader decoding alone resolves the stream fully first.
        /// This resolution with the length a decode of the whole stream gave, and the packets
        /// it rejected.
        func counted(byDecoding decode: (frames: Int64, rejected: Int, reason: String?)) -> Resolution {
            var counted = Resolution(length: PCMLength(frames: decode.frames, source: .decode), unknownReason: nil, index: nil)
            counted.positionsOnlyByDecoding = positionsOnlyByDecoding
            counted.streamStart = streamStart
            counted.rejectedPackets = decode.rejected
            counted.rejectionReason = decode.rejected > 0 ? decode.reason ?? FFmpegError.invalidDataText : nil
            return counted
        }

        var isForReadersSideBySide: Bool { !positionsChecked || indexToShare != nil }
    }
}
