// swift-tools-version:6.0
// The libFuzzer target over ReverseAudio's decode and reverse paths, kept in a package of its
// own so that its entry point (LLVMFuzzerTestOneInput, no main) stays out of the main package's
// builds. Build and run it with `scripts/fuzz [SECONDS]` from the repository root.
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
        .executableTarget(
            name: "ReverseAudioFuzz",
            dependencies: [.product(name: "ReverseAudio", package: "ReverseAudio")],
            // libFuzzer provides main(); this module has no top-level code.
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        ),
    ],
    swiftLanguageModes: [.v6]
)
