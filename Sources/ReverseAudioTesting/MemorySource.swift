import ReverseAudioCore

/// Frames held in memory as a ``PCMSource``: what a test hands where a decoded file would go,
/// with no FFmpeg, no file and no process. It seeks exactly, lends at most `chunkFrames` frames
/// a read (as a decoder lends a packet's), and can state a length other than what it holds, as
/// a file that misstates its length does.
public final class MemorySource: PCMSource {
    /// What the source says its length is before it is read.
    public enum StatedLength: Sendable {
        /// The frames it holds.
        case exact
        /// Another count than it holds (a header that lies).
        case frames(Int64)
        /// Nothing (a pipe).
        case unknown
    }

    /// The frames' sample format, rate and channels.
    public let format: PCMFormat
    /// Frames it holds.
    public let frameCount: Int64
    /// Frames lent by one read at most.
    public let chunkFrames: Int
    /// The index of the next frame read.
    public private(set) var position: Int64 = 0
    /// Reads and seeks so far: a decorator that should not read (or seek) can be caught at it.
    public private(set) var reads = 0
    /// Seeks so far.
    public private(set) var seeks = 0
    private let stated: StatedLength
    // One copy the chunks point into: valid for the source's life, so a chunk never dangles.
    private let storage: UnsafeMutableRawBufferPointer

    /// A source of `bytes`, frames of `format` back to back.
    public init(bytes: [UInt8], format: PCMFormat, stating stated: StatedLength = .exact, chunkFrames: Int = 1152) {
        self.format = format
        let frameBytes = max(format.bytesPerFrame, 1)
        frameCount = Int64(bytes.count / frameBytes)
        self.chunkFrames = max(chunkFrames, 1)
        self.stated = stated
        storage = .allocate(byteCount: max(bytes.count, 1), alignment: 16)
        storage.copyBytes(from: bytes)
    }

    /// A source of 16-bit `samples`, interleaved over `channelCount` channels.
    public convenience init(samples: [Int16], sampleRate: Int = 44_100, channelCount: Int = 1,
                            stating stated: StatedLength = .exact, chunkFrames: Int = 1152) {
        let bytes = samples.withUnsafeBytes { [UInt8]($0) }
        self.init(bytes: bytes, format: PCMFormat(sampleFormat: .s16, sampleRate: sampleRate, channelCount: channelCount),
                  stating: stated, chunkFrames: chunkFrames)
    }

    /// `frames` frames whose samples count up (frame `f`, channel `c` holds `f × channels + c`,
    /// wrapping at 16 bits): every frame tells where it came from, so an order is checked by value.
    public static func counting(frames: Int, channelCount: Int = 1, sampleRate: Int = 44_100,
                                stating stated: StatedLength = .exact, chunkFrames: Int = 1152) -> MemorySource {
        MemorySource(samples: countingSamples(frames: frames, channelCount: channelCount), sampleRate: sampleRate,
                     channelCount: channelCount, stating: stated, chunkFrames: chunkFrames)
    }

    /// The samples ``counting(frames:channelCount:sampleRate:stating:chunkFrames:)`` holds.
    public static func countingSamples(frames: Int, channelCount: Int = 1) -> [Int16] {
        (0..<(frames * channelCount)).map { Int16(truncatingIfNeeded: $0) }
    }

    deinit { storage.deallocate() }

    /// The length it states: what it holds, another count, or unknown (see ``StatedLength``).
    public var length: PCMLength {
        switch stated {
        case .exact: PCMLength(frames: frameCount, source: .container)
        case .frames(let frames): PCMLength(frames: frames, source: .container)
        case .unknown: .unknown
        }
    }

    /// Lends the next frames, at most `maximumFrames` and ``chunkFrames``, straight from memory.
    public func read(maximumFrames: Int) throws -> PCMChunk? {
        reads += 1
        let count = Int(min(Int64(min(maximumFrames, chunkFrames)), frameCount - position))
        guard count > 0 else { return nil }
        let frameBytes = format.bytesPerFrame
        let start = Int(position) * frameBytes
        let bytes = UnsafeRawBufferPointer(rebasing: storage[start..<(start + count * frameBytes)])
        defer { position += Int64(count) }
        return PCMChunk(bytes: bytes, frameCount: count, position: position)
    }

    /// Moves exactly to `frame` (its end when `frame` lies beyond it).
    @discardableResult
    public func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        seeks += 1
        position = min(max(frame, 0), frameCount)
        return SeekedTo(required: frame, reached: position)
    }
}
