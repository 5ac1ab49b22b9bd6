import FFmpeg
import Foundation

/// The size a WAV file's `data` chunk declares, read from the file's chunks: FFmpeg's WAV
/// demuxer passes over a size that runs past the end of the file and states what the file
/// holds, which is what it decodes, so only the header tells that the file was cut short.
enum WAVDataChunk {
    /// Bytes the `data` chunk of `demuxer`'s RIFF/WAVE file declares, read through the
    /// demuxer's own open of the file; nil when the file is not one, its chunks run out before
    /// `data`, or the size is left to another chunk (RF64's 0xFFFFFFFF).
    static func declaredSize(in demuxer: Demuxer) -> Int64? {
        let head = demuxer.peekBytes(count: 12, at: 0)
        guard head.count == 12, head.prefix(4).elementsEqual("RIFF".utf8), head.suffix(4).elementsEqual("WAVE".utf8) else {
            return nil
        }
        var position: Int64 = 12
        // A header of more than a thousand chunks is not one this reads.
        for _ in 0..<1024 {
            let chunk = demuxer.peekBytes(count: 8, at: position)
            guard chunk.count == 8 else { return nil }
            let size = chunk[4..<8].enumerated().reduce(Int64(0)) { $0 | Int64($1.element) << (8 * Int64($1.offset)) }
            if chunk.prefix(4).elementsEqual("data".utf8) {
                return size == 0xFFFF_FFFF ? nil : size
            }
            // Chunks are padded to an even size.
            position += 8 + size + (size & 1)
        }
        return nil
    }
}
