/// Somewhere PCM frames go, in order: an encoder and muxer writing a file, a temporary file, a
/// sound device, a waveform accumulator. ``transfer(_:to:threads:progress:cancellation:)`` moves a
/// source into a sink.
///
/// A sink takes frames in its ``format`` with ``write(_:)``; ``finish()`` completes it (the
/// file is published, the device drains), ``cancel()`` abandons it (nothing is left behind).
public protocol PCMSink: AnyObject {
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
}

extension PCMSink {
    /// A sink that takes frames in order only.
    public var positioned: (any PositionedPCMSink)? { nil }
}

/// An output that takes frames at any position: a PCM file, a temporary file.
public protocol PositionedPCMSink: AnyObject {
    /// Writes `frames` interleaved frames at frame index `frame`; the output ends after the
    /// highest frame written.
    func write(_ bytes: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws
    /// Forgets everything written, to be written again for an output of `frames` frames (a
    /// reversal whose input decoded to another length than its container stated).
    func discardWrites(expectingFrames frames: Int64) throws
}
