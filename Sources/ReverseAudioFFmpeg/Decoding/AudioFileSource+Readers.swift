import FFmpeg
import Foundation
import ReverseAudioCore

// What readers side by side need of a file source: whether they repay their set-up, why the file
// cannot be split, new readers sharing this one's length and index, and the checks they make.
extension AudioFileSource {
    /// Whether decoding `range` (nil: everything) on several threads repays what readers on
    /// other threads need first: the length, and for an MP3 the place of every packet (they
    /// seek by it). A stated length costs nothing; an MP3's packets cost a read of every packet
    /// header of the file (about 0.1 s an hour), which a range repays only when it is a good
    /// share of the file (a seek alone reads just the packets before its target).
    func readersRepaySetUp(for range: Range<Int64>?) -> Bool {
        guard let range, input.traits.needsPacketIndex else { return true }
        guard let seconds = input.demuxer.durationSeconds, seconds > 0 else { return false }
        let fileFrames = seconds * Double(format.sampleRate)
        let kept = min(Double(range.upperBound), fileFrames) - Double(range.lowerBound)
        return kept >= fileFrames / 4
    }

    /// Why the file cannot be decoded by several readers side by side, each seeking exactly;
    /// nil when it can. Its length must be resolved first (and for an MP3 its packet index,
    /// which the readers share).
    var splitRefusal: OneReaderReason? {
        if !input.isSeekable { return .pipe }
        switch input.traits.seekExactness {
        case .bitExact: break
        case .bitExactWithoutNoiseSubstitution:
            return .seekNotBitExact(codec: input.traits.name, noiseSubstitution: true)
        case .converges: return .seekNotBitExact(codec: input.traits.name, noiseSubstitution: false)
        }
        if conversion.sampleRate != nil { return .sampleRateConverted }
        if !input.parameters.timestampsResolveSamples {
            return .timestampsNameNoSamples
        }
        if damagedAtStart { return .damagedAtStart }
        if resolution?.positionsOnlyByDecoding == true { return .framesChangeFormat }
        guard decodedLength == nil, let resolution, resolution.length.frames != nil,
              !input.traits.needsPacketIndex || resolution.index != nil || resolution.indexToShare != nil else {
            return .lengthUnknown
        }
        if input.traits.needsPacketIndex && resolution.index?.isComplete != true && resolution.indexToShare == nil {
            return .onlyLastPacketsIndexed
        }
        return nil
    }

    /// A new reader of the same frames on an open of its own, at frame 0, sharing this
    /// reader's resolved length and packet index (complete, so never changing again, or built
    /// once for all by the first reader to seek); its decoder keeps to its own thread. Only
    /// when ``splitRefusal`` is nil.
    func openReader() throws -> AudioFileSource {
        try AudioFileSource(url: url, cancellation: cancellation, sharing: resolution, plan: OpenPlan())
    }

    /// Problems the decode met so far that a continuous decode reports (skipped packets, a read
    /// that stopped early): a segment during which this grows met damage.
    var problemCount: Int {
        positioner.skippedPackets + (positioner.readFailure == nil ? 0 : 1) + positioner.discontinuities
            + (positioner.sharedIndexDisagrees ? 1 : 0)
    }

    /// Where in the file the frames read come from, while its readers check its positions
    /// (``checksPositions``): the scheduler checks that segments read side by side meet.
    var segmentMarks: SegmentMarks? {
        guard checksPositions else { return nil }
        return SegmentMarks(inputStart: streamStartPosition, landing: positioner.landingPacketPosition,
                            current: positioner.framePacketPosition)
    }

    /// True while the stream's timestamps are taken for the decode's positions unchecked
    /// (``LengthResolver/Resolution/positionsChecked``): every reader checks them as it decodes.
    var checksPositions: Bool { resolution?.positionsChecked == false }

    /// Resolves the length fully where it was resolved for readers side by side
    /// (``LengthResolver/Resolution/isForReadersSideBySide``), before one reader decodes the
    /// file alone, or again after readers side by side met what only one continuous decode
    /// handles: a FLAC stream is scanned, an MP3's packets counted (on this open, from its first
    /// packet); the length, the index and the decoder's threads are then as when the file is
    /// opened without readers side by side. At the stream's start.
    func resolveForOneReader() throws {
        guard let provisional = resolution, provisional.isForReadersSideBySide else { return }
        var given: AudioInput?
        if let start = provisional.indexToShare?.streamStart {
            let rewound = try input.withFreshDecoder()
            try mappingFFmpegErrors(path: rewound.path) { try rewound.demuxer.seek(toByte: start) }
            given = rewound
        }
        let resolved = try LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: input.traits.needsPacketIndex,
                                                  damagedAtStart: false, isCancelled: isCancelled, using: given, checkingFrames: false)
        resolution = resolved
        openedDecoderThreads = resolved.decodesOnOneThread ? 1 : 0
        try restart()
    }

    /// Makes this reader as it was when opened: at frame 0, nothing decoded, its warnings
    /// forgotten, its decoder on as many threads as at first (a fresh decode after readers side
    /// by side met damage).
    func restart() throws {
        if resolution?.isForReadersSideBySide == true {
            try resolveForOneReader()
            return
        }
        pending.clear()
        flushed = false
        decodedLength = nil
        position = 0
        try restartFromStart(decoderThreads: openedDecoderThreads)
        atStart = true
    }

    /// Keeps the decoder to one thread, as every other reader beside this one does (a decoder's
    /// own frame threads would hide the damage a reader must see: FLAC's reports a bad frame
    /// only when decoded on one thread). Only before anything is delivered.
    func decodeOnOneThread() throws {
        guard input.decoderThreads != 1, atStart, pending.isEmpty else { return }
        try restartFromStart(decoderThreads: 1)
    }
}
