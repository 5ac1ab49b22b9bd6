import Foundation
import ReverseAudioCore

/// A sound device in memory: what a test hands a player where a sound card would go, with no
/// ALSA, no sound server and no clock. It keeps every frame written, records the other calls in
/// order, and never blocks unless a test holds a write (``holdWrite(_:)``), so a command can be
/// sent at a known output frame. Faults to inject: a device that cannot open, a write that fails,
/// underruns.
///
/// It also checks the contract's order as a sound card would feel it: a write before
/// ``open(format:)``, after ``close()``, while paused, or with fewer bytes than its frames fails
/// with `DeviceError.deviceFailed`.
public final class MemoryOutputDevice: AudioOutputDevice, @unchecked Sendable {
    // @unchecked: a player writes from its output thread while the test reads and sets faults
    // from its own; every stored `var` is touched only under `condition`'s lock, on which a
    // held write also waits.

    /// A call the device received, other than a write (writes are kept as ``bytes`` and
    /// counted by ``writes``).
    public enum Call: Sendable, Equatable {
        /// ``open(format:)``, with the format asked for.
        case open(PCMFormat)
        /// ``pause()``.
        case pause
        /// ``resume()``.
        case resume
        /// ``drain()``.
        case drain
        /// ``close()``.
        case close
    }

    /// The device's name, in the errors it throws.
    public let name: String
    /// Frames one write should carry.
    public let periodFrames: Int
    /// Frames the device says it holds before they are heard (it holds none: nothing waits).
    public let bufferFrames: Int
    private let condition = NSCondition()
    private var storage: [UInt8] = []
    private var writeCount = 0
    private var sizes: [Int] = []
    private var history: [Call] = []
    private var openedFormat: PCMFormat?
    private var isOpen = false
    private var isPaused = false
    private var underruns = 0
    private var openFault: DeviceError?
    private var writeFault: Int?
    private var dryWrites: Set<Int> = []
    private var heldWrite: Int?
    private var holding = false

    /// A device named `name` that asks for writes of `periodFrames` frames and states a buffer
    /// of `bufferFrames` (four periods when nil).
    public init(name: String = "memory", periodFrames: Int = 256, bufferFrames: Int? = nil) {
        self.name = name
        self.periodFrames = periodFrames
        self.bufferFrames = bufferFrames ?? 4 * periodFrames
    }

    /// When set, ``open(format:)`` throws this (as `ReverseAudioError.device`), as a busy or
    /// missing sound card does.
    public var failOnOpen: DeviceError? {
        get { locked { openFault } }
        set { locked { openFault = newValue } }
    }

    /// Write number `n` (counting from 1) throws `DeviceError.deviceFailed` and keeps nothing,
    /// as a device unplugged mid-play does.
    public var failOnWrite: Int? {
        get { locked { writeFault } }
        set { locked { writeFault = newValue } }
    }

    /// Writes (counting from 1) after which the device counts an underrun, as one that ran dry
    /// and was restarted.
    public var underrunOnWrites: Set<Int> {
        get { locked { dryWrites } }
        set { locked { dryWrites = newValue } }
    }

    /// Holds write number `n` (counting from 1): it keeps its frames, then blocks until
    /// ``release()``. A player's output thread stops there, so a command sent meanwhile takes
    /// effect at the output frame just after it. Release it before stopping the player, whose
    /// `stop()` waits for that thread.
    public func holdWrite(_ n: Int) {
        locked { heldWrite = n }
    }

    /// Waits until a write is held, at most `timeout` seconds (a guard against a hang, not a
    /// pace).
    /// - Returns: true when one is.
    public func waitUntilHeld(timeout: Double = 30) -> Bool {
        wait(timeout: timeout) { holding }
    }

    /// Lets a held write return (and no later one is held).
    public func release() {
        locked {
            heldWrite = nil
            holding = false
            condition.broadcast()
        }
    }

