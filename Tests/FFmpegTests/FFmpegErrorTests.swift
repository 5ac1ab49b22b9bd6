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
