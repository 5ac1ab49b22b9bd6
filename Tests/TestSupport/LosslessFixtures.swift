import Foundation

extension Fixtures {
    /// Every lossless fixture of the format matrix: PCM WAV/AIFF/AIFC/CAF of every sample format,
    /// FLAC, ALAC in CAF and M4A.
    public static var lossless: [String] {
        matrix.filter { name in
            ["wav-", "aiff-", "aifc-", "caf-", "flac-", "m4a-alac"].contains { name.hasPrefix($0) }
        }
    }
}
