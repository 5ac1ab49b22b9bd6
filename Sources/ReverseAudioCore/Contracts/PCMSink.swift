/// Somewhere PCM frames go, in order: an encoder and muxer writing a file, a temporary file, a
/// sound device, a waveform accumulator. The ``Scheduler`` moves a source into a sink.
///
/// A sink takes frames in its ``format`` with ``write(_:)``; ``finish()`` completes it (the
/// file is published, the device drains), ``cancel()`` abandons it (nothing is left behind).
package protocol PCMSink: AnyObject {
    /// The frames the sink takes.
    var format: PCMFormat { get }
    /// Takes `chunk`'s frames after those written so far.
    func write(_ chunk: PCMChunk) throws
    /// Completes the output.
    func finish() throws
    /// Abandons the output: nothing is left behind. Idempotent; does nothing once finished.
    func cancel()
    /// The same output taking frames at any position, when it can (PCM into a seekable file):
    /// a reversal then writes each block at its mirrored place, with no temporary file.
    var positioned: (any PositionedPCMSink)? { get }
    /// True when what was written can be taken back (``startOver(expectingFrames:)``): a file
    /// not yet published can, a pipe or a device cannot. The scheduler never writes into a sink
    /// that cannot ahead of a decode it may have to redo.
    var canStartOver: Bool { get }
    /// Forgets everything written, to be written again from its first frame, for an output of
    /// `frames` frames. Only where ``canStartOver``.
    func startOver(expectingFrames frames: Int64) throws
}

extension PCMSink {
    /// A sink that takes frames in order only.
    package var positioned: (any PositionedPCMSink)? { nil }

    /// A sink whose frames cannot be taken back.
    package var canStartOver: Bool { false }

    /// A sink whose frames cannot be taken back: never asked to.
    package func startOver(expectingFrames frames: Int64) throws {
        throw ReverseAudioError.output(.writeFailed(path: "", reason: "what was written cannot be taken back"))
    }
}

/// An output that takes frames at any position: a PCM file, a temporary file.
package protocol PositionedPCMSink: AnyObject {
    /// Writes `frames` interleaved frames at frame index `frame`; the output ends after the
    /// highest frame written.
    func write(_ bytes: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws
    /// Forgets everything written, to be written again for an output of `frames` frames (a
    /// reversal whose input decoded to another length than its container stated).
    func discardWrites(expectingFrames frames: Int64) throws
}
