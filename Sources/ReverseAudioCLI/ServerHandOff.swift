import ArgumentParser
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How `reverse-audio serve` reaches the web server, which the `reverse-audio` executable does not
/// link: it runs `reverse-audio-serve`, installed beside it, in its place (`execv`), with the
/// command line exactly as given, bytes and all. That executable is the same tool with the server
/// linked in: it parses and checks the same command line and runs the server as this process,
/// so signals, standard streams and the exit status are the server's own.
enum ServerHandOff {
    /// The executable that runs the server.
    static let executableName = "reverse-audio-serve"

    /// Runs `reverse-audio-serve` in this process's place; returns only by throwing.
    static func handOver() throws -> Never {
        guard let own = Bundle.main.executableURL?.resolvingSymlinksInPath() else {
            throw fail("cannot tell where reverse-audio is installed, to find \(executableName) beside it")
        }
        let server = own.deletingLastPathComponent().appendingPathComponent(executableName)
        guard FileManager.default.isExecutableFile(atPath: server.path) else {
            throw fail("\(server.path) is missing: serve runs it (install it beside reverse-audio; "
                       + "swift build --product \(executableName) builds it)")
        }
        fflush(nil)  // every C stream: nothing written before is lost with this process image
        // The arguments as the system passed them (CommandLine.unsafeArgv), so that names that
        // are not UTF-8 reach the server as they reached us.
        execv(server.path, CommandLine.unsafeArgv)
        throw fail("could not run \(server.path): \(String(cString: strerror(errno)))")
    }

    private static func fail(_ reason: String) -> ExitCode {
        Console.error("reverse-audio: error: \(reason)")
        return ExitCode.failure
    }
}