    /// Waits until the device has received `call`, at most `timeout` seconds (a guard against a
    /// hang, not a pace).
    /// - Returns: true when it has.
    public func waitFor(_ call: Call, timeout: Double = 30) -> Bool {
        wait(timeout: timeout) { history.contains(call) }
    }

    /// Every byte written, in order.
    public var bytes: [UInt8] { locked { storage } }

    /// The bytes as 16-bit samples (for an `.s16` format).
    public var samples: [Int16] {
        bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Frames written so far (0 before the device is opened).
    public var frames: Int {
        locked { openedFormat.map { storage.count / max($0.bytesPerFrame, 1) } ?? 0 }
    }

    /// Writes so far, a failed one included.
    public var writes: Int { locked { writeCount } }

    /// The frames each successful write carried, in order.
    public var writeSizes: [Int] { locked { sizes } }

    /// Every call but the writes, in order.
    public var calls: [Call] { locked { history } }

    /// The format of the last ``open(format:)`` that succeeded.
    public var format: PCMFormat? { locked { openedFormat } }

    /// Underruns counted so far (see ``underrunOnWrites``).
    public var underrunCount: Int { locked { underruns } }

    /// Opens for `format`, unless ``failOnOpen`` is set.
    /// - Throws: `DeviceError.deviceUnavailable(name:reason:)` (as `ReverseAudioError.device`).
    public func open(format: PCMFormat) throws {
        try locked {
            history.append(.open(format))
            if let openFault {
                condition.broadcast()
                throw ReverseAudioError.device(openFault)
            }
            openedFormat = format
            isOpen = true
            isPaused = false
            condition.broadcast()
        }
    }

    /// Keeps `frameCount` frames of `samples`; blocks only when the test holds this write.
    /// - Throws: `DeviceError.deviceFailed(name:reason:)` on the write ``failOnWrite`` names,
    ///   or one the contract forbids (closed, paused, too few bytes).
    public func write(_ samples: UnsafeRawBufferPointer, frameCount: Int) throws {
        try locked {
            writeCount += 1
            guard let openedFormat, isOpen else { throw failure("written while closed") }
            guard !isPaused else { throw failure("written while paused") }
            let byteCount = frameCount * openedFormat.bytesPerFrame
            guard frameCount >= 0, samples.count >= byteCount else {
                throw failure("\(samples.count) bytes cannot hold \(frameCount) frames")
            }
            if writeCount == writeFault { throw failure("write \(writeCount) failed (injected)") }
            storage.append(contentsOf: UnsafeRawBufferPointer(rebasing: samples[0..<byteCount]))
            sizes.append(frameCount)
            if dryWrites.contains(writeCount) { underruns += 1 }
            if heldWrite == writeCount {
                holding = true
                condition.broadcast()
                while holding { condition.wait() }
            }
        }
    }

    /// Records a pause; writes fail until ``resume()``.
    public func pause() throws {
        locked {
            history.append(.pause)
            isPaused = true
            condition.broadcast()
        }
    }

    /// Records a resume.
    public func resume() throws {
        locked {
            history.append(.resume)
            isPaused = false
            condition.broadcast()
        }
    }

    /// Records a drain (everything written counts as heard at once).
    public func drain() throws {
        locked {
            history.append(.drain)
            condition.broadcast()
        }
    }

    /// Records a close; writes fail until the next open.
    public func close() {
        locked {
            history.append(.close)
            isOpen = false
            condition.broadcast()
        }
    }

    private func failure(_ reason: String) -> ReverseAudioError {
        .device(.deviceFailed(name: name, reason: reason))
    }

    private func wait(timeout: Double, until done: () -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        return locked {
            while !done() {
                if !condition.wait(until: deadline) { return done() }
            }
            return true
        }
    }

    private func locked<Result>(_ body: () throws -> Result) rethrows -> Result {
        condition.lock()
        defer { condition.unlock() }
        return try body()
    }
}
