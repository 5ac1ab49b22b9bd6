import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

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
    package var info: AudioInfo { cache.info }
    /// Frames in the file.
    public var frameCount: Int64 { cache.frameCount }
    /// Where playback is.
    package private(set) var state: PlaybackState
    /// Frames rendered so far: the output timeline that scheduled commands are placed on.
    package private(set) var framesRendered: Int64 = 0
    /// True once playback reached an end (without a loop) or was stopped.
    package private(set) var isFinished = false
    /// Times a loop wrapped around.
    package private(set) var loopWraps = 0

    /// The decoded chunks; shared with a player's decode-ahead thread.
    let cache: ChunkCache
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
    ///   - effects: on what is heard, live: a fade-in over the first frames played, a fade-out
    ///     as playback nears the end it is heading for (whichever way it goes).
    public convenience init(url: URL, sampleFormat: SampleFormat = .s16, direction: PlaybackDirection = .forward,
                            from: Int64? = nil, loop: Range<Int64>? = nil, effects: [any AudioEffect] = []) throws {
        try self.init(cache: ChunkCache(url: url, sampleFormat: sampleFormat), direction: direction, from: from, loop: loop,
                      effects: effects)
    }

    /// Plays `source` (any `PCMSource` whose length is known: an `AudioReader`, a chain of
    /// combinators, a source of your own), which playback seeks in as it goes either way.
    /// - Parameters:
    ///   - source: the frames played; give it up to the renderer.
    ///   - name: what is played, for messages.
    ///   - sampleFormat: the samples rendered (Int16 by default).
    ///   - direction: which way playback starts.
    ///   - from: where it starts; nil for 0 forward, the end backwards.
    ///   - loop: a loop region, if any.
    ///   - effects: on what is heard, live, as for a file.
    /// - Throws: `InputError/lengthUnknown(path:reason:)` when the source's length is not known.
    public convenience init(source: sending any PCMSource, name: String = "source", sampleFormat: SampleFormat = .s16,
                            direction: PlaybackDirection = .forward, from: Int64? = nil, loop: Range<Int64>? = nil,
                            effects: [any AudioEffect] = []) throws {
        try self.init(cache: ChunkCache(source: source, name: name, sampleFormat: sampleFormat), direction: direction, from: from,
                      loop: loop, effects: effects)
    }

    private init(cache: ChunkCache, direction: PlaybackDirection, from: Int64?, loop: Range<Int64>?,
                 effects: [any AudioEffect]) throws {
        self.cache = cache
        format = cache.format
        state = PlaybackState(frameCount: cache.frameCount, position: from ?? (direction == .forward ? 0 : cache.frameCount),
                              direction: direction)
        state.setLoop(loop)
        if !effects.isEmpty {
            let window = RenderedWindow(format: format)
            var output: any PCMSource = window
            // Built while the length is known (no loop yet): a fade-out needs an end to start with.
            window.lend(UnsafeRawBufferPointer(start: nil, count: 0), frames: 0, at: 0, endingAt: cache.frameCount)
            for effect in effects { output = try effect.applied(to: output, mirrored: false) }
            _ = try window.read(maximumFrames: 1)
            effectStage = (window, output)
        }
    }

    /// The frames a render call made, and the effects over them.
    private var effectStage: (window: RenderedWindow, output: any PCMSource)?

    /// Where playback ends on the output timeline if nothing changes it: the file's end in the
    /// direction playing; nil while a loop plays.
    private var projectedEnd: Int64? {
        guard state.loop == nil else { return nil }
        return framesRendered + (state.direction == .forward ? state.frameCount - state.position : state.position)
    }

    /// Takes `command` at the first frame of the next render call.
    public func apply(_ command: PlaybackCommand) {
        pending.append(command)
    }

    /// Takes `command` just before output frame `frame` is rendered.
    package func schedule(_ command: PlaybackCommand, atOutputFrame frame: Int64) {
        scheduled.append((frame, command))
        scheduled.sort { $0.frame < $1.frame }
    }

    /// Problems met decoding the file that did not stop playback (a file shorter than it said).
    package var warnings: [ReverseAudioWarning] { cache.warnings }

    /// The file played.
    package var name: String { cache.name }

    /// Frames rendered so far: the output timeline.
    package var position: Int64 { framesRendered }

    /// Unknown: commands, loops and pauses decide where playback ends.
    package var length: PCMLength { .unknown }

    private var outputBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 0, alignment: 16)

    deinit { outputBuffer.deallocate() }

    /// Renders the next frames (at most `maximumFrames`) as a `PCMSource` lends them. While
    /// paused, a command scheduled on the output timeline could never be reached: it is run
    /// then; paused with nothing scheduled to resume, nothing more will come (the end).
    package func read(maximumFrames: Int) throws -> PCMChunk? {
        let wanted = min(maximumFrames, 4096)
        if outputBuffer.count < wanted * format.bytesPerFrame {
            outputBuffer.deallocate()
            outputBuffer = .allocate(byteCount: wanted * format.bytesPerFrame, alignment: 16)
        }
        let start = framesRendered
        while !isFinished {
            let frames = try render(into: outputBuffer, frameCount: wanted)
            if frames > 0 {
                return PCMChunk(bytes: UnsafeRawBufferPointer(rebasing: outputBuffer[0..<(frames * format.bytesPerFrame)]),
                                frameCount: frames, position: start)
            }
            if !state.isPlaying && !scheduled.contains(where: { $0.command == .play }) { break }
            if !runNextScheduledCommandWhilePaused() { break }
        }
        return nil
    }

    /// Playback's output is made as it goes: it stays where it is (send a
    /// ``PlaybackCommand/seek(toFrame:)`` to move the cursor); a seek elsewhere throws.
    @discardableResult
    package func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo {
        if frame == framesRendered { return SeekedTo(required: frame, reached: frame) }
        throw ReverseAudioError.range(.cannotSeek(path: name, frame: frame, reason: "playback's output is rendered as it goes; seek the cursor with a command"))
    }

    /// Renders up to `frameCount` frames into `buffer` (interleaved, ``format``).
    /// - Returns: the frames rendered: fewer than asked only at the end, 0 once finished or while paused.
    public func render(into buffer: UnsafeMutableRawBufferPointer, frameCount: Int) throws -> Int {
        let frameBytes = format.bytesPerFrame
        guard buffer.count >= frameCount * frameBytes else {
            throw ReverseAudioError.setting(.sampleBufferMismatch(reason: "a buffer of \(buffer.count) bytes cannot hold \(frameCount) frames of \(frameBytes) bytes"))
        }
        pending.forEach(execute)
        pending.removeAll()
        let firstFrame = framesRendered
        let end = projectedEnd
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
            guard let chunk = try chunk(holding: first) else {
                // The file ends before this frame (it decoded shorter than it said): play on
                // within what it holds.
                guard cache.frameCount < state.frameCount else {
                    throw ReverseAudioError.input(.decodingFailed(path: name, reason: "frame \(first) could not be decoded"))
                }
                state.seek(to: before)
                state.shorten(to: cache.frameCount)
                if state.frameCount == 0 { isFinished = true }
                continue
            }
            if state.loop != nil, wrapped(from: before, to: first) { loopWraps += 1 }
            let offsetInChunk = Int(first - chunk.index * Int64(cache.chunkFrames))
            let source = chunk.bytes.baseAddress!
            switch state.direction {
            case .forward:
                var limit = Int64(chunk.frameCount - offsetInChunk)
                if let loop = state.loop, first < loop.upperBound { limit = min(limit, loop.upperBound - first) }
                run = min(run, Int(limit))
                try requireProgress(run, at: first)
                (buffer.baseAddress! + rendered * frameBytes).copyMemory(from: source + offsetInChunk * frameBytes,
                                                                         byteCount: run * frameBytes)
                state.seek(to: first + Int64(run))
            case .reverse:
                var limit = Int64(offsetInChunk + 1)
                if let loop = state.loop, first >= loop.lowerBound { limit = min(limit, first - loop.lowerBound + 1) }
                run = min(run, Int(limit))
                try requireProgress(run, at: first)
                FrameReversal.copyReversed(source + (offsetInChunk - run + 1) * frameBytes,
                                           to: buffer.baseAddress! + rendered * frameBytes, frames: run, frameBytes: frameBytes)
                state.seek(to: first - Int64(run) + 1)
            }
            rendered += run
            framesRendered += Int64(run)
        }
        if let effectStage, rendered > 0 {
            let frames = UnsafeRawBufferPointer(rebasing: buffer[0..<(rendered * frameBytes)])
            effectStage.window.lend(frames, frames: rendered, at: firstFrame, endingAt: end)
            if let changed = try effectStage.output.read(maximumFrames: rendered) {
                buffer.baseAddress!.copyMemory(from: changed.bytes.baseAddress!, byteCount: changed.bytes.count)
            }
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
    /// - Throws: `OutputError.endlessOutput(path:)` for a loop (set now, pending or
    ///   scheduled) that nothing ends: without `maximumFrames` it would fill the disk.
    @discardableResult
    package func render(toFile url: URL, maximumFrames: Int64? = nil, overwrite: Bool = false,
                       cancellation: CancellationFlag? = nil) throws -> Int64 {
        let loops = state.loop != nil || (pending + scheduled.map(\.command)).contains {
            if case .loop(let region) = $0 { return region != nil }
            return false
        }
        let ends = scheduled.contains { $0.command == .stop || $0.command == .loop(nil) }
        if maximumFrames == nil && loops && !ends {
            throw ReverseAudioError.output(.endlessOutput(path: url.displayPath))
        }
        let writer = try AudioFileWriter(url: url, format: format, outputFormat: OutputFormat.forFile(url), input: nil,
                                         overwrite: overwrite, inputs: cache.url.map { [$0] } ?? [], expectedFrames: nil)
        let rendered = RenderedOutput(self)
        let output: any PCMSource = maximumFrames.map { rendered.range(0..<$0, name: name, requiringWholeRange: false) } ?? rendered
        let input = Scheduler.Input(source: output, splitting: .single(reason: .renderedAsPlayed), name: name)
        return try Scheduler(threads: 1, cancellation: cancellation).transfer(input, reversed: false, into: writer).frames
    }

    /// While paused, the output timeline stands still, so a command scheduled on it could never
    /// be reached: runs the next one now. False when not paused or nothing is scheduled.
    func runNextScheduledCommandWhilePaused() -> Bool {
        guard !state.isPlaying, !isFinished, !scheduled.isEmpty else { return false }
        execute(scheduled.removeFirst().command)
        return true
    }

    /// The chunk holding `frame`: the one used last if it does, else from the cache; nil when
    /// the file ends before it.
    ///
    /// The chunk used last is checked too: a decode that ended early (a damaged frame dropped
    /// mid-file, so the continuous decode is shorter than the file stated) leaves the last chunk
    /// shorter than a chunk, and the frame after its end has the same chunk index.
    private func chunk(holding frame: Int64) throws -> DecodedChunk? {
        let index = cache.index(of: frame)
        let found: DecodedChunk
        if let lastChunk, lastChunk.index == index {
            found = lastChunk
        } else {
            guard let decoded = try cache.chunk(index, direction: state.direction) else { return nil }
            found = decoded
        }
        guard frame < found.index * Int64(cache.chunkFrames) + Int64(found.frameCount), frame < cache.frameCount else { return nil }
        lastChunk = found
        return found
    }

    /// Every pass of the render loop must move the cursor: one that renders nothing would
    /// repeat for ever (at full CPU, deaf to cancellation), so it is an error instead.
    private func requireProgress(_ run: Int, at frame: Int64) throws {
        guard run > 0 else {
            throw ReverseAudioError.input(.decodingFailed(path: name, reason: "playback made no progress at frame \(frame)"))
        }
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

/// A renderer's output as a source, for the scheduler that writes it into a file.
private final class RenderedOutput: PCMSource {
    private let renderer: PlaybackRenderer

    init(_ renderer: PlaybackRenderer) {
        self.renderer = renderer
    }

    var format: PCMFormat { renderer.format }
    var length: PCMLength { renderer.length }
    func read(maximumFrames: Int) throws -> PCMChunk? { try renderer.read(maximumFrames: maximumFrames) }
    func seek(to frame: Int64, endingAt end: Int64?) throws -> SeekedTo { try renderer.seek(to: frame, endingAt: end) }
}
