import CFFmpeg

/// Bridges FFmpeg's `AVIOInterruptCB`, which FFmpeg polls during blocking I/O, to two reasons
/// to stop: the caller cancelled, or the demuxer has read more than ``readLimit`` bytes without
/// producing anything (junk that a parser keeps buffering in the hope of finding a frame, which
/// would otherwise cost time and memory in proportion to the file's size).
///
/// The owner must outlive every context the callback is installed in.
final class InterruptCheck {
    let isCancelled: (@Sendable () -> Bool)?
    /// Bytes the demuxer may read between two packets (or while opening) before giving up.
    let readLimit: Int64
    /// The context whose reads are counted; set once it exists.
    var context: UnsafeMutablePointer<AVFormatContext>?
    /// The byte count at the last packet: the budget is measured from here.
    private var readBase: Int64 = 0
    /// True once the read limit stopped FFmpeg (as opposed to a cancellation).
    private(set) var exceededReadLimit = false

    init(isCancelled: (@Sendable () -> Bool)?, readLimit: Int64) {
        self.isCancelled = isCancelled
        self.readLimit = readLimit
    }

    /// Bytes read so far through the context's I/O.
    var bytesRead: Int64 { context?.pointee.pb?.pointee.bytes_read ?? 0 }

    /// Starts a new budget (after a packet came out).
    func resetBudget() { readBase = bytesRead }

    /// True when FFmpeg (or a wait before it runs) should stop: cancelled, or the budget spent.
    func shouldStop() -> Bool {
        if isCancelled?() == true { return true }
        if bytesRead - readBase > readLimit {
            exceededReadLimit = true
            return true
        }
        return false
    }

    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                return Unmanaged<InterruptCheck>.fromOpaque(opaque).takeUnretainedValue().shouldStop() ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque()
        )
    }
}
