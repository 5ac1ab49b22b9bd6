// swift-tools-version:6.0
// The libFuzzer targets over ReverseAudio's decode and reverse paths and over the tool's text
// parsers, kept in a package of their own so that their entry points (LLVMFuzzerTestOneInput, no
// main) stay out of the main package's builds. Build and run it with `scripts/fuzz [SECONDS]` from the repository root.
import PackageDescription

let package = Package(
    name: "ReverseAudioFuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        // Named, so that the product below can be found whatever the checkout's folder is called
        // (a path dependency's identity is otherwise its folder's name).
        .package(name: "ReverseAudio", path: ".."),
    ],
    targets: [
        // Media inputs: describe, decode, range decode, reverse.
        .executableTarget(
            name: "ReverseAudioFuzz",
            dependencies: [.product(name: "ReverseAudio", package: "ReverseAudio")],
            // libFuzzer provides main(); this module has no top-level code.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
        // The text the tool reads: time values, composition plans, playback event scripts
        // (REVERSE_AUDIO_FUZZ_PARSER picks one).
        .executableTarget(
            name: "ReverseAudioParserFuzz",
            dependencies: [
                .product(name: "ReverseAudio", package: "ReverseAudio"),
                .product(name: "ReverseAudioCommandLine", package: "ReverseAudio"),
            ],
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
