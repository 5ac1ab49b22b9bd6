import FFmpeg
import Foundation

/// The heart of playback: fills the next frames of output from a file streamed from disk, going
/// forward or backwards, seeking and looping, exactly as ``PlaybackState`` defines it.
///
/// Deterministic and free of any device: what `render` gives is what a device would receive,
/// so it can be checked sample by sample. The frames are those of a continuous forward decode
/// (bit-exact for PCM, FLAC, ALAC and MP3; AAC with noise substitution differs in its noise
/// bands where playback had to seek). Memory is a few decoded chunks, whatever the file's length.
///
/// ```swift
/// let renderer = try PlaybackRenderer(url: song, direction: .reverse)
/// var buffer = [Int16](repeating: 0, count: 1024 * renderer.format.channelCount)
/// while try buffer.withUnsafeMutableBytes({ try renderer.render(into: $0, frameCount: 1024) }) > 0 { … }
/// ```
public final class PlaybackRenderer {
    /// The samples rendered.
    public let format: PCMFormat
    /// The file's description (tags, codec, length), read once when opening it.
    public var info: AudioInfo { cache.info }
    /// Frames in the file.
    public var frameCount: Int64 { cache.frameCount }
    /// Where playback is.
    public private(set) var state: PlaybackState
    /// Frames rendered so far: the output timeline that scheduled commands are placed on.
    public private(set) var framesRendered: Int64 = 0
    /// True once playback reached an end (without a loop) or was stopped.
    public private(set) var isFinished = false
    /// Times a loop wrapped around.
    public private(set) var loopWraps = 0

    /// The decoded chunks; shared with a player's decode-ahead thread.
    let cache: ChunkCache
    /// Chunks decoded with one seek when playing backwards finds its chunk missing: many when
    /// rendering as fast as possible (fewer seeks), one under a player (the decode-ahead thread
    /// brings the rest; the device is waiting).
    var reverseMissSpan = 20
    private var pending: [PlaybackCommand] = []
    private var scheduled: [(frame: Int64, command: PlaybackCommand)] = []
    private var lastChunk: DecodedChunk?

    /// Opens `url` for playback.
    /// - Parameters:
    ///   - url: the file.
    ///   - sampleFormat: the samples rendered (Int16 by default).
    ///   - direction: which way playback starts.
    ///   - from: where it starts; nil for 0 forward, the end backwards.
    ///   - loop: a loop region, if any.
    public init(url: URL, sampleFormat: SampleFormat = .s16, direction: PlaybackState.Direction = .forward,
                from: Int64? = nil, loop: Range<Int64>? = nil) throws {
        cache = try ChunkCache(url: url, sampleFormat: sampleFormat)
        format = cache.format
        state = PlaybackState(frameCount: cache.frameCount, position: from ?? (direction == .forward ? 0 : cache.frameCount),
                              direction: direction)
        state.setLoop(loop)
    }

    /// Takes `command` at the first frame of the next render call.
    public func apply(_ command: PlaybackCommand) {
        pending.append(command)
    }

    /// Takes `command` just before output frame `frame` is rendered.
    public func schedule(_ command: PlaybackCommand, atOutputFrame frame: Int64) {
        scheduled.append((frame, command))
        scheduled.sort { $0.frame < $1.frame }
    }

    /// Renders up to `frameCount` frames into `buffer` (interleaved, ``format``).
    /// - Returns: the frames rendered: fewer than asked only at the end, 0 once finished or while paused.
    public func render(into buffer: UnsafeMutableRawBufferPointer, frameCount: Int) throws -> Int {
        let frameBytes = format.bytesPerFrame
        guard buffer.count >= frameCount * frameBytes else {
            throw ReverseAudioError.invalidOption("a buffer of \(buffer.count) bytes cannot hold \(frameCount) frames of \(frameBytes) bytes")
        }
        pending.forEach(execute)
        pending.removeAll()
        var rendered = 0
        while rendered < frameCount && !isFinished {
            while let next = scheduled.first, next.frame <= framesRendered {
                scheduled.removeFirst()
                execute(next.command)
            }
            guard !isFinished, state.isPlaying else { break }
            // The longest run of frames without an event, a loop wrap or a chunk boundary.
            var run = frameCount - rendered
            if let next = scheduled.first { run = min(run, Int(next.frame - framesRendered)) }
            let before = state.position
            guard let first = state.advance() else {
                isFinished = true
                break
            }
            if state.loop != nil, wrapped(from: before, to: first) { loopWraps += 1 }
            let chunk = try chunk(holding: first)
            let offsetInChunk = Int(first - chunk.index * Int64(cache.chunkFrames))
            let source = chunk.bytes.baseAddress!
            switch state.direction {
            case .forward:
                var limit = Int64(chunk.frameCount - offsetInChunk)
                if let loop = state.loop, first < loop.upperBound { limit = min(limit, loop.upperBound - first) }
                run = min(run, Int(limit))
                (buffer.baseAddress! + rendered * frameBytes).copyMemory(from: source + offsetInChunk * frameBytes,
                                                                         byteCount: run * frameBytes)
                state.seek(to: first + Int64(run))
            case .reverse:
                var limit = Int64(offsetInChunk + 1)
                if let loop = state.loop, first >= loop.lowerBound { limit = min(limit, first - loop.lowerBound + 1) }
                run = min(run, Int(limit))
                FrameReversal.copyReversed(source + (offsetInChunk - run + 1) * frameBytes,
                                           to: buffer.baseAddress! + rendered * frameBytes, frames: run, frameBytes: frameBytes)
                state.seek(to: first - Int64(run) + 1)
            }
            rendered += run
            framesRendered += Int64(run)
        }
        return rendered
    }

