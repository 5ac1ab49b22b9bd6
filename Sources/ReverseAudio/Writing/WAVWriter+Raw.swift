extension WAVWriter: ReversedFrameSink {
    /// Appends `frames` interleaved frames after everything written so far, without copying.
    func append(_ samples: UnsafeBufferPointer<Int16>, frames: Int) throws {
        try write(samples, frames: frames, at: nextFrame)
    }
}
