import Foundation
import Testing
import TestSupport
@testable import ReverseAudioFFmpeg
import FFmpeg

/// A batch's `--verify` digests: libavutil's SHA-256 against the standard's vectors and
/// `sha256sum` (the oracle, a process of its own).
@Suite(.runsProcesses) struct FileDigestTests {
    @Test("SHA-256 (libavutil's) equals the standard's vectors and sha256sum, across block edges")
    func sha256() async throws {
        let abc = try #require(SHA256Digest())
        Array("abc".utf8).withUnsafeBytes { abc.update($0) }
        #expect(abc.hexDigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(try #require(SHA256Digest()).hexDigest() == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        let directory = try TemporaryDirectory()
        for length in [55, 56, 63, 64, 65, 1_000_003, 2_097_153] {
            let bytes = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            let file = directory.file("bytes-\(length)")
            try Data(bytes).write(to: file)
            let expected = try await ProcessRunner.run("sha256sum", [file.path]).outputText.split(separator: " ").first.map(String.init)
            #expect(try FileDigest.sha256(ofFileAt: file.path) == expected, "length \(length)")
        }
        #expect(try FileDigest.sha256(ofFileAt: directory.file("missing").path) == nil)
    }
}
