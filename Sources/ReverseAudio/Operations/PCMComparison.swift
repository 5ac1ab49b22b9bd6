import Foundation

/// Compares two decodes sample by sample, streaming, in flat memory.
enum PCMComparison {
    /// Nil when `a` and `b` deliver the same frames in the same format; otherwise where and how
    /// they first differ, in one sentence.
    static func firstDifference(_ a: PCMDecoder, _ b: PCMDecoder) throws -> String? {
        var left = Cursor(decoder: a)
        var right = Cursor(decoder: b)
        var offset: Int64 = 0
        while true {
            let leftHas = try left.fill()
            let rightHas = try right.fill()
            if !leftHas || !rightHas {
                if leftHas == rightHas { return nil }
                try left.drain()
                try right.drain()
                return "lengths differ: \(a.framesDecoded) frames against \(b.framesDecoded)"
            }
            let format = a.format
            if format != b.format.withLayoutName(format.channelLayoutName) {
                return "formats differ: \(a.format) against \(b.format)"
            }
            let count = min(left.remaining, right.remaining)
            for index in 0..<count where left.bytes[left.index + index] != right.bytes[right.index + index] {
                let sample = (offset + Int64(index)) / Int64(format.sampleFormat.bytesPerSample)
                let channels = Int64(format.channelCount)
                return "first difference at frame \(sample / channels), channel \(sample % channels)"
            }
            left.index += count
            right.index += count
            offset += Int64(count)
        }
    }

    private struct Cursor {
        let decoder: PCMDecoder
        var bytes: [UInt8] = []
        var index = 0
        var ended = false

        var remaining: Int { bytes.count - index }

        /// Makes sure some bytes are waiting; false when the decode has ended.
        mutating func fill() throws -> Bool {
            while remaining == 0 {
                if ended { return false }
                guard let block = try decoder.read() else {
                    ended = true
                    return false
                }
                bytes = block.bytes
                index = 0
            }
            return true
        }

        /// Decodes the rest, so the decoder's frame count is the whole length.
        mutating func drain() throws {
            while try decoder.read() != nil {}
            ended = true
        }
    }
}

private extension PCMFormat {
    /// The same format named by `name`: a layout's name is not part of the samples.
    func withLayoutName(_ name: String?) -> PCMFormat {
        PCMFormat(sampleFormat: sampleFormat, sampleRate: sampleRate, channelCount: channelCount, channelLayoutName: name)
    }
}
