/// Copies interleaved frames into a destination in reverse frame order; the channels inside
/// each frame keep their order.
enum FrameReversal {
    /// Writes `frames` frames of `source` to `destination` so that source frame 0 lands at the
    /// last destination frame and source frame `frames - 1` at the first.
    static func copyReversed(_ source: UnsafePointer<Int16>, to destination: UnsafeMutablePointer<Int16>,
                             frames: Int, channels: Int) {
        guard frames > 0 else { return }
        switch channels {
        case 1:
            var target = destination + (frames - 1)
            for index in 0..<frames {
                target.pointee = source[index]
                target -= 1
            }
        case 2:
            // A stereo frame is 4 bytes: move whole frames as 32-bit words.
            let from = UnsafeRawPointer(source)
            let to = UnsafeMutableRawPointer(destination)
            for index in 0..<frames {
                let frame = from.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)
                to.storeBytes(of: frame, toByteOffset: (frames - 1 - index) * 4, as: UInt32.self)
            }
        default:
            for index in 0..<frames {
                (destination + (frames - 1 - index) * channels).update(from: source + index * channels, count: channels)
            }
        }
    }

}
