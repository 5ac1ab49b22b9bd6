import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// Reverses a video, or makes a boomerang of it, in memory that does not grow with its length:
/// H.264 out (libx264), the audio reversed as one continuous stream.
///
/// ```swift
/// let result = try await VideoReverser.reverse(
///     URL(fileURLWithPath: "clip.mp4"), to: URL(fileURLWithPath: "clip-reversed.mp4"),
///     options: VideoOptions(boomerang: false, quality: .crf(18)),
///     progress: { fraction in print(fraction) })
/// print(result.outputFrames, result.spilledFrames)
/// ```
///
/// How memory stays bounded: the video's packets are read once, without decoding, to find its
/// keyframes. Then each group of pictures, from the last to the first, is decoded forwards on its
/// own (through the next keyframe's leading pictures when B-frames or an open GOP need them), and
/// its pictures go to the encoder in reverse, while the group before it is decoded on another
/// thread (as a forward encode overlaps decoding and x264). The two groups in hand share
/// a bounded number of bytes of decoded pictures (32 MiB); the rest of a longer group waits in a
/// temporary file (raw pictures, read back from its end), which is removed in every case. The audio is reversed
/// first, whole, by the same flat-memory reversal as audio files, so it has no seams.
public enum VideoReverser {
    /// Reverses `input` into `output` (`.mp4`, `.mov` or `.mkv`).
    ///
    /// Runs on its own thread; cancelling the calling task stops the work within one picture,
    /// removes the partial output and the temporary file, and throws `CancellationError`.
    /// - Parameters:
    ///   - input: the video to read (a regular file: it is read from its end).
    ///   - output: the file to write; its extension picks the container.
    ///   - options: boomerang, quality, preset, audio, memory limit, overwriting.
    ///   - progress: called with fractions in 0...1, non-decreasing, about every 1%; 1.0 exactly
    ///     once, after the output is complete and in place.
    public static func reverse(_ input: URL, to output: URL, options: VideoOptions = VideoOptions(),
                               progress: ProgressHandler? = nil) async throws -> VideoResult {
        try await BlockingWork.run { flag in
            try reverse(input, to: output, options: options, cancellation: flag, progress: progress)
        }
    }

    /// Opens `input` as ``reverse(_:to:options:progress:)`` would (a video stream that can be
    /// decoded), without reading further: what `serve` asks of an uploaded clip.
    /// - Throws: ``ReverseAudioError`` naming the file and what is wrong with it.
    package static func check(_ input: URL) throws {
        _ = try VideoSource(url: input, isCancelled: { false })
    }

    /// The blocking form of ``reverse(_:to:options:progress:)``: runs on the calling thread and
    /// stops with `CancellationError` once `cancellation` is cancelled.
    /// - Parameters:
    ///   - input: the video to read.
    ///   - output: the file to write.
    ///   - options: as for the async form.
    ///   - cancellation: a flag another thread may set to stop the work.
    ///   - progress: as for the async form.
    package static func reverse(_ input: URL, to output: URL, options: VideoOptions, cancellation: CancellationFlag,
                               progress: ProgressHandler?) throws -> VideoResult {
        try options.validate()
        let container = try VideoContainer.forFile(output)
        guard VideoEncoder.exists(codecName: encoderName) else {
            throw ReverseAudioError.output(.encoderMissing(name: encoderName, purpose: "writes the H.264 video"))
        }
        let source = try VideoSource(url: input, isCancelled: cancellation.check)
        let audioCodec = options.audioCodec ?? .aac
        if options.audio == .reverse, source.audioStreamIndex != nil, !container.audioCodecs.contains(audioCodec) {
            throw ReverseAudioError.output(.videoContainerCannotHold(
                container: container.rawValue, codec: audioCodec.rawValue,
                holders: VideoContainer.allCases.filter { $0.audioCodecs.contains(audioCodec) }.map(\.rawValue),
                codecs: container.audioCodecs.map(\.rawValue)))
        }
        if options.audio == .keep, let index = source.audioStreamIndex,
           !Muxer.canStore(copyOf: source.demuxer, stream: index, formatName: container.muxerName) {
            let codec = source.demuxer.audioStream(at: index).codecName
            throw ReverseAudioError.output(.videoContainerCannotHold(container: container.rawValue, codec: "the input's \(codec)",
                                                             holders: ["mkv"], codecs: container.audioCodecs.map(\.rawValue)))
        }
        // Every FFmpeg failure leaves as a ReverseAudioError naming the video stream.
        let job = try source.mappingErrors {
            try Job(source: source, output: output, container: container, options: options, audioCodec: audioCodec,
                    cancellation: cancellation, reporter: ProgressReporter(progress))
        }
        do {
            return try source.mappingErrors { try job.run() }
        } catch {
            job.output.cancel()
            throw error
        }
    }

