import Foundation
import ReverseAudioCore

extension CodecFormat {
    /// Uncompressed samples, every sample format stored as it is, in a container's byte order
    /// (`bigEndian`: AIFF), 8-bit unsigned unless `signedBytes` (CAF has no unsigned 8-bit; its
    /// signed 8-bit decodes back to the same samples).
    package static func pcm(bigEndian: Bool = false, signedBytes: Bool = false) -> CodecFormat {
        let order = bigEndian ? "be" : "le"
        let littleEndianMachine = 1.littleEndian == 1
        return CodecFormat(
            name: "pcm", isLossless: true,
            encoder: { format in
                switch format {
                case .u8: return signedBytes ? "pcm_s8" : "pcm_u8"
                case .s16: return "pcm_s16" + order
                case .s24: return "pcm_s24" + order
                case .s32: return "pcm_s32" + order
                case .f32: return "pcm_f32" + order
                case .f64: return "pcm_f64" + order
                }
            },
            stores: Dictionary(uniqueKeysWithValues: SampleFormat.allCases.map { ($0, $0) }),
            // 24-bit samples take 3 bytes in a file and 4 in memory; big-endian ones are swapped.
            storesAsInMemory: { format in
                littleEndianMachine && !bigEndian && format != .s24 && !(format == .u8 && signedBytes)
            })
    }
}
