import Foundation

/// Compares two decodes sample by sample, streaming, in flat memory.
enum PCMComparison {
    /// Nil when `a` and `b` deliver the same frames in the same format; otherwise where and how
    /// they first differ, in one sentence.
    static func firstDifference(_ a: PCMDecoder, _ b: PCMDecoder) throws -> String? {
        var left = Cursor(decoder: a)
        var right = Cursor(decoder: b)
        var sample: Int64 = 0
        while true {
            let leftHas = try left.fill()
            let rightHas = try right.fill()
            if !leftHas || !rightHas {
                if leftHas == rightHas { return nil }
                try left.drain()
                try right.drain()
                return "lengths differ: \(a.framesDecoded) frames against \(b.framesDecoded)"
            }
            let channels = a.format.channelCount
            if channels != b.format.channelCount || a.format.sampleRate != b.format.sampleRate {
                return "formats differ: \(a.format) against \(b.format)"
            }
            let count = min(left.remaining, right.remaining)
            for index in 0..<count where left.samples[left.index + index] != right.samples[right.index + index] {
                let at = sample + Int64(index)
                return "first difference at frame \(at / Int64(channels)), channel \(at % Int64(channels)): "
                    + "\(left.samples[left.index + index]) against \(right.samples[right.index + index])"
            }
            left.index += count
            right.index += count
            sample += Int64(count)
        }
    }

    private struct Cursor {
        let decoder: PCMDecoder
        var samples: [Int16] = []
        var index = 0
        var ended = false

        var remaining: Int { samples.count - index }

        /// Makes sure some samples are waiting; false when the decode has ended.
        mutating func fill() throws -> Bool {
            while remaining == 0 {
                if ended { return false }
                guard let block = try decoder.read() else {
                    ended = true
                    return false
                }
                samples = block.samples
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
