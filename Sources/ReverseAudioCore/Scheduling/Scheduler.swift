import Foundation

/// Owns the threads a job runs on, as FFmpeg's `ffmpeg_sched` does for its stages: the readers
/// of the input, the reversal's placement and the sink talk only to it. Every front end moves
/// its chain of sources into its sink through ``transfer(_:reversed:into:)``; the scheduler
/// decides whether the input is decoded on several threads (it offers more readers, its length
/// is known, it is long enough), how (segments written at their places; a reorder window in
/// front of a sink that takes frames in order; a reversal followed as it completes), and what
/// happens when the parallel way cannot be exact: the work is done again by one continuous
/// decode, here, never signalled up as an error.
///
/// The input is opened once per reader that runs: its own reader takes segments like the
/// others, so a decode on `threads` threads opens the file `threads` times.
package struct Scheduler {
    /// Threads the input may be decoded on, the calling one included.
    package let threads: Int
    /// Told fractions of the work in 0..<1 as it goes (the caller reports the end).
    package let progress: ProgressHandler?
    /// Checked between chunks by every thread; once set the work stops with `CancellationError`.
    package let cancellation: CancellationFlag?
    /// Where a reversal's frames wait when the sink does not take them at any position.
    package let temporaryFolder: URL
    /// Segment edges forced instead of ``SegmentedPlacement/boundaries(totalFrames:threads:lastSegmentFirst:)``
    /// (tests put seams where they choose).
    package var segmentBoundaries: (@Sendable (Int64) -> [Int64])?

    package init(threads: Int, progress: ProgressHandler? = nil, cancellation: CancellationFlag? = nil,
                 temporaryFolder: URL = FileManager.default.temporaryDirectory) {
        self.threads = max(1, threads)
        self.progress = progress
        self.cancellation = cancellation
        self.temporaryFolder = temporaryFolder
    }

    /// What a job reads.
    package struct Input {
        /// The chain of sources over the input, at frame 0: the job's own reader.
        package let source: any PCMSource
        /// Whether and how the input can be read by more readers.
        package let splitting: Splitting
        /// Frames per reversed block: the input's natural block (a decoded packet), or asked for.
        package let blockFrames: Int?
        /// The input as it was named, for messages.
        package let name: String

        package init(source: any PCMSource, splitting: Splitting, blockFrames: Int? = nil, name: String) {
            self.source = source
            self.splitting = splitting
            self.blockFrames = blockFrames
            self.name = name
        }
    }

    /// What a job did.
    package struct Report {
        /// Frames written.
        package var frames: Int64 = 0
        /// Threads that decoded the input.
        package var threadsUsed = 1
        /// Why one thread decoded the input though more were allowed, when it did.
        package var singleThreadReason: OneReaderReason?
        /// Times the input was decoded (a reversal reads it twice when it gave another length
        /// than it stated).
        package var passes = 1
        /// Frames per block a reversal placed.
        package var blockFrames: Int?
        /// Bytes the reversal's temporary file reached (none when placed straight into the sink).
        package var temporaryBytes: Int64 = 0
        /// How a reversal's length was known: stated, counted, or found by decoding.
        package var lengthSource: LengthSource?
    }

    /// Moves every frame of `input` into `sink`, forwards or reversed, then finishes the sink.
    /// On any error or cancellation the sink is cancelled (a file being written is removed) and
    /// the error is thrown.
    @discardableResult
    package func transfer(_ input: Input, reversed: Bool, into sink: any PCMSink) throws -> Report {
        do {
            let report: Report
            if !reversed {
                report = try forwards(input, into: sink)
            } else if let positioned = sink.positioned, input.source.length.frames != nil {
                report = try mirror(input, into: positioned, progress: progress)
            } else {
                report = try reverseInOrder(input, into: sink)
            }
            try sink.finish()
            return report
        } catch {
            sink.cancel()
            throw error
        }
    }

    // MARK: Forwards

    private func forwards(_ input: Input, into sink: any PCMSink) throws -> Report {
        var report = Report()
        let source = input.source
        let reason: OneReaderReason
        switch input.splitting {
        case .single(let why): reason = why
        case .readers(let readers):
            guard let total = source.length.frames else {
                reason = .lengthUnknown
                break
            }
            if let positioned = sink.positioned {
                // Frames taken anywhere: each segment written to its place.
                switch try placeInParallel(readers, totalFrames: total, direction: .forwards,
                                           boundaries: boundaries(for: total), into: positioned, progress: progress) {
                case .placed(let used):
                    return Report(frames: total, threadsUsed: used)
                case .declined(let why):
                    try positioned.discardWrites(expectingFrames: total)
                    try readers.rewindMain()
                    reason = why
                case .notSplit(let why):
                    reason = why
                }
            } else {
                // An encoder or a pipe: decoded on other threads, handed to the sink in order.
                let edges = OrderedPlacement.boundaries(totalFrames: total, frameBytes: source.format.bytesPerFrame)
                guard edges.count > 2 else {
                    reason = SegmentedPlacement.tooShortReason
                    break
                }
                guard let list = try readerList(readers, count: min(threads, edges.count - 1)) else {
                    reason = Self.readersDifferReason
                    break
                }
                let done = try OrderedPlacement.transfer(readers: list, main: readers, totalFrames: total, boundaries: edges,
                                                         to: sink, progress: progress, cancellation: cancellation)
                report.frames = done.frames
                if let declined = done.declined {
                    report.singleThreadReason = declined
                } else {
                    report.threadsUsed = list.count
                }
                return report
            }
        }
        if threads > 1 { report.singleThreadReason = reason }
        report.frames = try copy(source, into: sink, progress: progress)
        return report
    }

    // MARK: Reversed

    /// Places every frame of `input` at its mirrored position in `sink` (frame `s` of `N` at
    /// `N − 1 − s`): on several threads when the input can be split, else in one continuous
    /// forward decode; decoded again, knowing the true length, when it gave another length than
    /// it stated.
    package func mirror(_ input: Input, into sink: any PositionedPCMSink, progress: ProgressHandler?) throws -> Report {
        let source = input.source
        guard var expected = source.length.frames else {
            throw ReverseAudioError.input(.lengthUnknown(path: input.name, reason: "placing frames at mirrored positions needs it"))
        }
        var report = Report()
        var lengthSource = source.length.source
        let frameBytes = source.format.bytesPerFrame
        report.blockFrames = try ReversePlacement.checkedBlockFrames(input.blockFrames ?? 1, totalFrames: expected,
                                                                    frameBytes: frameBytes)
        if threads > 1 {
            switch input.splitting {
            case .single(let why):
                report.singleThreadReason = why
            case .readers(let readers):
                switch try placeInParallel(readers, totalFrames: expected, direction: .mirrored, boundaries: boundaries(for: expected),
                                           into: sink, progress: progress) {
                case .placed(let used):
                    report.frames = expected
                    report.threadsUsed = used
                    report.lengthSource = lengthSource
                    return report
                case .declined(let why):
                    report.singleThreadReason = why
                    try readers.rewindMain()
                    (expected, lengthSource) = Self.length(of: source, else: (expected, lengthSource))
                    try sink.discardWrites(expectingFrames: expected)
                case .notSplit(let why):
                    report.singleThreadReason = why
                    try readers.rewindMain()
                    (expected, lengthSource) = Self.length(of: source, else: (expected, lengthSource))
                }
            }
        }
        for pass in 1...2 {
            report.passes = pass
            if pass > 1 { try source.seek(to: 0, endingAt: nil) }
            let placement = try ReversePlacement(totalFrames: expected, blockFrames: input.blockFrames ?? 1,
                                                 frameBytes: frameBytes, sink: sink)
            report.blockFrames = placement.blockFrames
            while let chunk = try source.read(maximumFrames: transferChunkFrames) {
                if cancellation?.isCancelled == true { throw CancellationError() }
                try placement.consume(chunk.bytes, frames: chunk.frameCount)
                if expected > 0 { progress?(Double(placement.sourceFrames) / Double(expected)) }
            }
            if placement.isComplete {
                report.frames = expected
                report.lengthSource = lengthSource
                return report
            }
            if pass == 2 {
                throw ReverseAudioError.input(.decodingFailed(
                    path: input.name, reason: "two decodes gave different lengths (\(expected) and \(placement.sourceFrames) frames)"))
            }
            expected = placement.sourceFrames
            lengthSource = .decode
            try sink.discardWrites(expectingFrames: expected)
        }
        return report
    }

    /// A reversal into a sink that takes frames in order: the frames are placed in a temporary
    /// file and read back from its start. On several threads, into a sink that can start over,
    /// the reading follows the placement as it completes the reversal from its start, so the
    /// encoder works while the input is decoded.
    private func reverseInOrder(_ input: Input, into sink: any PCMSink) throws -> Report {
        let file = try TemporaryPCMFile(in: temporaryFolder, bytesPerFrame: input.source.format.bytesPerFrame)
        if threads > 1, sink.canStartOver, case .readers(let readers) = input.splitting, let total = input.source.length.frames {
            let edges = boundaries(for: total, lastSegmentFirst: true)
            if edges.count > 2 {
                return try follow(input, readers: readers, totalFrames: total, boundaries: edges, file: file, into: sink)
            }
        }
        let reversal = reversal(of: input, storingIn: file, progress: progress.map { report in { @Sendable in report(0.6 * $0) } })
        var report = Report()
        report.frames = try copy(reversal, into: sink, progress: progress.map { report in { @Sendable in report(0.6 + 0.4 * $0) } })
        report.merge(reversal.placement)
        report.temporaryBytes = max(report.temporaryBytes, file.size)
        return report
    }

    /// Places the reversal into `file` on other threads while this one hands its completed
    /// start to `sink`; when the placement declines, one continuous decode places it again and
    /// the sink starts over.
    private func follow(_ input: Input, readers: any SegmentReaders, totalFrames: Int64, boundaries: [Int64],
                        file: TemporaryPCMFile, into sink: any PCMSink) throws -> Report {
        let source = input.source
        // Where the length came from, before the placement: a reader that decodes the stream's
        // end confirms the length, which does not make the decode its source.
        let lengthSource = source.length.source
        let frameBytes = source.format.bytesPerFrame
        var report = Report()
        report.blockFrames = try ReversePlacement.checkedBlockFrames(input.blockFrames ?? 1, totalFrames: totalFrames,
                                                                    frameBytes: frameBytes)
        guard let list = try readerList(readers, count: min(threads, boundaries.count - 1)) else {
            try readers.rewindMain()
            let reversal = oneReader.reversal(of: input, storingIn: file)
            report.frames = try copy(reversal, into: sink, progress: progress)
            report.merge(reversal.placement)
            report.singleThreadReason = Self.readersDifferReason
            return report
        }
        let follower = PlacementFollower(readers: list, totalFrames: totalFrames, boundaries: boundaries, into: file,
                                         cancellation: cancellation)
        defer { follower.stopAndWait() }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: transferChunkFrames * max(frameBytes, 1), alignment: 16)
        defer { buffer.deallocate() }
        var handedOut: Int64 = 0
        while handedOut < totalFrames {
            if cancellation?.isCancelled == true { throw CancellationError() }
            switch try follower.wait(until: min(handedOut + Int64(transferChunkFrames), totalFrames)) {
            case .available(let complete):
                while handedOut < complete {
                    // Once the placement is done, all the rest is complete at once: the encoding
                    // of it checks between chunks, as the waiting did.
                    if cancellation?.isCancelled == true { throw CancellationError() }
                    let count = Int(min(Int64(transferChunkFrames), complete - handedOut))
                    let part = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(count * frameBytes)])
                    try file.read(into: part, at: handedOut)
                    try sink.write(PCMChunk(bytes: UnsafeRawBufferPointer(part), frameCount: count, position: handedOut))
                    handedOut += Int64(count)
                    progress?(Double(handedOut) / Double(max(totalFrames, 1)))
                }
            case .declined(let why):
                follower.stopAndWait()
                try readers.rewindMain()
                // Made ready for one continuous decode, the input may know its length better.
                let known = source.length.frames ?? totalFrames
                if handedOut > 0 { try sink.startOver(expectingFrames: known) }
                try file.discardWrites(expectingFrames: known)
                let reversal = oneReader.reversal(of: input, storingIn: file)
                report.frames = try copy(reversal, into: sink, progress: progress)
                report.merge(reversal.placement)
                report.singleThreadReason = why
                report.temporaryBytes = file.size
                return report
            }
        }
        report.frames = totalFrames
        report.threadsUsed = list.count
        report.lengthSource = lengthSource
        report.temporaryBytes = file.size
        return report
    }

    // MARK: Segments

    /// How a parallel placement ended.
    private enum Parallel {
        /// Every frame was placed, on this many threads.
        case placed(Int)
        /// It could not be done exactly in parallel: the readers moved, the sink holds partial writes.
        case declined(OneReaderReason)
        /// Nothing was read: the input is read by one reader.
        case notSplit(OneReaderReason)
    }

    /// The length of `source` made ready for one continuous decode (``SegmentReaders/rewindMain()``),
    /// which may know it better than before (a stream scanned), else `known`.
    private static func length(of source: any PCMSource, else known: (Int64, LengthSource)) -> (Int64, LengthSource) {
        guard let frames = source.length.frames, frames != known.0 else { return known }
        return (frames, source.length.source)
    }

    /// The segments of a stream of `frames` frames: forced by a test, else eight a thread, the
    /// last taken cut in four (`lastSegmentFirst`: the order ``SegmentedPlacement`` takes them in).
    private func boundaries(for frames: Int64, lastSegmentFirst: Bool = false) -> [Int64] {
        segmentBoundaries?(frames) ?? SegmentedPlacement.boundaries(totalFrames: frames, threads: threads, lastSegmentFirst: lastSegmentFirst)
    }

    private func placeInParallel(_ readers: any SegmentReaders, totalFrames: Int64, direction: SegmentedPlacement.Direction,
                                 boundaries: [Int64], into sink: any PositionedPCMSink,
                                 progress: ProgressHandler?) throws -> Parallel {
        guard boundaries.count > 2 else { return .notSplit(SegmentedPlacement.tooShortReason) }
        guard let list = try readerList(readers, count: min(threads, boundaries.count - 1)) else {
            return .notSplit(Self.readersDifferReason)
        }
        switch try SegmentedPlacement.place(readers: list, totalFrames: totalFrames, direction: direction, boundaries: boundaries,
                                            into: sink, progress: progress, cancellation: cancellation) {
        case .placed: return .placed(list.count)
        case .declined(let why): return .declined(why)
        }
    }

    /// The job's own reader and `count − 1` more; nil when one cannot be opened exactly.
    private func readerList(_ readers: any SegmentReaders, count: Int) throws -> [SegmentReader]? {
        var list = [readers.main]
        while list.count < count {
            guard let reader = try readers.open() else { return nil }
            list.append(reader)
        }
        return list
    }

    /// Why an input that offered more readers is read by one: another open did not give the
    /// same frames.
    static let readersDifferReason = OneReaderReason.readersDiffer

    /// Moves `source`'s frames, from where it is, into `sink` in order; progress runs from 0 to
    /// 1 over what is left of it when its length is known.
    private func copy(_ source: any PCMSource, into sink: any PCMSink, progress: ProgressHandler?) throws -> Int64 {
        let total = source.length.frames
        var written: Int64 = 0
        while true {
            if cancellation?.isCancelled == true { throw CancellationError() }
            guard let chunk = try source.read(maximumFrames: transferChunkFrames) else { break }
            try sink.write(chunk)
            written += Int64(chunk.frameCount)
            if let progress, let total, total > 0 { progress(Double(written) / Double(total)) }
        }
        return written
    }
}

extension Scheduler.Report {
    /// Takes what a reversal's placement found (its threads, passes, blocks, length).
    mutating func merge(_ placement: Scheduler.Report) {
        threadsUsed = placement.threadsUsed
        singleThreadReason = placement.singleThreadReason
        passes = placement.passes
        blockFrames = placement.blockFrames
        lengthSource = placement.lengthSource
    }
}

/// Frames asked of a source at a time: a decoded packet is never longer, and a stored or
/// generated source hands out 256 KiB of stereo 16-bit at most.
package let transferChunkFrames = 1 << 16
