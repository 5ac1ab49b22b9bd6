import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// The output file of a reversed video: H.264 pictures and the audio track interleaved by
/// libavformat, written under a temporary name beside the output and published when complete.
///
/// The muxer, encoder and audio stream are made when the first picture arrives (the encoder
/// takes its size, pixel format and colour description from it).
final class VideoOutput {
    let url: URL
    let container: VideoContainer
    private let file: OutputFile
    /// The audio written with the pictures; set before the first picture.
    var audio: VideoAudioTrack?
    private var muxer: Muxer?
    private var encoder: VideoEncoder?
    private var videoIndex = 0
    private var timeBase = Rational(1, 1)
    private let packet: Packet
    /// Durations of the pictures inside the encoder, by timestamp: its packets come out later,
    /// in another order, and each must carry its picture's duration.
    private var durations: [Int64: Int64] = [:]
    private var isDone = false
    /// Pictures written.
    private(set) var frames = 0
    /// The output's length so far, in the video's time base.
    private(set) var endTimestamp: Int64 = 0

    init(url: URL, container: VideoContainer, overwrite: Bool, input: URL) throws {
        self.url = url
        self.container = container
        // MP4 and MOV write their index at the end (and move it to the front): a pipe gets the
        // finished file. Matroska streams.
        file = try OutputFile(url: url, overwrite: overwrite, inputs: [input], requiresSeekableFile: container != .mkv)
        packet = try mappingFFmpegErrors(path: url.displayPath) { try Packet() }
    }

    deinit { cancel() }

    /// Where temporary files go: beside the output (the same disk), or the system's temporary
    /// folder for an output written in place (a pipe or a device has no folder to use).
    var temporaryFolder: URL { file.temporaryFolder }

    /// True once the first picture opened the file.
    var isOpen: Bool { encoder != nil }

    /// Creates the file, the encoder (shaped like `model`) and the audio stream, and writes the header.
    func open(settings: VideoEncoder.Settings, model: Frame, frameRate: Rational?, displayMatrix: [Int32]?) throws {
        try writing {
            let muxer = try Muxer(path: file.temporaryURL.path, formatName: container.muxerName)
            self.muxer = muxer
            muxer.interleavesPackets = true
            let encoder = try VideoEncoder(settings, model: model, globalHeader: muxer.needsGlobalHeader, path: url.displayPath)
            self.encoder = encoder
            timeBase = encoder.timeBase
            videoIndex = try muxer.addStream(for: encoder, frameRate: frameRate, displayMatrix: displayMatrix)
            try audio?.attach(to: muxer)
            try muxer.writeHeader(options: container.headerOptions)
        }
    }

    /// Encodes `frame` at `timestamp` for `duration` (the video's time base) and writes what is ready.
    func write(_ frame: Frame, timestamp: Int64, duration: Int64) throws {
        guard let encoder else { return }
        frame.prepareForEncoding(timestamp: timestamp)
        durations[timestamp] = duration
        try writing {
            try encoder.send(frame)
            try writeReadyPackets()
        }
        frames += 1
        endTimestamp = max(endTimestamp, timestamp + duration)
        // The audio runs a little ahead; libavformat holds it until the pictures catch up.
        try audio?.advance(through: Double(endTimestamp) * timeBase.doubleValue)
    }

    /// Drains the encoder, writes the rest of the audio and the trailer, and publishes the file.
    func finish() throws {
        guard let encoder, let muxer, !isDone else { return }
        try writing {
            try encoder.send(nil)
            try writeReadyPackets()
        }
        try audio?.finish()
        try writing { try muxer.finish() }
        try file.commit()
        isDone = true
    }

    /// Abandons the file: nothing is left at the output or under the temporary name.
    func cancel() {
        guard !isDone else { return }
        isDone = true
        try? muxer?.close()
        file.discard()
    }

    private func writeReadyPackets() throws(FFmpegError) {
        guard let encoder, let muxer else { return }
        while try encoder.receive(into: packet) {
            if let timestamp = packet.presentationTimestamp, let duration = durations.removeValue(forKey: timestamp) {
                packet.setDuration(duration)
            }
            try muxer.write(packet, stream: videoIndex)
        }
    }

    private func writing<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as FFmpegError {
            if error.isInterrupted { throw CancellationError() }
            throw ReverseAudioError.output(.writeFailed(path: url.displayPath, reason: "\(error.operation) failed (\(error.message))"))
        }
    }
}
