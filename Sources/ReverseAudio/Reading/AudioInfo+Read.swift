import Foundation

extension AudioInfo {
    /// Probes `url`: container, codec and PCM shape, and the exact frame count when it can be
    /// known without decoding (from the container for PCM/FLAC/ALAC, from the packets otherwise).
    public static func read(from url: URL) throws -> AudioInfo {
        let source = try AudioSource(url: url)
        let counted = FrameCounter.count(of: source, sampleRate: source.parameters.sampleRate)
        return source.info(frames: counted?.frames)
    }
}

extension AudioInfo {
    /// ``read(from:)`` on a thread of its own, for Swift concurrency.
    public static func load(from url: URL) async throws -> AudioInfo {
        try await BlockingWork.run { _ in try read(from: url) }
    }
}
