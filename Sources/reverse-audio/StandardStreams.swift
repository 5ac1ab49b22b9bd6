import Foundation

/// `-` (and FFmpeg's `pipe:0`/`pipe:1`) as the names of standard input and output, as `sox`
/// and `ffmpeg` take them.
enum StandardStreams {
    static func inputURL(_ argument: String) -> URL {
        ["-", "pipe:0", "pipe:"].contains(argument) ? URL(fileURLWithPath: "/dev/stdin") : URL(fileURLWithPath: argument)
    }

    static func outputURL(_ argument: String) -> URL {
        ["-", "pipe:1", "pipe:"].contains(argument) ? URL(fileURLWithPath: "/dev/stdout") : URL(fileURLWithPath: argument)
    }
}
