import Foundation
import ReverseAudioCore

extension AudioInfo {
    /// Describes `url`: container, codec and PCM shape, and the frame count a decode gives
    /// (the same figure every operation uses).
    public static func read(from url: URL) throws -> AudioInfo {
        let source = try AudioFileSource(url: url, plan: .lengthFirst)
        return source.info
    }

    /// The container's view only, without reading the packets: cheap, but `frames` is nil and
    /// `duration` is the container's figure (`durationIsEstimate`).
    package static func probe(from url: URL) throws -> AudioInfo {
        try AudioInput(url: url).info(frames: nil)
    }

    /// ``read(from:)`` on a thread of its own, for Swift concurrency.
    public static func load(from url: URL) async throws -> AudioInfo {
        try await BlockingWork.run { _ in try read(from: url) }
    }
}