    /// libx264, which writes a reversed video's pictures.
    static let encoderName = "libx264"

    /// One reversal's state: the source, the output, and the steps that share them.
    private final class Job {
        let source: VideoSource
        let output: VideoOutput
        let container: VideoContainer
        let options: VideoOptions
        let audioCodec: VideoOptions.AudioCodec
        let cancellation: CancellationFlag
        let reporter: ProgressReporter
        let folder: URL
        private var adapter: PictureAdapter?
        private var index: KeyframeIndex?
        private var decodedFrames = 0
        /// Decodes run (a group, or neighbouring groups joined while they fit in memory).
        private var decodeRuns = 0
        /// The pipeline's picture buffers, for the result's figures.
        private var buffers: [GroupBuffer] = []
        private var expectedFrames = 1
        private var videoProgress: ProgressHandler = { _ in }
        private var audioSummary = "none"
        private var warnings: [ReverseAudioWarning] = []

        init(source: VideoSource, output url: URL, container: VideoContainer, options: VideoOptions,
             audioCodec: VideoOptions.AudioCodec, cancellation: CancellationFlag, reporter: ProgressReporter) throws {
            self.source = source
            self.container = container
            self.options = options
            self.audioCodec = audioCodec
            self.cancellation = cancellation
            self.reporter = reporter
            // Fails now on an output that exists or cannot be made, before any decoding.
            output = try VideoOutput(url: url, container: container, overwrite: options.overwrite, input: source.url)
            folder = options.temporaryDirectory ?? output.temporaryFolder
        }

        var stream: VideoStreamParameters { source.stream }

        func run() throws -> VideoResult {
            let audioShare = options.audio == .reverse && source.audioStreamIndex != nil ? 0.1 : 0
            let index = try source.mappingErrors {
                try KeyframeIndex.scan(source.demuxer, stream: stream.index, isCancelled: cancellation.check,
                                       progress: reporter.stage(from: 0, to: 0.02), totalSeconds: stream.durationSeconds,
                                       timeBase: stream.timeBase)
            }
            self.index = index
            guard index.frameCount > 0 else {
                throw ReverseAudioError.input(.videoStreamFailed(path: source.url.displayPath, stream: source.streamName,
                                                          reason: "no frame can be decoded (no keyframe with a timestamp)"))
            }
            try prepareAudio(progress: reporter.stage(from: 0.02, to: 0.02 + audioShare))
            videoProgress = reporter.stage(from: 0.02 + audioShare, to: 1)
            expectedFrames = options.boomerang ? 2 * index.frameCount - 1 : index.frameCount
            let stop = CancellationFlag()
            let decoder = try GroupDecoder(source: source, isCancelled: { [cancellation] in cancellation.isCancelled || stop.isCancelled })
            var timeline: ReversedTimeline?
            if options.boomerang {
                let forward = try playForward(decoder)
                timeline = ReversedTimeline(end: forward.lastTimestamp, base: forward.end)
            }
            let pipeline = startPipeline(decoder, stop: stop)
            // On every path the decoding thread ends before the run does (it uses the source).
            defer { pipeline.stopAndWait() }
            try encodeRuns(from: pipeline, timeline: &timeline)
            pipeline.stopAndWait()
            if let made = pipeline.adapter { adapter = made }
            if !options.boomerang { decodedFrames = pipeline.decodedFrames }
            decodeRuns = pipeline.decodeRuns
            buffers = pipeline.buffers
            guard output.isOpen else {
                throw ReverseAudioError.input(.videoStreamFailed(path: source.url.displayPath, stream: source.streamName,
                                                          reason: "no frame could be decoded"))
            }
            try output.finish()
            reporter.complete()
            noteWarnings(decoder)
            return result()
        }

