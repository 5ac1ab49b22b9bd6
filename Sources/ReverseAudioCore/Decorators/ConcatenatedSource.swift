/// Sources end to end: every frame of the first, then of the next (rodio's `chain`). They must
/// hold frames of one format (a sample converter brings one to another's). Made by
/// ``PCMSource/followed(by:)``.
package final class ConcatenatedSource: PCMSource {
    private let sources: [any PCMSource]
    /// The frames' sample format, rate and channels.
    package let format: PCMFormat
    private var current = 0
    private var position: Int64 = 0
    /// Pieces read since they were last at their start: after a seek back, the reading reaches
    /// them again and must start them over.
    private var read: [Bool]

    init(_ sources: [any PCMSource]) {
        self.sources = sources
        format = sources[0].format
        read = Array(repeating: false, count: sources.count)
    }

    /// The sum of the sources' lengths, when every one is known.
    package var length: PCMLength {
        var total: Int64 = 0
        for source in sources {
            guard let frames = source.length.frames else { return .unknown }
            total += frames
        }
        return PCMLength(frames: total, source: sources.allSatisfy { $0.length.source == .range } ? .range : .packets)
    }

    /// Lends the next frames, at most `maximumFrames` (see ``PCMSource/read(maximumFrames:)``).
    package func read(maximumFrames: Int) throws -> PCMChunk? {
        while current < sources.count {
            if let chunk = try sources[current].read(maximumFrames: maximumFrames) {
                read[current] = true
                defer { position += Int64(chunk.frameCount) }
                return chunk.moved(to: position)
            }
            current += 1
            if current < sources.count && read[current] {
                try sources[current].seek(to: 0, endingAt: nil)
                read[current] = false
            }
        }
        return nil
    }

    /// Seeks into the source that holds `frame`; needs every earlier source's length (not that
    /// source's own, nor any after it).
    @discardableResult
    package func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        var start: Int64 = 0
        for (index, source) in sources.enumerated() {
            let frames = source.length.frames
            if index == sources.count - 1 || frames.map({ frame < start + $0 }) == true {
                let seeked = try source.seek(to: frame - start, endingAt: nil)
                current = index
                read[index] = true
                position = start + seeked.reached
                return SeekedTo(required: frame, reached: position)
            }
            guard let frames else {
                throw ReverseAudioError.range(.cannotSeek(path: "the concatenation", frame: frame,
                                                          reason: "the length of piece \(index + 1) is unknown"))
            }
            start += frames
        }
        return SeekedTo(required: frame, reached: 0)
    }
}

extension PCMSource {
    /// This source's frames, then every frame of each of `others` in turn.
    /// - Throws: ``SettingError/sampleBufferMismatch(reason:)`` when they do not hold
    ///   frames of one format.
    public func followed(by others: [any PCMSource]) throws -> any PCMSource {
        for source in others where !source.format.holdsSameFrames(as: format) {
            throw ReverseAudioError.setting(.sampleBufferMismatch(reason: "\(source.format) cannot follow \(format)"))
        }
        return ConcatenatedSource([self] + others)
    }
}
