import ArgumentParser
import Foundation

package struct ServeCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    package static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a folder's audio as a web page: play any file forwards or backwards, scrub, loop, reverse and trim; upload or record and get it back reversed.",
        discussion: """
            Prints the page's URL and serves until Ctrl-C (SIGINT, SIGTERM or SIGHUP), which stops running jobs \
            and removes their partial files. Jobs write into OUTPUT (FOLDER/Reversed unless told), never over a file. \
            Uploads (the page's drop zone, file picker and camera) wait in OUTPUT/.uploads for --keep-uploads \
            minutes. The page and its JSON API are described in README ("serve").
            """)

    package static let examples = [
        "reverse-audio serve \"Audio Files\"                 # http://127.0.0.1:8080/",
        "reverse-audio serve Music -o Out --port 0          # a free port, printed",
        "reverse-audio serve Music --host 0.0.0.0 --token s3cret   # other machines, with the token",
        "reverse-audio serve Music --allow-url-hosts media.example.org   # jobs may read URLs there",
    ]

    @Argument(help: "The folder whose audio files are served.", completion: .directory)
    package var folder: String = "."

    @Option(name: [.short, .customLong("output")], help: "Where jobs write (default: FOLDER/Reversed).", completion: .directory)
    package var output: String?

    @Option(help: "The address to listen on; anything but loopback needs --token.")
    package var host: String = "127.0.0.1"

    @Option(help: "The port (0: one the system picks, printed).")
    package var port: Int = 8080

    @Option(help: "A token every request must carry (in the printed URL, then a cookie); required with --host.")
    package var token: String?

    @Option(help: "The most an upload may hold, in MiB.")
    package var uploadLimit: Int = 2048

    @Option(help: "Minutes an upload is kept after it arrives (then removed; 0.5 is half a minute).")
    package var keepUploads: Double = 60

    @Option(help: ArgumentHelp("Hosts whose http(s) URLs jobs may read, comma-separated (none unless given: the server fetches nothing else).",
                               valueName: "H1,H2"))
    package var allowURLHosts: String?

    @OptionGroup(title: SharedOptions.title) var verbosity: VerbosityOptions

    package func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port)") }
        guard (1...(1 << 30)).contains(uploadLimit) else { throw ValidationError("--upload-limit is in MiB, 1 or more, not \(uploadLimit)") }
        guard keepUploads > 0, keepUploads <= 525_600 else {
            throw ValidationError("--keep-uploads is in minutes, more than 0 and at most 525600 (a year), not \(keepUploads)")
        }
        for host in urlHosts where host.isEmpty || host.contains("/") || host.contains(":") && !host.hasPrefix("[") {
            throw ValidationError("--allow-url-hosts takes host names, like media.example.org,cdn.example.org, not \"\(host)\"")
        }
    }

    /// The hosts of --allow-url-hosts, lowercased.
    package var urlHosts: [String] {
        (allowURLHosts ?? "").split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { _ in allowURLHosts != nil }
    }

    package init() {}

    package func run() async throws {
        guard let server = Self.server else { try ServerHandOff.handOver() }
        try await server(self)
    }

    /// Runs the server: set by the `reverse-audio-serve` executable, which links it. The
    /// `reverse-audio` executable leaves it unset and hands its command line to
    /// `reverse-audio-serve` (``ServerHandOff``), so that every other command starts without the
    /// web server's code (Hummingbird and SwiftNIO: three quarters of the binary, about 3 MB of
    /// memory and a few milliseconds at every start). Set once, before the command line is parsed.
    nonisolated(unsafe) package static var server: ((ServeCommand) async throws -> Void)?
}
