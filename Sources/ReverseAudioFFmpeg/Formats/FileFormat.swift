import ReverseAudioCore
import Foundation

/// One kind of file the library writes: a container, the codecs it can hold, and how they are
/// written, as SFBAudioEngine's encoders each describe themselves. Each format is one file in
/// this folder (`WAVFormat.swift`, `OpusFormat.swift`…), listed once in ``FileFormat/all``:
/// every list of formats in help, errors and the README comes from here, and so does every
/// decision that depends on the format (the muxer, its options, the codec's encoder, what it
/// holds, whether a cut can be copied into it).
package struct FileFormat: Sendable {
    /// The name the format is asked for by (`--format NAME`): also its first extension.
    package let name: String
    /// The extensions that choose it (any case), its own first; the first `listed` of them are
    /// the ones messages name ("aif" and "aiff").
    package let extensions: [String]
    /// How many of ``extensions`` messages and help list.
    package let listed: Int
    /// One phrase for help and the README ("WAV (RF64 past 4 GiB): PCM").
    package let summary: String
    /// libavformat's muxer.
    package let muxer: String
    /// The codecs it holds, its default first (for a lossless input; see ``lossyDefault``).
    package let codecs: [CodecFormat]
    /// The codec for a lossy input when none is asked for, when not the first (M4A: AAC for an
    /// MP3, ALAC for a FLAC).
    package let lossyDefault: String?
    /// The muxer seeks back to complete the file (sizes, an index, a gapless tag): such a file
    /// goes to a pipe only once complete.
    package let requiresSeekableFile: Bool
    /// What the container records besides the audio.
    package let capabilities: Capabilities
    /// The muxer's options for an output of `format` expected to hold `frames` frames.
    package let muxerOptions: @Sendable (_ format: PCMFormat, _ bytesPerFrame: Int, _ frames: Int64?) -> [String: String]
    /// Most bytes of samples the container can state (AIFF's 32-bit sizes), when limited.
    package let maximumDataBytes: Int64?
    /// How a lossy input's cut is copied into this format without re-encoding, when it can be.
    package let copiedCut: CopiedCut?
    /// Why a cut of a lossy input cannot be stated exactly in this format, when it cannot
    /// (ADTS has nowhere to say where a cut starts and ends).
    package let cutsInexactly: String?
    /// The extensions the muxer expects of its file's name, when it checks (the ipod muxer warns
    /// of any but `.m4a`, `.m4v` and `.m4b`, though `.m4r` and `.mp4` hold the same file).
    package let muxerExtensions: [String]?

    /// The name the muxer is shown for a file published as `path`: the path itself, or with an
    /// extension the muxer expects added, so its check of the name says nothing false.
    package func muxerName(forPublished path: String) -> String {
        guard let expected = muxerExtensions, let first = expected.first,
              !expected.contains((path as NSString).pathExtension.lowercased()) else { return path }
        return path + "." + first
    }

    /// What a container records besides the audio.
    package struct Capabilities: Sendable, OptionSet {
        package let rawValue: Int
        package init(rawValue: Int) { self.rawValue = rawValue }
        /// Title, artist and other tags.
        package static let tags = Capabilities(rawValue: 1)
        /// The encoder's priming and padding, so a decode gives exactly the frames written.
        package static let gapless = Capabilities(rawValue: 2)
        /// An edit list: where the audio starts and ends inside its packets.
        package static let editList = Capabilities(rawValue: 4)
        /// A picture (cover art).
        package static let coverArt = Capabilities(rawValue: 8)
        /// Chapters (FFmpeg 5.1 writes them into MP4 and, as ID3v2 `CHAP` frames, MP3).
        package static let chapters = Capabilities(rawValue: 16)
    }

    /// How a cut is copied packet for packet.
    package enum CopiedCut: Sendable {
        /// MP3 frames behind a LAME tag that states the cut.
        case mp3Frames
        /// AAC packets in an MP4 whose edit list states the cut.
        case mp4EditList
    }

    package init(name: String, extensions: [String], listed: Int = 1, summary: String, muxer: String, codecs: [CodecFormat],
                 lossyDefault: String? = nil, requiresSeekableFile: Bool, capabilities: Capabilities,
                 muxerOptions: @escaping @Sendable (PCMFormat, Int, Int64?) -> [String: String] = { _, _, _ in [:] },
                 maximumDataBytes: Int64? = nil, copiedCut: CopiedCut? = nil, cutsInexactly: String? = nil,
                 muxerExtensions: [String]? = nil) {
        self.name = name
        self.extensions = extensions
        self.listed = listed
        self.summary = summary
        self.muxer = muxer
        self.codecs = codecs
        self.lossyDefault = lossyDefault
        self.requiresSeekableFile = requiresSeekableFile
        self.capabilities = capabilities
        self.muxerOptions = muxerOptions
        self.maximumDataBytes = maximumDataBytes
        self.copiedCut = copiedCut
        self.cutsInexactly = cutsInexactly
        self.muxerExtensions = muxerExtensions
    }

    /// Every format written, in the order help lists them: each is one file of this folder.
    package static let all: [FileFormat] = [.wav, .aiff, .caf, .flac, .m4a, .mp3, .adts, .ogg, .opus, .webm]

    /// The format `name` names (its name or one of its extensions, any case).
    package static func named(_ name: String) -> FileFormat? {
        let lowered = name.lowercased()
        return all.first { $0.name == lowered } ?? all.first { $0.extensions.contains(lowered) }
    }

    /// The extensions messages and help list, every format's.
    package static var listedExtensions: [String] { all.flatMap { $0.extensions.prefix($0.listed) } }

    /// The codec called `name` in this format, if it holds one.
    package func codec(named name: String) -> CodecFormat? {
        codecs.first { $0.name == name }
    }

    /// The codec written when none is asked for: the first, or for a lossy input ``lossyDefault``.
    package func defaultCodec(inputIsLossless: Bool) -> CodecFormat {
        if !inputIsLossless, let lossyDefault, let codec = codec(named: lossyDefault) { return codec }
        return codecs[0]
    }
}
