import FFmpeg
import Foundation
import ReverseAudioCore
import ReverseAudioFFmpeg

/// The input's audio copied forwards, packet for packet (`--audio keep`): nothing is decoded or
/// encoded. Its timestamps move so that it starts where the output starts.
final class CopiedAudioTrack: VideoAudioTrack {
    private let demuxer: Demuxer
    private let reader: PacketReader
    private let streamIndex: Int
    private let timeBase: Rational
    private let offset: Int64
    private let packet: Packet
    private let path: String
    private var muxer: Muxer?
    private var outputIndex = 0
    /// A packet read but not yet due.
    private var pending = false
    private var finished = false
    let summary: String
    var warnings: [ReverseAudioWarning] { [] }

    init(url: URL, streamIndex: Int, output: URL, isCancelled: @escaping @Sendable () -> Bool) throws {
        path = output.displayPath
        do {
            demuxer = try Demuxer(path: url.mediaLocation, isCancelled: isCancelled)
        } catch {
            if error.isInterrupted { throw CancellationError() }
            throw ReverseAudioError.input(.notMedia(path: url.displayPath, reason: error.message))
        }
        self.streamIndex = streamIndex
        // The ffmpeg CLI treats a read error as the end of the input: so does the reader.
        reader = PacketReader(demuxer: demuxer, streamIndex: streamIndex)
        timeBase = demuxer.timeBase(ofStream: streamIndex)
        offset = -(demuxer.startTimestamp(ofStream: streamIndex) ?? 0)
        packet = try mappingFFmpegErrors(path: url.displayPath) { try Packet() }
        let parameters = demuxer.audioStream(at: streamIndex)
        summary = "copied forwards: \(parameters.codecName), \(parameters.channelCount) channel\(parameters.channelCount == 1 ? "" : "s"), \(parameters.sampleRate) Hz"
    }

    func attach(to muxer: Muxer) throws {
        self.muxer = muxer
        outputIndex = try writing { try muxer.addStream(copying: demuxer, stream: streamIndex, initialPadding: 0, trailingPadding: 0) }
    }

    func advance(through seconds: Double) throws {
        try write { $0 <= seconds }
    }

    func finish() throws {
        try write { _ in true }
    }

    /// Writes packets while `due` accepts their start time in seconds.
    private func write(while due: (Double) -> Bool) throws {
        guard let muxer, !finished else { return }
        while true {
            if !pending {
                guard try writing({ try reader.next(into: packet) }) else {
                    finished = true
                    return
                }
                packet.shiftTimestamps(by: offset)
                pending = true
            }
            let start = Double(packet.presentationTimestamp ?? packet.decodingTimestamp ?? 0) * timeBase.doubleValue
            guard due(start) else { return }
            try writing { try muxer.write(packet, stream: outputIndex) }
            pending = false
        }
    }

    private func writing<T>(_ work: () throws -> T) throws -> T {
        do {
            return try work()
        } catch let error as FFmpegError {
            if error.isInterrupted { throw CancellationError() }
            throw ReverseAudioError.output(.writeFailed(path: path, reason: "copying the audio: \(error.operation) failed (\(error.message))"))
        }
    }
}
