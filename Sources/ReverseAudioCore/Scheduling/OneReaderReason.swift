/// Why an input was read by one reader though more threads were allowed: decided once, where
/// the facts are (the chain that opened the file, or a placement that met what only one
/// continuous decode handles), carried as a value and put into words only where a person
/// reads it (`--verbose`).
package enum OneReaderReason: Equatable, Sendable, CustomStringConvertible {
    // What the job or its input rules out before any reading.
    case oneThreadAsked
    case piecesReadInOrder
    case renderedAsPlayed
    case lengthUnknown
    case sampleRateConverted
    case shortRange
    case storedSamples
    case pipe
    /// A source the library's caller made: nothing opens another reader of it.
    case callersSource
    /// The codec's decode restarted after a seek differs from the continuous one.
    case seekNotBitExact(codec: String, noiseSubstitution: Bool)
    case timestampsNameNoSamples
    case damagedAtStart
    case framesChangeFormat
    case onlyLastPacketsIndexed
    case tooShort(minimumSegmentFrames: Int64)
    // What a placement met on other threads, after which one continuous decode did the work.
    case readersDiffer
    case segmentsDoNotTile
    case firstSegmentOffStart
    /// Segment `segment` (counted from 1) and the next do not meet in the input.
    case segmentsDoNotMeet(segment: Int)
    case seekMissed(frame: Int64, reached: Int64)
    case streamEndedEarly(atFrame: Int64, statedFrames: Int64)
    case streamGoesOn(statedFrames: Int64)
    case damageMet
    case segmentNotPlaced(index: Int)
    case framesUnplaced(placed: Int64, total: Int64)

    package var description: String {
        switch self {
        case .oneThreadAsked: "one thread asked for"
        case .piecesReadInOrder: "pieces are read in order"
        case .renderedAsPlayed: "playback is rendered as it goes"
        case .lengthUnknown: "the length is not known before decoding"
        case .sampleRateConverted: "the sample rate is converted (a resampler's output depends on everything before it)"
        case .shortRange:
            "the range is less than a quarter of the file: finding every packet for other threads would cost more than they save"
        case .storedSamples: "PCM read straight from the file: one thread moves it as fast as the page cache gives it (two measured slower)"
        case .pipe: "the input is a pipe, read once"
        case .callersSource: "the source is the caller's own, which has one reader"
        case .seekNotBitExact(let codec, true):
            "\(codec)'s decode restarted after a seek is not bit-exact (its noise substitution draws from the whole decode before it)"
        case .seekNotBitExact(let codec, false): "\(codec)'s decode restarted after a seek is not bit-exact"
        case .timestampsNameNoSamples: "its timestamps do not name samples: every seek decodes from the start"
        case .damagedAtStart: "the stream is damaged at its start"
        case .framesChangeFormat: "its frames change sample rate or size: only a decode from the start places them"
        case .onlyLastPacketsIndexed:
            "only the stream's last packets are indexed (read from a URL): readers on other threads would each fetch the file"
        case .tooShort(let frames): "too short to split (segments of at least \(frames) frames)"
        case .readersDiffer: "another open of the input did not decode the same way (damaged at its start)"
        case .segmentsDoNotTile: "the segments do not tile the stream"
        case .firstSegmentOffStart: "the first segment did not start at the input's first frame"
        case .segmentsDoNotMeet(let segment):
            "segments \(segment) and \(segment + 1) do not meet in the input (frames between them, or read twice)"
        case .seekMissed(let frame, let reached): "a seek to frame \(frame) reached \(reached)"
        case .streamEndedEarly(let frame, let stated): "the stream ended at frame \(frame), before the \(stated) frames it states"
        case .streamGoesOn(let stated): "the stream goes on past the \(stated) frames it states"
        case .damageMet: "the decode met damage"
        case .segmentNotPlaced(let index): "segment \(index) was not placed"
        case .framesUnplaced(let placed, let total): "\(placed) of \(total) frames were placed"
        }
    }
}