    /// Renders until playback ends (or `maximumFrames` of output) into a file, as fast as it
    /// goes: what a device would have received (`play --to-file`).
    /// - Parameters:
    ///   - url: the file to write (never the file played).
    ///   - maximumFrames: stop after this much output.
    ///   - overwrite: replace an existing file at `url`.
    ///   - cancellation: stops the rendering (and removes the partial file) when set.
    /// - Returns: the frames written.
    /// - Throws: ``ReverseAudioError/invalidOption(_:)`` for a loop (set now, pending or
    ///   scheduled) that nothing ends: without `maximumFrames` it would fill the disk.
    @discardableResult
    public func render(toFile url: URL, maximumFrames: Int64? = nil, overwrite: Bool = false,
                       cancellation: CancellationFlag? = nil) throws -> Int64 {
        let loops = state.loop != nil || (pending + scheduled.map(\.command)).contains {
            if case .loop(let region) = $0 { return region != nil }
            return false
        }
        let ends = scheduled.contains { $0.command == .stop || $0.command == .loop(nil) }
        if maximumFrames == nil && loops && !ends {
            throw ReverseAudioError.invalidOption("\(url.displayPath): a loop never ends; give a length of output or a stop event")
        }
        let writer = try AudioFileWriter(url: url, format: format, outputFormat: OutputFormat.forFile(url),
                                         channelLayout: ChannelLayout(named: format.channelLayoutName, channelCount: format.channelCount),
                                         source: nil, overwrite: overwrite, inputs: [cache.url], expectedFrames: nil)
        let blockFrames = 4096
        var buffer = [UInt8](repeating: 0, count: blockFrames * format.bytesPerFrame)
        let start = framesRendered
        do {
            while !isFinished {
                if cancellation?.isCancelled == true { throw CancellationError() }
                var wanted = blockFrames
                if let maximumFrames { wanted = Int(min(Int64(wanted), maximumFrames - (framesRendered - start))) }
                guard wanted > 0 else { break }
                let frames = try buffer.withUnsafeMutableBytes { try render(into: $0, frameCount: wanted) }
                // Paused with nothing scheduled to resume: nothing more will come.
                if frames == 0 && (!state.isPlaying && !scheduled.contains { $0.command == .play }) { break }
                if frames == 0 && runNextScheduledCommandWhilePaused() { continue }
                try buffer.withUnsafeBytes { try writer.append(UnsafeRawBufferPointer(rebasing: $0[0..<(frames * format.bytesPerFrame)]), frames: frames) }
            }
            try writer.finish()
        } catch {
            writer.cancel()
            throw error
        }
        return framesRendered - start
    }

    /// While paused, the output timeline stands still, so a command scheduled on it could never
    /// be reached: runs the next one now. False when not paused or nothing is scheduled.
    func runNextScheduledCommandWhilePaused() -> Bool {
        guard !state.isPlaying, !isFinished, !scheduled.isEmpty else { return false }
        execute(scheduled.removeFirst().command)
        return true
    }

    /// The chunk holding `frame`: the one used last if it does, else from the cache.
    private func chunk(holding frame: Int64) throws -> DecodedChunk {
        let index = cache.index(of: frame)
        if let lastChunk, lastChunk.index == index { return lastChunk }
        let found = try cache.chunk(index, span: state.direction == .reverse ? reverseMissSpan : 1)
        lastChunk = found
        return found
    }

    private func wrapped(from before: Int64, to first: Int64) -> Bool {
        state.direction == .forward ? first != before : first != before - 1
    }

    private func execute(_ command: PlaybackCommand) {
        switch command {
        case .play: state.isPlaying = true
        case .pause: state.isPlaying = false
        case .toggleDirection: state.direction = state.direction == .forward ? .reverse : .forward
        case .setDirection(let direction): state.direction = direction
        case .seek(let frame): state.seek(to: frame)
        case .loop(let region): state.setLoop(region)
        case .stop: isFinished = true
        }
    }
}
