import CFFmpeg

/// Bridges a Swift cancellation check to FFmpeg's `AVIOInterruptCB`, which FFmpeg polls during
/// blocking I/O. The owner must outlive every context the callback is installed in.
final class InterruptCheck {
    let isCancelled: @Sendable () -> Bool

    init(_ isCancelled: @escaping @Sendable () -> Bool) {
        self.isCancelled = isCancelled
    }

    var callback: AVIOInterruptCB {
        AVIOInterruptCB(
            callback: { opaque in
                guard let opaque else { return 0 }
                let check = Unmanaged<InterruptCheck>.fromOpaque(opaque).takeUnretainedValue()
                return check.isCancelled() ? 1 : 0
            },
            opaque: Unmanaged.passUnretained(self).toOpaque()
        )
    }
}
