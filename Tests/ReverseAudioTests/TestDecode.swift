import Foundation
import ReverseAudio

/// Decodes files the way the operations do, for tests: the file source, converted, one channel taken.
enum TestDecode {
    /// The source `channels` and `sampleFormat` ask for over `url`.
    static func source(_ url: URL, channels: ChannelSelection = .all, sampleFormat: SampleFormat? = .s16) throws -> any PCMSource {
        let file = try AudioFileSource(url: url)
        var source: any PCMSource = file
        if sampleFormat != nil || channels == .mix {
            source = try SampleConverter(file, sampleFormat: sampleFormat, mixingToMono: channels == .mix)
        }
        if let channel = channels.extractedChannel { source = try ChannelSelector(source, channel: channel) }
        return source
    }

    /// Every block a source lends, copied, and the source.
    static func blocks(of source: any PCMSource) throws -> [SampleBuffer] {
        var blocks: [SampleBuffer] = []
        while let chunk = try source.read(maximumFrames: .max) { blocks.append(SampleBuffer(chunk, format: source.format)) }
        return blocks
    }

    /// The 16-bit samples of `url` as the operations decode them.
    static func samples(_ url: URL, channels: ChannelSelection = .all) throws -> [Int16] {
        try blocks(of: source(url, channels: channels)).flatMap(\.samples)
    }
}
