/// How an input can be read by several readers at once, each exactly: what a source's maker
/// (the chain builder, which knows it opened a file) tells the ``Scheduler``, which alone
/// decides whether to split the work. Sources themselves know nothing of threads.
package enum Splitting {
    /// More readers of the same frames can be opened (``SegmentReaders``).
    case readers(any SegmentReaders)
    /// The input is read by one reader, for this reason (a pipe, a codec whose restarted
    /// decode is not bit-exact, a rate conversion…), said by `--verbose`.
    case single(reason: OneReaderReason)
}

/// The readers of one input for a decode on several threads: the job's own reader first, then
/// as many more as the scheduler asks for, each the same chain of sources over another open of
/// the file, sharing what the first open found (its length, an MP3's packet index).
package protocol SegmentReaders: AnyObject {
    /// The job's own reader, as a segment reader.
    var main: SegmentReader { get }
    /// A new reader of the same frames, at frame 0, on an open of its own; nil when the new
    /// open does not give the same frames exactly (damaged at its start, another format).
    func open() throws -> SegmentReader?
    /// Makes the job's own reader as it was when opened, at frame 0, its warnings forgotten:
    /// for one continuous decode after a parallel one met what only that decode handles
    /// (damage, a misstated length, positions not what the timestamps say), or when it reads
    /// the input alone. Its length may then be known better (a stream scanned).
    func rewindMain() throws
}

/// One reader of a split input.
package struct SegmentReader {
    /// The frames, on the input's timeline.
    package let source: any PCMSource
    /// Problems its decode met so far (skipped packets, a read that stopped): a segment during
    /// which this grows met damage, and is left to one continuous decode.
    package let problems: () -> Int

    /// Where in the input its frames come from, when the reader checks that segments meet
    /// there (nil otherwise): see ``SegmentMarks``.
    package let marks: () -> SegmentMarks?

    /// A reader of `source` whose decode's problems `problems` counts.
    package init(source: any PCMSource, problems: @escaping () -> Int, marks: @escaping () -> SegmentMarks? = { nil }) {
        self.source = source
        self.problems = problems
        self.marks = marks
    }
}

/// Places in a reader's input (a file offset, say) that tell whether segments read side by
/// side meet: the frame that starts a segment must come from where the frame after the
/// segment before comes from, and the first segment from the input's start. Without them, an
/// input whose positions are not checked first could hide frames between two segments (a frame
/// copied into a stream repeats a timestamp a seek may land on).
package struct SegmentMarks: Equatable, Sendable {
    /// Where the input's first frame comes from.
    package var inputStart: Int64?
    /// Where the first frame read since the last seek comes from.
    package var landing: Int64?
    /// Where the frame read last comes from.
    package var current: Int64?

    package init(inputStart: Int64?, landing: Int64?, current: Int64?) {
        self.inputStart = inputStart
        self.landing = landing
        self.current = current
    }
}
