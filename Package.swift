// swift-tools-version:6.0
import PackageDescription

// The targets follow the pipeline, each importing only those before it:
//   CFFmpeg, CALSA, CFreeType (C bridges) → FFmpeg, ALSA, FontRaster (one owner per C object,
//     package access)
//   → ReverseAudioCore (the model, the PCMSource contract, the decorators and effects, the
//     scheduler that owns the threads; no FFmpeg) → ReverseAudioTesting (its doubles in memory)
//   → ReverseAudioFFmpeg (the contract over FFmpeg: the file decoder, the one chain builder,
//     output formats one file each, the writer, cuts)
//   → ReverseAudioPlayback, ReverseAudioVideo → ReverseAudio (the operations; re-exports the rest)
//   → ReverseAudioCommandLine (the text the tool reads: plans, event scripts; pure, over Core
//     alone, fuzzed), ReverseAudioBatch (folders, shares, resumable state, manifests)
//   → ReverseAudioServer (`serve`: the HTTP API, virtual WAVs, jobs, the page; Hummingbird)
//   → reverse-audio (the command-line tool).
let package = Package(
    name: "ReverseAudio",
    // macOS 14: Hummingbird 2 (the server) is available from there.
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "ReverseAudio", targets: ["ReverseAudio"]),
        .library(name: "ReverseAudioTesting", targets: ["ReverseAudioTesting"]),
        .executable(name: "reverse-audio", targets: ["reverse-audio"]),
        .executable(name: "reverse-audio-serve", targets: ["reverse-audio-serve"]),
        // The tool's text formats (composition plans, playback event scripts), for the fuzzer
        // in Fuzz/ and for programs that take the same syntax.
        .library(name: "ReverseAudioCommandLine", targets: ["ReverseAudioCommandLine"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        // `swift package generate-documentation` builds the DocC catalogs.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // `serve`: the HTTP server, and the service group that shuts it down.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        // `serve`'s connection limits see the requests as HTTPTypes parts (as Hummingbird does).
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
        // `serve`'s uploads from a page's form (multipart/form-data), parsed as they stream in.
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
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
        // One owner type per FFmpeg object; the only module that touches FFmpeg's C API. Holds
        // the one packet reader, the one frame decoder and the codec traits.
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
        // C bridge to FreeType: the text of waveform pictures, in a real font.
        .systemLibrary(
            name: "CFreeType",
            path: "Modules/CFreeType",
            pkgConfig: "freetype2",
            providers: [.apt(["libfreetype-dev"]), .brew(["freetype"])]
        ),
        // The owner of a FreeType face: measures and rasterises lines of text.
        .target(name: "FontRaster", dependencies: ["CFreeType"]),
        // The media model and the contracts: PCMSource, PCMSink, transfer, the decorators
        // (range, reversal, concatenation, silence, channel selection), errors and warnings,
        // atomic outputs. Pure Swift: knows nothing of FFmpeg.
        .target(name: "ReverseAudioCore"),
        // Test doubles over the contracts alone, as SwiftNIO ships NIOEmbedded: frames in
        // memory as a source, a sink that keeps what it is given, readers side by side for the
        // scheduler, a sound device that keeps what a player writes. What checks logic runs in
        // process with these, without FFmpeg or the tool.
        .target(name: "ReverseAudioTesting", dependencies: ["ReverseAudioCore"]),
        // The contracts over FFmpeg: the one file decoder (AudioFileSource), sample conversion,
        // the encoder/muxer sink, lossless cuts.
        .target(name: "ReverseAudioFFmpeg", dependencies: ["ReverseAudioCore", "FFmpeg"]),
        // Playback: the cursor, its scheduling, the chunk cache, the player and sound devices.
        .target(name: "ReverseAudioPlayback", dependencies: [
            "ReverseAudioCore", "ReverseAudioFFmpeg",
            .target(name: "ALSA", condition: .when(platforms: [.linux])),
        ]),
        // Video reversal and boomerangs, H.264 through libx264.
        .target(name: "ReverseAudioVideo", dependencies: ["ReverseAudioCore", "ReverseAudioFFmpeg", "FFmpeg"]),
        // The operations (convert, compose, waveform, round trip) and the library's one import.
        .target(name: "ReverseAudio", dependencies: [
            "ReverseAudioCore", "ReverseAudioFFmpeg", "ReverseAudioPlayback", "ReverseAudioVideo", "FontRaster",
        ]),
        // The text the command-line tool reads besides its flags: composition plans and playback
        // event scripts. Pure parsing over the model alone (no files, no FFmpeg), so that the
        // fuzzer can run it.
        .target(name: "ReverseAudioCommandLine", dependencies: ["ReverseAudioCore"]),
        // Batches: walking folders, shares of a job array (Slurm, Kubernetes, AWS Batch), the
        // state that lets a rerun skip what is done, manifests. The tool's alone.
        .target(name: "ReverseAudioBatch", dependencies: ["ReverseAudioCore"]),
        // `serve`: the JSON API, virtual WAVs answered by range from the playback chunk cache,
        // jobs with progress, the page (its files embedded in the binary), the request checks.
        .target(
            name: "ReverseAudioServer",
            dependencies: [
                "ReverseAudio", "ReverseAudioBatch",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "MultipartKit", package: "multipart-kit"),
            ],
            // The page's files, in the binary: nothing to install beside it.
            resources: [.embedInCode("Page/index.html"), .embedInCode("Page/style.css"),
                        .embedInCode("Page/api.mjs"),
                        .embedInCode("Page/app.mjs"),
                        .embedInCode("Page/camera.mjs"),
                        .embedInCode("Page/dom.mjs"),
                        .embedInCode("Page/format.mjs"),
                        .embedInCode("Page/keys.mjs"),
                        .embedInCode("Page/list.mjs"),
                        .embedInCode("Page/player.mjs"),
                        .embedInCode("Page/results.mjs"),
                        .embedInCode("Page/state.mjs"),
                        .embedInCode("Page/timeline.mjs"),
                        .embedInCode("Page/trim.mjs"),
                        .embedInCode("Page/uploads.mjs"),
                        .embedInCode("Page/waveform.mjs")]
        ),
        // The command-line tool: parses, calls the library, prints.
        .target(
            name: "ReverseAudioCLI",
            dependencies: [
                "ReverseAudio", "ReverseAudioCommandLine", "ReverseAudioBatch",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // The tool as installed: every command but `serve`, which runs the next one in its place,
        // so that no other command loads the web server's code (three quarters of the binary).
        .executableTarget(name: "reverse-audio", dependencies: ["ReverseAudioCLI"]),
        .executableTarget(name: "reverse-audio-serve", dependencies: ["ReverseAudioCLI", "ReverseAudioServer"]),
        // Fixture lookup and the ffmpeg/ffprobe CLI as the oracle, shared by the test targets.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "FFmpegTests", dependencies: ["FFmpeg", "TestSupport"]),
        .testTarget(name: "ReverseAudioTests", dependencies: [
            "ReverseAudio", "ReverseAudioCore", "ReverseAudioFFmpeg", "ReverseAudioPlayback", "ReverseAudioVideo",
            "ReverseAudioBatch", "ReverseAudioTesting", "TestSupport",
        ]),
        .testTarget(name: "ReverseAudioCLITests", dependencies: [
            "reverse-audio", "reverse-audio-serve", "ReverseAudioCLI", "ReverseAudioCommandLine", "ReverseAudioBatch",
            "TestSupport",
        ]),
        // The server's routes and checks in process (requests handed to the router's responder,
        // no socket, no built tool): the logic of `serve` answered in milliseconds. Not through
        // HummingbirdTesting, whose HTTP client brings TLS and HTTP/2 into every build.
        .testTarget(name: "ReverseAudioServerTests", dependencies: [
            "ReverseAudioServer", "ReverseAudioTesting", "TestSupport",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOEmbedded", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "Logging", package: "swift-log"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
