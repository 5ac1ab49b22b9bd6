import Foundation

/// What kind of file is written: a container and the codec inside it.
///
/// Chosen from the output's extension (``forFile(_:formatName:codec:bitRate:)``), or by name
/// for a file without one.
public struct OutputFormat: Sendable, Equatable, CustomStringConvertible {
    /// The file format.
    public enum Container: String, Sendable, CaseIterable {
        /// WAV (RF64 past 4 GiB), PCM.
        case wav
        /// AIFF (AIFC for floats), PCM.
        case aiff
        /// Core Audio Format: PCM, ALAC or FLAC.
        case caf
        /// FLAC.
        case flac
        /// MPEG-4 audio (`.m4a`, `.m4r`): ALAC or AAC.
        case m4a
        /// MPEG layer 3 through LAME, with its gapless tag.
        case mp3
        /// Raw AAC in ADTS frames (`.aac`).
        case aac

        /// True when libavformat's muxer seeks back to complete the file: AIFF's and CAF's sizes,
        /// MP4's index, MP3's gapless tag. Such a file goes to a pipe only once it is complete.
        package var requiresSeekableFile: Bool {
            switch self {
            case .aiff, .caf, .m4a, .mp3: return true
            case .wav, .flac, .aac: return false
            }
        }

        /// The codecs the container can hold, the default first.
        package var codecs: [Codec] {
            switch self {
            case .wav, .aiff: return [.pcm]
            case .caf: return [.pcm, .alac, .flac]
            case .flac: return [.flac]
            case .m4a: return [.alac, .aac]
            case .mp3: return [.mp3]
            case .aac: return [.aac]
            }
        }

        /// Other extensions that name a container: its own name is the first.
        private static let aliases: [String: Container] = [
            "wave": .wav, "aif": .aiff, "aifc": .aiff, "m4r": .m4a, "m4b": .m4a, "mp4": .m4a, "adts": .aac,
        ]

        /// The container for a file name extension (any case), if we write one.
        package static func forExtension(_ ext: String) -> Container? {
            let name = ext.lowercased()
            return Container(rawValue: name) ?? aliases[name]
        }

        /// The extensions we write, for messages: each container's name, with the usual
        /// spellings of AIFF and of an MP4 ringtone beside theirs.
        package static let extensions: [String] = allCases.flatMap { container -> [String] in
            switch container {
            case .aiff: return ["aif", container.rawValue]
            case .m4a: return [container.rawValue, "m4r"]
            default: return [container.rawValue]
            }
        }
    }

    /// The codec inside the container.
    public enum Codec: String, Sendable, CaseIterable {
        /// Uncompressed samples in the container's byte order.
        case pcm
        /// Free Lossless Audio Codec (16 or 24 bits).
        case flac
        /// Apple Lossless (16 or 24 bits).
        case alac
        /// AAC-LC, FFmpeg's encoder.
        case aac
        /// MPEG layer 3, LAME.
        case mp3

        /// True for codecs that keep every sample exactly.
        public var isLossless: Bool { self == .pcm || self == .flac || self == .alac }
    }

    /// The file format.
    public let container: Container
    /// The codec; nil for `.m4a` means ALAC for a lossless input and AAC otherwise.
    public let codec: Codec?
    /// Bits per second for lossy codecs; nil means the input's rate for the same codec, else 192 kb/s.
    public let bitRate: Int?

    /// - Throws: ``ReverseAudioError/containerCannotHold(container:codec:holds:)`` when the
    ///   container cannot hold `codec`, ``ReverseAudioError/settingOutOfRange(_:value:allowed:)``
    ///   for a bit rate outside 8 to 640 kb/s (320 kb/s for MP3).
    public init(container: Container, codec: Codec? = nil, bitRate: Int? = nil) throws {
        if let codec, !container.codecs.contains(codec) {
            throw ReverseAudioError.containerCannotHold(container: container.rawValue, codec: codec.rawValue,
                                                        holds: container.codecs.map(\.rawValue))
        }
        // MPEG audio layer III defines rates up to 320 kb/s; LAME refuses more.
        let most = (codec ?? container.codecs[0]) == .mp3 ? 320_000 : 640_000
        if let bitRate, bitRate < 8000 || bitRate > most {
            throw ReverseAudioError.settingOutOfRange(.bitRate, value: "\(bitRate / 1000) kb/s", allowed: "8 to \(most / 1000) kb/s")
        }
        self.init(validated: container, codec: codec ?? (container == .m4a ? nil : container.codecs[0]), bitRate: bitRate)
    }

    private init(validated container: Container, codec: Codec?, bitRate: Int?) {
        self.container = container
        self.codec = codec
        self.bitRate = bitRate
    }

    /// The format for writing `url`: by `formatName` when given ("wav", "flac", "m4a"…),
    /// otherwise by the file's extension.
    /// - Throws: ``ReverseAudioError/unknownChoice(_:value:choices:)`` for an unknown name,
    ///   ``ReverseAudioError/unknownOutputFormat(path:extension:known:)`` for an unknown extension.
    public static func forFile(_ url: URL, formatName: String? = nil, codec: Codec? = nil, bitRate: Int? = nil) throws -> OutputFormat {
        // A pipe or a device (standard output, /dev/null) has no extension to go by: WAV, as `sox` writes.
        if formatName == nil, url.pathExtension.isEmpty, OutputFile.isSpecialFile(url) {
            return try OutputFormat(container: .wav, codec: codec, bitRate: bitRate)
        }
        let name = formatName ?? url.pathExtension
        guard let container = Container.forExtension(name) else {
            if formatName != nil {
                throw ReverseAudioError.unknownChoice(.outputFormat, value: name, choices: Container.extensions)
            }
            throw ReverseAudioError.unknownOutputFormat(path: url.displayPath, extension: name, known: Container.extensions)
        }
        return try OutputFormat(container: container, codec: codec, bitRate: bitRate)
    }

    /// WAV with PCM: what `convert` wrote before other formats existed.
    public static let wav = OutputFormat(validated: .wav, codec: .pcm, bitRate: nil)

    /// The codec for an input whose codec is lossless or not.
    package func resolvedCodec(inputIsLossless: Bool) -> Codec {
        codec ?? (inputIsLossless ? .alac : .aac)
    }

    /// "wav (pcm)", "m4a (alac)".
    public var description: String { "\(container.rawValue) (\(codec?.rawValue ?? "alac or aac"))" }
}
