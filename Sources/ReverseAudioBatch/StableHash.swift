import ReverseAudioCore
/// A hash that is the same in every process, on every machine, in every version: FNV-1a, 64 bits.
///
/// Swift's `Hasher` is seeded per process, so two workers would disagree about which share a
/// file belongs to; FNV-1a over the bytes of a relative path does not, and spreads short
/// strings evenly enough for shares of a batch.
package enum StableHash {
    private static let offsetBasis: UInt64 = 0xcbf2_9ce4_8422_2325
    private static let prime: UInt64 = 0x0000_0100_0000_01b3

    /// FNV-1a (64-bit) of `bytes`.
    package static func fnv1a<Bytes: Sequence>(_ bytes: Bytes) -> UInt64 where Bytes.Element == UInt8 {
        var hash = offsetBasis
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* prime
        }
        return hash
    }

    /// FNV-1a (64-bit) of `text`'s UTF-8 bytes.
    package static func fnv1a(_ text: String) -> UInt64 {
        fnv1a(text.utf8)
    }
}