        /// Starts decoding the groups, last first, on the pipeline's thread.
        private func startPipeline(_ decoder: GroupDecoder, stop: CancellationFlag) -> GroupPipeline {
            let encoderFormats = VideoEncoder.supportedPixelFormats(codecName: encoderName)
            let source = self.source
            return GroupPipeline(decoder: decoder, groups: index?.groups ?? [], adapter: adapter, memoryLimit: options.memoryLimit,
                                 folder: folder, defaultPictureBytes: stream.width * stream.height * 3 / 2, stop: stop) { decoded, adapter in
                let made = try adapter ?? PictureAdapter(first: decoded, encoderFormats: encoderFormats, path: source.url.displayPath)
                adapter = made
                return try source.mappingErrors { try made.adapt(decoded) }
            }
        }

        /// Sends the pictures of each decoded run to the encoder, latest first.
        private func encodeRuns(from pipeline: GroupPipeline, timeline: inout ReversedTimeline?) throws {
            let reusable = try Frame()
            while let run = try nextRun(of: pipeline) {
                if timeline == nil, let last = run.last {
                    timeline = ReversedTimeline(end: last.timestamp + lastDuration(last.duration))
                }
                if adapter == nil { adapter = run.shape }
                while let (frame, timestamp) = try run.buffer.removeLast(reusing: reusable) {
                    if cancellation.isCancelled { throw CancellationError() }
                    guard let placed = timeline?.place(timestamp) else { continue }
                    try emit(frame, at: placed.timestamp, lasting: placed.duration)
                }
                pipeline.recycle(run.buffer)
            }
        }

        private func nextRun(of pipeline: GroupPipeline) throws -> GroupPipeline.Run? {
            try source.mappingErrors { try pipeline.next() }
        }

        /// The boomerang's first half: one continuous decode, each frame encoded as it comes.
        private func playForward(_ decoder: GroupDecoder) throws -> (lastTimestamp: Int64, end: Int64) {
            var forward: ForwardTimeline<Frame>?
            var lastDuration: Int64 = 0
            try source.mappingErrors {
                try decoder.decodeAll(from: index!.groups[0]) { decoded in
                    guard let timestamp = decoded.bestEffortTimestamp else { return }
                    lastDuration = decoded.duration
                    let picture = try adapt(decoded)
                    if forward == nil { forward = ForwardTimeline(origin: timestamp) }
                    if let placed = forward!.add(picture, at: timestamp) {
                        try emit(placed.item, at: placed.timestamp, lasting: placed.duration)
                    }
                    decodedFrames += 1
                }
            }
            guard var forward, let lastTimestamp = forward.lastTimestamp else {
                throw ReverseAudioError.input(.videoStreamFailed(path: source.url.displayPath, stream: source.streamName,
                                                          reason: "no frame could be decoded"))
            }
            let finished = forward.finish(lastDuration: self.lastDuration(lastDuration))
            if let placed = finished.placed { try emit(placed.item, at: placed.timestamp, lasting: placed.duration) }
            // The reversed half starts where this one ends and leaves the turn frame out.
            return (lastTimestamp, finished.end)
        }

        /// How long the last frame lasts: its packet's duration, the container's, one nominal
        /// frame at the stream's rate, or one tick.
        private func lastDuration(_ decoded: Int64) -> Int64 {
            if decoded > 0 { return decoded }
            if let index, index.lastDuration > 0 { return index.lastDuration }
            if let rate = stream.averageFrameRate ?? stream.realFrameRate {
                let frame = rate.inverted.rescale(1, to: stream.timeBase)
                if frame > 0 { return frame }
            }
            return 1
        }

        private func adapt(_ decoded: Frame) throws -> Frame {
            if adapter == nil {
                adapter = try PictureAdapter(first: decoded, encoderFormats: VideoEncoder.supportedPixelFormats(codecName: encoderName),
                                             path: source.url.displayPath)
            }
            return try source.mappingErrors { try adapter!.adapt(decoded) }
        }

        private func emit(_ frame: Frame, at timestamp: Int64, lasting duration: Int64) throws {
            if !output.isOpen, let adapter {
                let quality: VideoEncoder.Quality
                switch options.quality {
                case .crf(let value): quality = .crf(value)
                case .lossless: quality = .lossless
                }
                let settings = VideoEncoder.Settings(
                    codecName: encoderName, width: adapter.width, height: adapter.height, pixelFormat: adapter.format,
                    timeBase: stream.timeBase, frameRate: stream.averageFrameRate ?? stream.realFrameRate,
                    quality: quality, preset: options.preset)
                try output.open(settings: settings, model: frame, frameRate: stream.averageFrameRate ?? stream.realFrameRate,
                                displayMatrix: stream.displayMatrix)
            }
            try output.write(frame, timestamp: timestamp, duration: duration)
            videoProgress(Double(output.frames) / Double(expectedFrames))
        }

