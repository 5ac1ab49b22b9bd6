import Foundation
import Testing
@testable import ReverseAudioCore

/// The frame reversal under every reversal: each frame size (the vector path for 2, 4 and 8
/// bytes, the two-word path for 3, 6, 12 and 16, the byte copy for the rest), at lengths around
/// the vector's eight words, against the plain definition.
@Suite struct FrameReversalTests {
    @Test("frames of 1 to 24 bytes, 0 to 37 frames, unaligned: the last frame first, each frame's bytes in order",
          arguments: Array(1...24))
    func everyFrameSize(_ frameBytes: Int) {
        var generator = SystemRandomNumberGenerator()
        for frames in 0...37 {
            // One byte of offset: the moves must not assume alignment.
            let source = (0..<(frames * frameBytes + 1)).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var turned = [UInt8](repeating: 0, count: frames * frameBytes + 1)
            source.withUnsafeBytes { from in
                turned.withUnsafeMutableBytes { to in
                    FrameReversal.copyReversed(from.baseAddress! + 1, to: to.baseAddress! + 1, frames: frames, frameBytes: frameBytes)
                }
            }
            var expected: [UInt8] = []
            for frame in (0..<frames).reversed() {
                let start = 1 + frame * frameBytes
                expected += source[start..<(start + frameBytes)]
            }
            #expect(Array(turned.dropFirst()) == expected, "\(frames) frames of \(frameBytes) bytes")
            #expect(turned[0] == 0, "nothing written before the destination")
        }
    }
}
