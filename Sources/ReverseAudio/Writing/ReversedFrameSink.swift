/// Where reversed frames are written: any store that accepts blocks of interleaved bytes at
/// frame positions (a PCM file being written, or a temporary file).
protocol ReversedFrameSink: AnyObject {
    func write(_ bytes: UnsafeRawBufferPointer, frames: Int, at frame: Int64) throws
}
