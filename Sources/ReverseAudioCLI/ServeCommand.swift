import ArgumentParser
import Foundation
import ReverseAudio

package struct ServeCommand: AsyncParsableCommand, ReportingCommand, ExampleCommand {
    package static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve a folder's audio as a web page: play any file forwards or backwards, scrub, loop, reverse and trim; upload or record and get it back reversed.",
        discussion: """
            Prints the page's URL and serves until Ctrl-C (SIGINT, SIGTERM or SIGHUP), which stops running jobs \
            and removes their partial files. Jobs write into OUTPUT (FOLDER/Reversed unless told), never over a file. \
            Uploads (the page's drop zone, file picker and camera) wait in OUTPUT/.uploads for --keep-uploads \
            minutes. The page and its JSON API are described in docs/reference/serve.md and docs/serve-api.md.
            """)

    package static let examples = [
        "reverse-audio serve \"Audio Files\"                 # http://127.0.0.1:8080/",
        "reverse-audio serve Music -o Out --port 0          # a free port, printed",
        "reverse-audio serve Music --host 0.0.0.0 --token-file ~/.serve-token   # other machines, with the token",
        "reverse-audio serve Music --allow-url-hosts media.example.org,cdn.example.org:8443   # jobs may read URLs there",
    ]

    @Argument(help: "The folder whose audio files are served.", completion: .directory)
    package var folder: String = "."

    @Option(name: [.short, .customLong("output")], help: "Where jobs write (default: FOLDER/Reversed).", completion: .directory)
    package var output: String?

    @Option(help: "The address to listen on; anything but loopback needs --token.")
    package var host: String = "127.0.0.1"

    @Option(help: "The port (0: one the system picks, printed).")
    package var port: Int = 8080

    @Option(help: ArgumentHelp("A token every request must carry (in the printed URL, then a cookie), 16 characters or more; made and printed when --host is not loopback. Shown by ps: prefer --token-file or REVERSE_AUDIO_TOKEN.",
                               valueName: "TOKEN"))
    package var token: String?

    @Option(help: ArgumentHelp("A file whose first line is the token.", valueName: "FILE"), completion: .file())
    package var tokenFile: String?

    @Option(help: "The most an upload may hold, in MiB.")
    package var uploadLimit: Int = 2048

    @Option(help: "Minutes an upload is kept after it arrives (then removed; 0.5 is half a minute).")
    package var keepUploads: Double = 60

    @Option(help: ArgumentHelp("Hosts whose http(s) URLs jobs may read, comma-separated, each HOST (ports 80 and 443) or HOST:PORT (none unless given: the server fetches nothing else; redirects elsewhere are refused).",
                               valueName: "H1,H2:PORT"))
    package var allowURLHosts: String?

    @Option(help: ArgumentHelp("Seconds a URL's server may take to connect or to send the next bytes.", valueName: "SECONDS"))
    package var urlTimeout: Double = 15

    @OptionGroup(title: SharedOptions.title) var verbosity: VerbosityOptions

    package func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0 to 65535, not \(port)") }
        guard (1...(1 << 30)).contains(uploadLimit) else { throw ValidationError("--upload-limit is in MiB, 1 or more, not \(uploadLimit)") }
        guard keepUploads > 0, keepUploads <= 525_600 else {
            throw ValidationError("--keep-uploads is in minutes, more than 0 and at most 525600 (a year), not \(keepUploads)")
        }
        for host in urlHosts where !InputPolicy.isHostEntry(host) {
            throw ValidationError("--allow-url-hosts takes HOST or HOST:PORT entries, like media.example.org,cdn.example.org:8443, not \"\(host)\"")
        }
        guard urlTimeout > 0, urlTimeout <= 3600 else { throw ValidationError("--url-timeout is in seconds, more than 0 and at most 3600, not \(urlTimeout)") }
        if token != nil && tokenFile != nil { throw ValidationError("--token and --token-file exclude each other: give one of them") }
        if verbosity.playlists.allowPlaylists {
            throw ValidationError("serve never opens playlists (files that name others to read): --allow-playlists is for the other commands")
        }
    }

    /// The token from --token, --token-file or REVERSE_AUDIO_TOKEN (in that order), if any.
    /// - Throws: `ValidationError` for a token file that cannot be read or holds no token.
    package func givenToken(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let token { return token }
        if let tokenFile {
            guard let text = try? String(contentsOfFile: (tokenFile as NSString).expandingTildeInPath, encoding: .utf8) else {
                throw ValidationError("--token-file \(tokenFile): cannot be read")
            }
            let line = text.split(whereSeparator: \.isNewline).first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
            guard !line.isEmpty else { throw ValidationError("--token-file \(tokenFile): holds no token on its first line") }
            return line
        }
        if let fromEnvironment = environment["REVERSE_AUDIO_TOKEN"], !fromEnvironment.isEmpty { return fromEnvironment }
        return nil
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
