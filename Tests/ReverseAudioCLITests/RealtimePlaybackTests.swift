import Foundation
import Testing
import TestSupport

/// `play --device null --realtime`: playback to nowhere at a sound card's pace, so the keys and
/// the status line can be tried without one (issue 20).
@Suite(.runsProcesses) struct RealtimePlaybackTests {
    static let second = Fixtures.url("wav-pcm_s16le-2ch-44100.wav")

    /// Runs `play` on the null device for 1 s of output and returns the wall time it took.
    static func playOneSecond(_ options: [String]) async throws -> (ProcessResult, Double) {
        let started = Date()
        // The fixture is 0.5 s: looped, 1 s of output.
        let result = try await CLI.run(["play", second.path, "--device", "null", "--loop", "--duration", "1"] + options)
        return (result, Date().timeIntervalSince(started))
    }

    @Test("--realtime: 1 s of audio takes at least 0.9 s, and all of it is played")
    func pacedToTheClock() async throws {
        let (result, seconds) = try await Self.playOneSecond(["--realtime", "--json"])
        #expect(result.status == 0, "\(result.errorText)")
        #expect(seconds >= 0.9, "1 s of audio played in \(seconds) s")
        #expect(seconds < 10, "1 s of audio took \(seconds) s")
        let object = try jsonObject(result.outputLines.last ?? "")
        #expect(object["frames"] as? Int == 44100, "\(result.outputText)")
    }

    @Test("without --realtime the null device takes frames as fast as they come")
    func unpacedIsFast() async throws {
        let (paced, pacedSeconds) = try await Self.playOneSecond(["--realtime"])
        let (fast, fastSeconds) = try await Self.playOneSecond([])
        #expect(paced.status == 0 && fast.status == 0, "\(paced.errorText) \(fast.errorText)")
        #expect(fastSeconds < pacedSeconds, "unpaced \(fastSeconds) s, paced \(pacedSeconds) s")
    }
}
