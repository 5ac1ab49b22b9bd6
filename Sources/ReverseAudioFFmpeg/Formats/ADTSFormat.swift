extension FileFormat {
    /// Raw AAC in ADTS frames (`.aac`): no place to state the encoder's priming and padding.
    package static let adts = FileFormat(
        name: "aac", extensions: ["aac", "adts"], summary: "AAC in ADTS frames", muxer: "adts", codecs: [.aac],
        requiresSeekableFile: false, capabilities: [],
        cutsInexactly: "an ADTS .aac file cannot state where a cut starts and ends (the encoder's priming and padding)")
}
