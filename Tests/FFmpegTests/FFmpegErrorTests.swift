import Foundation
import Testing
import TestSupport
@testable import FFmpeg

@Suite struct FFmpegErrorTests {
    @Test("opening a missing file carries the errno, FFmpeg's text and the path")
    func missingFile() {
        #expect {
            _ = try Demuxer(path: "/nonexistent/file.mp3")
        } throws: { error in
            guard let error = error as? FFmpegError else { return false }
            return error.posixErrorNumber == ENOENT && error.message == "No such file or directory"
                && error.description == "/nonexistent/file.mp3: opening the file failed: No such file or directory"
        }
    }

    @Test("content FFmpeg cannot identify is invalid data")
    func notMedia() {
        #expect {
            _ = try Demuxer(path: Fixtures.url("bad-truncated-30pct-moovatend.m4a").path)
        } throws: { error in
            (error as? FFmpegError)?.isInvalidData == true
        }
    }

    /// A cancellation that reaches FFmpeg while it probes the streams can leave the probe
    /// "successful" with streams it had no time to read: that must read as a cancellation, not as
    /// a file whose stream "declares no sample rate" (seen in CI: a batch stopped by SIGINT
    /// reported its input as junk and exited 1).
    @Test("a cancellation at any point of opening reads as a cancellation, never as junk",
          arguments: ["mp3-cbr128-xing-2ch-44100.mp3", "m4a-aac-2ch-44100.m4a", "flac-s16-2ch-44100.flac", "adts-aac-2ch-44100.aac"])
    func cancelledWhileOpening(_ fixture: String) throws {
        var interruptedAt = 0
        for pollsBeforeCancel in 0..<400 {
            let polls = PollCounter(cancelAfter: pollsBeforeCancel)
            do {
                let demuxer = try Demuxer(path: Fixtures.url(fixture).path, isCancelled: { polls.poll() })
                #expect(!polls.cancelled, "\(fixture): opened although cancelled after \(pollsBeforeCancel) polls")
                #expect(demuxer.audioStream(at: try demuxer.bestAudioStreamIndex()).sampleRate > 0)
                break  // the open needs fewer polls than this: every later count opens too
            } catch {
                #expect(error.isInterrupted, "\(fixture), cancelled after \(pollsBeforeCancel) polls: \(error)")
                interruptedAt += 1
            }
        }
        #expect(interruptedAt > 0, "\(fixture): the open never polled the cancellation")
    }

    @Test("av_strerror text for codes built from errno values")
    func texts() {
        #expect(FFmpegError.text(for: -EACCES) == "Permission denied")
        #expect(FFmpegError(code: -ENOSPC, operation: "writing").description == "writing failed: No space left on device")
    }

    @Test("a file without audio has no best audio stream")
    func noAudio() throws {
        let demuxer = try Demuxer(path: Fixtures.url("bad-noaudio.mp4").path)
        #expect(demuxer.streamKinds == [.video])
        #expect(throws: FFmpegError.self) { try demuxer.bestAudioStreamIndex() }
    }
}

/// Answers "cancelled?" with false for the first `cancelAfter` polls, then true.
private final class PollCounter: @unchecked Sendable {
    private let lock = NSLock()
    private let cancelAfter: Int
    private var count = 0
    init(cancelAfter: Int) { self.cancelAfter = cancelAfter }
    /// True once a poll answered true.
    var cancelled: Bool { lock.withLock { count > cancelAfter } }
    func poll() -> Bool {
        lock.withLock {
            count += 1
            return count > cancelAfter
        }
    }
}
