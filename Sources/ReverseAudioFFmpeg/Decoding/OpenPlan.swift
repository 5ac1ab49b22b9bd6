import ReverseAudioCore

/// What opening a file prepares before anything is decoded, as the job that opens it needs:
/// a value the job decides once (``ReadPlan``, or a front end that only describes a file), so
/// the decoder takes one plan instead of a flag per policy.
package struct OpenPlan: Sendable {
    /// Find the length now, on this open of the file, before anything is decoded (what a
    /// reversal, progress or a seek by index needs): the file is then opened once. Otherwise
    /// it is found the first time the length is asked, on an open of its own.
    package var resolvesLength = false
    /// For a FLAC file, check every frame's CRC when resolving the length, to find frames the
    /// decoder rejects before decoding (what a length, a seek or a warning needs). A job that
    /// decodes the whole file leaves it to the decode, which reports each such frame: the check
    /// is then made only when the decode met one.
    package var checksFrames = true
    /// The whole file is decoded by readers side by side, each checking what the length's
    /// resolution takes on trust: a FLAC stream's timestamps are taken for its positions without
    /// a scan first (each reader checks that every frame continues the one before), an MP3's
    /// length is its tag frame's (the packet index the first reader to seek builds for all
    /// checks it). `resolveForOneReader()` resolves it fully when the file is decoded otherwise.
    package var readersSideBySide = false
    /// The part of the file the job reads, when it reads up to an end: a FLAC stream regular up
    /// to that end is scanned no further (nothing after it can move what is read; a seek past
    /// it scans the rest first).
    package var range: TimeRange?
    /// The job seeks (a range, readers on other threads, playback): a length found when the file
    /// is opened keeps an MP3's packet index for it. A job that reads the file once from the
    /// start keeps none (about 9 MB an hour of MP3), so its memory stays flat.
    package var seeks = true
    /// The job seeks often, back and forth (playback): the length, whenever it is found, keeps
    /// every packet's place (MP3, ADTS AAC), so that no seek searches the file.
    package var keepsPacketIndex = false
    /// A cap on the index FFmpeg keeps of the packets it reads (WAV, FLAC, MP3), for a reader
    /// that goes backwards: each entry is inserted in timestamp order, so reading a file from
    /// its end moves the whole index once per packet, which a small cap keeps cheap.
    package var demuxerIndexBytes: Int?

    /// Nothing resolved before decoding; the length found when first asked.
    package init() {}

    /// The length found on this open, before decoding (or not, when `resolvingLength` is false).
    package init(resolvingLength: Bool) {
        resolvesLength = resolvingLength
    }

    /// The length found on this open, before decoding: what describing, playing or reversing
    /// a whole file needs.
    package static let lengthFirst = OpenPlan(resolvingLength: true)

    /// Playback: the length found on this open, every packet's place kept for the seeks to
    /// come, FFmpeg's own index capped at `indexBytes`.
    package static func playback(indexBytes: Int) -> OpenPlan {
        var plan = OpenPlan.lengthFirst
        plan.keepsPacketIndex = true
        plan.demuxerIndexBytes = indexBytes
        return plan
    }

    /// Read once from the start, without seeking: no length before decoding, no packet index.
    package static let readOnceFromStart: OpenPlan = {
        var plan = OpenPlan()
        plan.seeks = false
        return plan
    }()
}
