import FFmpeg
import Foundation

/// The decode loop of one input: packets of the chosen stream go to the decoder, decoded
/// frames come out, in order, as the `ffmpeg` CLI would produce them.
///
/// Errors FFmpeg can skip (a damaged packet) are counted and skipped; a read error ends the
/// input (as the CLI treats it); end of stream is not an error.
final class FrameSource {
    let source: AudioSource
    let frame: Frame
    private let packet: Packet
    private let isCancelled: @Sendable () -> Bool
    private var state = State.reading
    /// The decoder refused `packet` until its output is taken: offer it again before reading on.
    private var packetWaiting = false

    private enum State {
        case reading, draining, finished
    }

    /// Packets the decoder rejected, and the first reason.
    private(set) var skippedPackets = 0
    private(set) var firstSkipReason: String?
    /// Why reading stopped before the end of the file, if it did.
    private(set) var readFailure: String?
    /// The sample count of the first decoded frame (before any gapless trimming shortens it).
    private(set) var firstFrameCount: Int?

    init(source: AudioSource, isCancelled: @escaping @Sendable () -> Bool) throws {
        self.source = source
        self.isCancelled = isCancelled
        packet = try Packet()
        frame = try Frame()
    }

    /// True once the decoder has given everything.
    var isFinished: Bool { state == .finished }

    /// Decodes the next frame into ``frame``; false at the end of the stream.
    func next() throws -> Bool {
        let decoder = source.decoder
        while state != .finished {
            if isCancelled() { throw CancellationError() }
            let result: Decoder.ReceiveResult
            do {
                result = try decoder.receive(into: frame)
            } catch {
                noteSkipped(error)
                if state == .draining { state = .finished } else { try feed() }
                continue
            }
            switch result {
            case .frame:
                guard frame.sampleCount > 0 else { continue }
                if firstFrameCount == nil { firstFrameCount = frame.sampleCount }
                return true
            case .needsInput:
                if state == .draining { state = .finished } else { try feed() }
            case .endOfStream:
                state = .finished
            }
        }
        return false
    }

    /// Sends the next packet of our stream, or starts draining at the end of the file.
    private func feed() throws {
        let decoder = source.decoder
        if packetWaiting {
            packetWaiting = try decoder.send(packet) == .outputPending
            return
        }
        while true {
            if isCancelled() { throw CancellationError() }
            let hasPacket: Bool
            do {
                hasPacket = try source.demuxer.readPacket(into: packet)
            } catch {
                if error.isInterrupted && isCancelled() { throw CancellationError() }
                // The ffmpeg CLI treats a read error as the end of the input: so do we.
                readFailure = error.message
                hasPacket = false
            }
            if !hasPacket {
                _ = try? decoder.send(nil)
                state = .draining
                return
            }
            guard packet.streamIndex == source.streamIndex else { continue }
            do {
                packetWaiting = try decoder.send(packet) == .outputPending
                return
            } catch {
                noteSkipped(error)
            }
        }
    }

    private func noteSkipped(_ error: FFmpegError) {
        skippedPackets += 1
        if firstSkipReason == nil { firstSkipReason = error.message }
    }
}
