import ReverseAudioCore
/// One share of a batch: share `index` of `count`, counted from 0 as job arrays count their tasks.
///
/// A file belongs to the share its relative path hashes to (``StableHash``), independently of
/// every other file: adding files to a library never moves the ones already there, and two
/// workers given the same files agree on who does which without talking to each other.
package struct Shard: Sendable, Equatable, CustomStringConvertible {
    /// This share, from 0 to `count - 1`.
    package let index: Int
    /// How many shares the batch is split into.
    package let count: Int

    /// The most shares a batch may be split into (Slurm sites cap arrays at a few thousand tasks).
    package static let maximumCount = 1_000_000

    /// Share `index` of `count`, or nil unless `0 <= index < count <= maximumCount`.
    package init?(index: Int, count: Int) {
        guard count >= 1, count <= Self.maximumCount, index >= 0, index < count else { return nil }
        self.index = index
        self.count = count
    }

    /// `K/N` as `--shard` takes it (digits only), or nil.
    package init?(_ text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let index = Self.number(parts[0]), let count = Self.number(parts[1]) else { return nil }
        self.init(index: index, count: count)
    }

    /// True when the file at `relativePath` (its path under the folder given) is in this share.
    package func contains(relativePath: String) -> Bool {
        Int(Self.spread(StableHash.fnv1a(relativePath)) % UInt64(count)) == index
    }

    /// MurmurHash3's 64-bit finaliser: FNV-1a's low bits follow the last bytes closely (paths
    /// that differ only in their extension would share a remainder), and a remainder reads only
    /// low bits, so every bit is mixed into them first.
    static func spread(_ hash: UInt64) -> UInt64 {
        var mixed = hash
        mixed ^= mixed >> 33
        mixed = mixed &* 0xff51_afd7_ed55_8ccd
        mixed ^= mixed >> 33
        mixed = mixed &* 0xc4ce_b9fe_1a85_ec53
        mixed ^= mixed >> 33
        return mixed
    }

    /// `K/N`.
    package var description: String { "\(index)/\(count)" }

    /// The largest number ``number(_:)`` reads: 7 digits, enough for any share or task index.
    static let largestNumber = 9_999_999

    /// A decimal number of at most 7 digits (``largestNumber``), without sign or spaces.
    static func number<Text: StringProtocol>(_ text: Text) -> Int? {
        guard !text.isEmpty, text.count <= String(largestNumber).count, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int(text)
    }
}
