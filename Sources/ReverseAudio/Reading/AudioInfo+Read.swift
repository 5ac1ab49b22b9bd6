import Foundation

extension AudioInfo {
    /// Probes `url`: container, codec and PCM shape, and the frame count a decode gives when it
    /// can be known without decoding (from the container for PCM and FLAC, from the packets
    /// otherwise).
    public static func read(from url: URL) throws -> AudioInfo {
        let source = try AudioSource(url: url)
        let (counted, _) = try FrameCounter.count(source, isCancelled: { false })
        return source.info(frames: counted.prediction?.frames, framesSource: counted.prediction?.source)
    }
}

extension AudioInfo {
    /// The container's view only, without reading the packets: cheap, but ``frames`` is nil and
    /// ``duration`` is the container's figure (``durationIsEstimate``).
    public static func probe(from url: URL) throws -> AudioInfo {
        try AudioSource(url: url).info(frames: nil)
    }
}

extension AudioInfo {
    /// ``read(from:)`` on a thread of its own, for Swift concurrency.
    public static func load(from url: URL) async throws -> AudioInfo {
        try await BlockingWork.run { _ in try read(from: url) }
    }
}