        private func prepareAudio(progress: @escaping ProgressHandler) throws {
            guard let audioIndex = source.audioStreamIndex else {
                audioSummary = options.audio == .none ? "none (no audio asked for)" : "none: the input has no audio"
                return
            }
            switch options.audio {
            case .none:
                audioSummary = "none (no audio asked for)"
            case .keep:
                let track = try CopiedAudioTrack(url: source.url, streamIndex: audioIndex, output: output.url,
                                                 isCancelled: cancellation.check)
                output.audio = track
                audioSummary = track.summary
            case .reverse:
                guard let track = try ReversedAudioTrack.prepare(
                    source.url, codec: audioCodec, bitRate: options.audioBitRate, boomerang: options.boomerang,
                    folder: folder, output: output.url, cancellation: cancellation, progress: progress) else {
                    audioSummary = "none: the audio stream holds no samples"
                    return
                }
                output.audio = track
                audioSummary = track.summary
                warnings += track.warnings
            }
        }

        private func noteWarnings(_ decoder: GroupDecoder) {
            let file = source.url.displayPath
            let stream = "\(file): \(source.streamName)"
            func note(_ kind: ReverseAudioWarning.Kind, about subject: String) { warnings.append(ReverseAudioWarning(kind, subject: subject)) }
            if let adapter { adapter.changes.forEach { note(.pictureChange($0), about: file) } }
            if let adapter, adapter.reshapedPictures > 0 {
                note(.pictureChange("\(Self.count(adapter.reshapedPictures, "picture")) changed size or format midway and were converted to the first one's"), about: file)
            }
            if decoder.skippedPackets > 0 {
                note(.skippedPackets(count: decoder.skippedPackets, reason: decoder.firstSkipReason ?? "invalid data"), about: stream)
            }
            if let index, decodedFrames != index.frameCount {
                note(.videoFramesLeftOut(count: index.frameCount - decodedFrames, reason: "of the \(index.frameCount) its packets hold could not be decoded"), about: stream)
            }
            if let index, index.unplayablePackets > 0 {
                note(.videoFramesLeftOut(count: index.unplayablePackets, reason: "before the first keyframe or without a timestamp cannot be shown and were left out"), about: stream)
            }
            if decoder.repeatedTimestamps > 0 {
                note(.videoFramesLeftOut(count: decoder.repeatedTimestamps, reason: "repeated a timestamp and were left out"), about: stream)
            }
            if let index, let failure = index.readFailure {
                note(.readStoppedEarly(reason: failure), about: stream)
            } else if let index, let stated = statedFrameCount, index.packetCount < stated {
                note(.videoTruncated(statedFrames: stated, readFrames: index.packetCount), about: stream)
            }
            if self.stream.displayMatrix != nil, !container.storesRotation {
                note(.pictureChange("the input's rotation (\(Int(self.stream.rotationDegrees ?? 0))°) cannot be stated in .\(container.rawValue) by this FFmpeg; write .mp4 or .mov to keep it"), about: file)
            }
        }

        private var statedFrameCount: Int? { stream.statedFrameCount }

        /// "1 frame", "3 frames".
        private static func count(_ number: Int, _ noun: String) -> String {
            "\(number) \(noun)\(number == 1 ? "" : "s")"
        }

        private func result() -> VideoResult {
            VideoResult(
                input: source.url, output: output.url, boomerang: options.boomerang, codec: stream.codecName,
                inputFrames: decodedFrames, outputFrames: output.frames, width: stream.width, height: stream.height,
                outputWidth: adapter?.width ?? stream.width, outputHeight: adapter?.height ?? stream.height,
                duration: Double(output.endTimestamp) * stream.timeBase.doubleValue,
                groups: index?.groups.filter { $0.frameCount > 0 }.count ?? 0, decodeRuns: decodeRuns,
                largestGroup: index?.largestGroup ?? 0,
                spilledFrames: buffers.map(\.spilledPictures).reduce(0, +), peakPictureBytes: buffers.map(\.peakHeldBytes).reduce(0, +),
                temporaryBytes: buffers.map(\.peakSpillBytes).reduce(0, +), audio: audioSummary,
                conversions: adapter?.changes ?? [], warnings: warnings)
        }
    }
}
