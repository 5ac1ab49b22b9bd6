import CFFmpeg

/// Reads the packets of one stream of a demuxer in file order: the only place outside the
/// ``Demuxer`` itself where packets are read.
///
/// End of file is not an error. A read error either ends the stream (as the `ffmpeg` CLI treats
/// it: ``readFailure`` says why) or is thrown, as the caller chooses; a cancellation (FFmpeg's
/// interrupt callback) is always thrown, so it can never pass for the end of the file.
package final class PacketReader {
    package let demuxer: Demuxer
    /// The stream read; nil reads every stream.
    package let streamIndex: Int?
    private let endsOnReadError: Bool
    /// Why reading stopped before the end of the file, when a read error ended it.
    package private(set) var readFailure: String?

    /// - Parameters:
    ///   - streamIndex: the stream whose packets are handed out; nil for all of them.
    ///   - endsOnReadError: treat a read error as the end of the stream (noting it in
    ///     ``readFailure``) instead of throwing it.
    package init(demuxer: Demuxer, streamIndex: Int?, endsOnReadError: Bool = true) {
        self.demuxer = demuxer
        self.streamIndex = streamIndex
        self.endsOnReadError = endsOnReadError
    }

    /// Reads the next packet of the stream into `packet`.
    /// - Returns: false at the end of the stream.
    package func next(into packet: Packet) throws(FFmpegError) -> Bool {
        if readFailure != nil { return false }
        while true {
            let read: Bool
            do {
                read = try demuxer.readPacket(into: packet)
            } catch {
                // From a server, a read error is the connection failing, not damage: never an end.
                if error.isInterrupted || !endsOnReadError || demuxer.isRemote { throw error }
                readFailure = error.message
                return false
            }
            guard read else { return false }
            if streamIndex == nil || packet.streamIndex == streamIndex { return true }
        }
    }

    /// Forgets an earlier read failure (after a seek, reading may go on).
    package func clearFailure() { readFailure = nil }
}
