import FFmpeg
import Foundation
import ReverseAudioCore

// How a file source learns its length: resolved without decoding where the file allows, kept
// for later opens as ``StreamFacts``, corrected by a decode that reaches another end.
extension AudioFileSource {
    /// What resolving the length learnt, for later opens of the same file
    /// (``init(url:facts:cancellation:)``); nil until the length is resolved in full, and where
    /// an open of its own could not take it on trust (a pipe, a stream damaged at its start, a
    /// resolution left to readers side by side or stopped before the stream's end).
    package var facts: StreamFacts? {
        guard let resolution, resolution.length.frames != nil, decodedLength == nil, !damagedAtStart, input.isSeekable,
              !resolution.isForReadersSideBySide, resolution.checkedFrames, resolution.checkedThrough == nil,
              !resolution.positionsOnlyByDecoding,
              !input.traits.needsPacketIndex || resolution.index?.isComplete == true else { return nil }
        return StreamFacts(resolution: resolution, info: info)
    }

    /// The frames the decode gives (see ``resolveLength()``); unknown for a pipe.
    package var length: PCMLength {
        if let decodedLength { return PCMLength(frames: decodedLength, source: .decode) }
        return (try? resolveLength()) ?? .unknown
    }

    /// Resolves the length without decoding the whole file, once: the container's statement,
    /// checked against the file (PCM's data size against the file's size; FLAC by decoding the
    /// frame that should be last); an MP4 edit list's end; otherwise the packets, read without
    /// decoding and summed as libavcodec will emit them. A decode that reaches another end
    /// later corrects it (and warns). Unless it was found when the file was opened
    /// (`resolvingLength`), it is found on this open when nothing was delivered yet and the
    /// decode can start again from the first packet exactly (what a range's first seek and a
    /// decision to split need: a WAV or an M4A range then opens its file once), else on an
    /// open of its own.
    /// - Throws: `CancellationError`.
    @discardableResult
    package func resolveLength() throws -> PCMLength {
        if let decodedLength { return PCMLength(frames: decodedLength, source: .decode) }
        if keepsPacketIndex { try resolveKeepingIndex() }
        if resolution == nil {
            resolution = try resolvedOnThisOpen()
                ?? LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: false,
                                          damagedAtStart: damagedAtStart, isCancelled: isCancelled)
            // Where a rejected packet moved every later one, seeks go by the index made of them.
            adoptResolution()
        }
        if let departed = resolution, departed.positionsOnlyByDecoding, departed.length.frames == nil {
            resolution = try departed.counted(byDecoding: countedByDecoding())
        }
        return resolution!.length
    }

    /// The frames a decode of the whole stream delivers, converted as this reader converts
    /// them, and the packets it rejected, on an open of its own: the length of a stream whose
    /// frames depart from its stated rate or size, which nothing else tells.
    func countedByDecoding() throws -> (frames: Int64, rejected: Int, reason: String?) {
        let counter = try AudioFileSource(url: url, cancellation: cancellation, sharing: nil, plan: .readOnceFromStart)
        _ = counter.adopt(conversion)
        var frames: Int64 = 0
        while let chunk = try counter.read(maximumFrames: 1 << 16) { frames += Int64(chunk.frameCount) }
        return (frames, counter.positioner.skippedPackets, counter.positioner.firstSkipReason)
    }

    /// The length resolved with this open's demuxer, brought back to the first packet, and the
    /// decode restarted from there as a fresh open decodes; nil where that is not exact (after
    /// anything was delivered; a stream seeking by a packet index, which this resolution does
    /// not keep; one whose start trimming only a first read gives) or the demuxer cannot go back.
    func resolvedOnThisOpen() throws -> LengthResolver.Resolution? {
        guard atStart, pending.isEmpty, !damagedAtStart, input.isSeekable, input.restartsExactlyFromStart,
              !input.traits.needsPacketIndex, !seeksByReadingFromStart else { return nil }
        do {
            try input.rewindDemuxer()
        } catch {
            if error.isInterrupted { throw CancellationError() }
            return nil
        }
        let resolved = try LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: false, damagedAtStart: false,
                                                  isCancelled: isCancelled, using: input)
        resolution = resolved
        // On as many decoder threads as before (a reader kept to one stays so).
        try restartFromStart()
        return resolved
    }

    /// Seeks by the packet index the resolution made, when it made one, or by the one readers
    /// side by side share.
    func adoptResolution() {
        if let index = resolution?.index { positioner.adopt(index) }
        positioner.sharedIndex = resolution?.indexToShare
        // A stream that seeks by a packet index of ours (MP3, ADTS AAC) never uses the demuxer's
        // own index of the packets read, which only costs: each byte seek's estimated timestamps
        // make it insert into the middle of it, and a stream counted on this open and read again
        // from its first packet inserts every packet so (a tenth of a 30-minute MP3's decode on
        // one thread, 3 MB an hour), as readers side by side do after every seek.
        if input.traits.needsPacketIndex && indexMemoryLimit == nil { limitIndexMemory(to: 4096) }
    }

    /// Why nothing tells the length before decoding, when nothing does.
    package var lengthUnknownReason: String? { resolution?.unknownReason }

    /// Resolves the length and keeps every packet's place on the way (MP3, ADTS AAC), for
    /// readers that will seek (side by side, or playback: ``OpenPlan/keepsPacketIndex``).
    func resolveLengthKeepingIndex() throws -> PCMLength {
        try resolveKeepingIndex()
        return try resolveLength()
    }

    /// Resolves the length with every packet's place, where the stream seeks by such an index
    /// and none is kept yet: also when the length was resolved without it (a range asked first).
    private func resolveKeepingIndex() throws {
        guard decodedLength == nil, input.traits.needsPacketIndex, resolution?.index == nil,
              resolution?.indexToShare == nil else { return }
        resolution = try LengthResolver.resolve(url, parameters: input.parameters, keepingIndex: true,
                                               damagedAtStart: damagedAtStart, isCancelled: isCancelled)
        adoptResolution()
    }

    /// The frames `url` decodes to, or nil if it cannot be decoded (cancellation still
    /// stops): how a file written without decoding (a packet copy) is checked before it is kept.
    package static func decodedFrames(of url: URL, cancellation: CancellationFlag) throws -> Int64? {
        do {
            let check = try AudioFileSource(url: url, cancellation: cancellation)
            while try check.read(maximumFrames: .max) != nil {}
            return check.position
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            return nil
        }
    }
}
