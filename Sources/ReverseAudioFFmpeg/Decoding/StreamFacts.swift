import Foundation
import ReverseAudioCore

/// What resolving a file's length learnt of it, kept so that later opens of the same file take
/// it instead of reading the file again: its description with the exact frame count, and for a
/// stream that seeks by a packet index (MP3, ADTS AAC) the complete index. Made by
/// ``AudioFileSource/facts`` once the length is resolved in full; taken by
/// ``AudioFileSource/init(url:facts:cancellation:)``.
///
/// Valid for the file as it was when they were made: a caller keeps them beside the file's
/// identity (device, inode, size, modification time) and drops them when it changes.
package struct StreamFacts: @unchecked Sendable {
    // @unchecked: the resolution's packet index is complete, so nothing adds to it again, and
    // every open sharing it only reads it (as readers side by side share one).
    let resolution: LengthResolver.Resolution
    /// The file's description, with the frames the decode gives.
    package let info: AudioInfo

    /// The frames the decode gives.
    package var frames: Int64 { resolution.length.frames ?? 0 }

    /// Bytes the facts keep in memory, about: the packet index's entries.
    package var bytes: Int { 256 + (resolution.index?.entryCount ?? 0) * PacketIndex.entryBytes }
}
