import Foundation

/// Longer inputs made at test time with the ffmpeg CLI's real encoders (too big to commit).
public enum SignalFiles {
    /// Where ``shared(_:seconds:codecArguments:)`` keeps its files; removed when the process exits.
    private static let sharedDirectory = FileManager.default.temporaryDirectory
        .appendingPathComponent("reverse-audio-test-signals-\(getpid())")
    private static let cache = OnceCache<URL>()

    /// Like ``make(_:seconds:in:codecArguments:)``, but made once per test process and shared.
    public static func shared(_ name: String, seconds: Int, codecArguments: [String] = []) async throws -> URL {
        try await cache.value(for: name) {
            try FileManager.default.createDirectory(at: sharedDirectory, withIntermediateDirectories: true)
            atexit { try? FileManager.default.removeItem(at: SignalFiles.sharedDirectory) }
            return try await make(name, seconds: seconds, in: sharedDirectory, codecArguments: codecArguments)
        }
    }

    /// Like ``shared(_:seconds:codecArguments:)``, but stereo white noise (each channel its own)
    /// at `rate`: what compresses least (the largest lossless frames).
    public static func sharedNoise(_ name: String, seconds: Int, rate: Int, codecArguments: [String] = []) async throws -> URL {
        try await cache.value(for: name) {
            try FileManager.default.createDirectory(at: sharedDirectory, withIntermediateDirectories: true)
            atexit { try? FileManager.default.removeItem(at: SignalFiles.sharedDirectory) }
            let url = sharedDirectory.appendingPathComponent(name)
            let source = "aevalsrc=exprs='0.9*(2*random(0)-1)|0.9*(2*random(1)-1)':c=stereo:s=\(rate):d=\(seconds)"
            let result = try await ProcessRunner.run(
                "ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", source] + codecArguments + [url.path])
            guard result.status == 0 else {
                throw FFmpegOracle.Failure(description: "ffmpeg could not make \(name): \(result.errorText)")
            }
            return url
        }
    }

    /// A stereo 44.1 kHz sweep-plus-noise file of `seconds` seconds, encoded by ffmpeg into
    /// `directory/name` with `codecArguments` (e.g. `["-c:a", "libmp3lame", "-b:a", "128k"]`).
    public static func make(_ name: String, seconds: Int, in directory: URL, codecArguments: [String] = []) async throws -> URL {
        let url = directory.appendingPathComponent(name)
        let source = "aevalsrc=exprs='0.4*sin(2*PI*(200*t+40*t*t))+0.05*(2*random(0)-1)|0.3*sin(2*PI*(700*t+5*t*t))':c=stereo:s=44100:d=\(seconds)"
        let result = try await ProcessRunner.run(
            "ffmpeg", ["-nostdin", "-v", "error", "-y", "-f", "lavfi", "-i", source] + codecArguments + [url.path])
        guard result.status == 0 else {
            throw FFmpegOracle.Failure(description: "ffmpeg could not make \(name): \(result.errorText)")
        }
        return url
    }
}
