// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "ReverseAudio",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ReverseAudio", targets: ["ReverseAudio"]),
        .executable(name: "reverse-audio", targets: ["reverse-audio"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` builds the DocC catalog in Sources/ReverseAudio.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // C bridge: FFmpeg's libraries found through pkg-config, plus a shim for the macros.
        .systemLibrary(
            name: "CFFmpeg",
            path: "Modules/CFFmpeg",
            pkgConfig: "libavformat libavcodec libswresample libavutil libswscale",
            providers: [
                .apt(["libavformat-dev", "libavcodec-dev", "libswresample-dev", "libavutil-dev",
                      "libswscale-dev"]),
                .brew(["ffmpeg"]),
            ]
        ),
        // One owner type per FFmpeg object; the only module that touches C pointers.
        .target(name: "FFmpeg", dependencies: ["CFFmpeg"]),
        // C bridge to ALSA (Linux only): sound output for `play`.
        .systemLibrary(
            name: "CALSA",
            path: "Modules/CALSA",
            pkgConfig: "alsa",
            providers: [.apt(["libasound2-dev"])]
        ),
        // The owner of an ALSA playback PCM; the only module that touches ALSA (empty elsewhere).
        .target(name: "ALSA", dependencies: [.target(name: "CALSA", condition: .when(platforms: [.linux]))]),
        // Media model and operations: decode, reverse, write, verify, play.
        .target(name: "ReverseAudio", dependencies: [
            "FFmpeg",
            .target(name: "ALSA", condition: .when(platforms: [.linux])),
        ]),
        // The command-line tool: parses, calls the library, prints.
        .executableTarget(
            name: "reverse-audio",
            dependencies: [
                "ReverseAudio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Fixture lookup and the ffmpeg/ffprobe CLI as the oracle, shared by the test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "FFmpegTests", dependencies: ["FFmpeg", "TestSupport"]),
        .testTarget(name: "ReverseAudioTests", dependencies: ["ReverseAudio", "TestSupport"]),
        .testTarget(name: "ReverseAudioCLITests", dependencies: ["reverse-audio", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
