import Foundation
import ReverseAudioCore

/// What kind of file is written: a format (its container) and the codec inside it, and a lossy
/// codec's bit rate. Chosen from the output's extension (``forFile(_:formatName:codec:bitRate:)``),
/// or by name (`wav`, `flac`, `opus`…).
public struct OutputFormat: Sendable, Equatable, CustomStringConvertible {
    /// The format's name: "wav", "aiff", "caf", "flac", "m4a", "mp3", "aac", "ogg", "opus", "webm".
    public let name: String
    /// The codec's name ("pcm", "flac", "alac", "aac", "mp3", "vorbis", "opus"); nil for the
    /// format's default: for `.m4a` ALAC from a lossless input and AAC otherwise.
    public let codec: String?
    /// Bits per second for a lossy codec; nil for the input's when it has the same codec, else
    /// the codec's default (192 kb/s for stereo MP3, AAC and Vorbis; 128 kb/s for stereo Opus).
    public let bitRate: Int?

    /// The format named `name`, holding `codec` at `bitRate`.
    /// - Throws: `ReverseAudioError.setting(.unknownChoice(_:value:choices:))` for a format that is
    ///   none of the registered formats; `ReverseAudioError.output(.containerCannotHold(container:codec:holds:))`
    ///   when it cannot hold `codec`; `ReverseAudioError.setting(.outOfRange(_:value:allowed:))`
    ///   for a bit rate the codec does not take.
    public init(name: String, codec: String? = nil, bitRate: Int? = nil) throws {
        guard let file = FileFormat.named(name) else {
            throw ReverseAudioError.setting(.unknownChoice(.outputFormat, value: name, choices: OutputFormat.names))
        }
        try self.init(file: file, codec: codec, bitRate: bitRate)
    }

    /// `file` holding `codec` at `bitRate`, checked.
    init(file: FileFormat, codec: String?, bitRate: Int?) throws {
        let lowered = codec?.lowercased()
        if let lowered, file.codec(named: lowered) == nil {
            throw ReverseAudioError.output(.containerCannotHold(container: file.name, codec: lowered, holds: file.codecs.map(\.name)))
        }
        if let bitRate {
            // The bit rates of the codec written, or of any of the format's lossy codecs.
            let codecs = lowered.flatMap(file.codec(named:)).map { [$0] } ?? file.codecs.filter { !$0.isLossless }
            if let allowed = codecs.compactMap(\.bitRates).first, !allowed.contains(bitRate) {
                throw ReverseAudioError.setting(.outOfRange(.bitRate, value: "\(bitRate / 1000) kb/s",
                                                          allowed: "\(allowed.lowerBound / 1000) to \(allowed.upperBound / 1000) kb/s"))
            }
        }
        name = file.name
        self.codec = lowered ?? (file.codecs.count == 1 ? file.codecs[0].name : nil)
        self.bitRate = bitRate
    }

    /// The format for writing `url`: by `formatName` when given ("wav", "flac", "m4a"…),
    /// otherwise by the file's extension; a pipe or a device without one is WAV, as `sox` writes.
    /// - Throws: `ReverseAudioError.setting(.unknownChoice(_:value:choices:))` for an unknown name,
    ///   `ReverseAudioError.output(.unknownOutputFormat(path:extension:known:))` for an unknown
    ///   extension, and what ``init(name:codec:bitRate:)`` throws.
    public static func forFile(_ url: URL, formatName: String? = nil, codec: String? = nil, bitRate: Int? = nil) throws -> OutputFormat {
        if formatName == nil, url.pathExtension.isEmpty, OutputFile.isSpecialFile(url) {
            return try OutputFormat(file: .wav, codec: codec, bitRate: bitRate)
        }
        if let formatName { return try OutputFormat(name: formatName, codec: codec, bitRate: bitRate) }
        guard let file = FileFormat.named(url.pathExtension), !url.pathExtension.isEmpty else {
            throw ReverseAudioError.output(.unknownOutputFormat(path: url.displayPath, extension: url.pathExtension,
                                                        known: FileFormat.listedExtensions))
        }
        return try OutputFormat(file: file, codec: codec, bitRate: bitRate)
    }

    /// WAV with PCM: what `convert` wrote before other formats existed.
    public static let wav = OutputFormat(validated: "wav", codec: "pcm", bitRate: nil)

    /// A format known to be valid.
    private init(validated name: String, codec: String?, bitRate: Int?) {
        self.name = name
        self.codec = codec
        self.bitRate = bitRate
    }

    /// Every format's name, in the order help lists them.
    package static var names: [String] { FileFormat.all.map(\.name) }

    /// "wav (pcm)", "m4a (alac or aac)".
    public var description: String {
        "\(name) (\(codec ?? file.codecs.map(\.name).joined(separator: " or ")))"
    }

    /// The format's description.
    package var file: FileFormat { FileFormat.named(name)! }

    /// The codec written for an input whose codec is lossless or not.
    package func resolvedCodec(inputIsLossless: Bool) -> CodecFormat {
        codec.flatMap(file.codec(named:)) ?? file.defaultCodec(inputIsLossless: inputIsLossless)
    }

    /// True when the codec written keeps every sample exactly (whatever the input).
    package var keepsSamples: Bool {
        resolvedCodec(inputIsLossless: true).isLossless && resolvedCodec(inputIsLossless: false).isLossless
    }

    /// The extension a file of this format gets.
    package var fileExtension: String { file.extensions[0] }
}
