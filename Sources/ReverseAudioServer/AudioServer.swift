import Foundation
import Hummingbird
import Logging
import ReverseAudio
import NIOCore
import ServiceLifecycle

/// `reverse-audio serve`: the seed app as a local web page and its JSON API, on Hummingbird.
///
/// Routes (the API's contract; README shows each with curl):
/// - `GET /api/files`: the audio files under the folder.
/// - `GET /api/files/{name}/audio[?direction=reverse]`: the file decoded, forwards or backwards,
///   as a virtual 16-bit WAV answering byte ranges (``VirtualWAV``).
/// - `GET /api/files/{name}/waveform.json|.dat?samples-per-pixel=N`: `waveform`'s data.
/// - `POST /api/uploads[?name=FILE]`: a file (the body, or a multipart form's file field) kept
///   for the jobs (``UploadStore``).
/// - `POST /api/jobs`, `GET /api/jobs/{id}`, `GET /api/jobs/{id}/events`, `DELETE
///   /api/jobs/{id}`, `GET /api/jobs/{id}/result`: reverse, convert, trim, reverse-video and
///   boomerang jobs on a file, an upload or an allowed URL.
/// - `/`, `/app.js`, `/style.css`: the page, embedded in the binary.
///
/// `{name}` is a name as the list gives it, URL-encoded as one path segment.
package struct AudioServer: Sendable {
    /// What to serve, where and to whom.
    package struct Settings: Sendable {
        /// The folder whose audio files are served.
        package var folder: URL
        /// Where jobs write (created when the first job starts).
        package var output: URL
        /// The address to listen on (loopback unless told otherwise).
        package var host: String
        /// The port; 0 for one the system picks.
        package var port: Int
        /// The token every request must carry, 16 characters or more; for any host but
        /// loopback one is made when none is given.
        package var token: String?
        /// Bytes an upload may hold.
        package var uploadLimit: Int
        /// Seconds an upload is kept after its last byte.
        package var uploadMaximumAge: TimeInterval
        /// The hosts a job's `url` may name, each `host` (ports 80 and 443) or `host:port`; none
        /// unless given (the server is no open proxy).
        package var urlHosts: [String]
        /// Seconds a remote input may take to connect or between two bytes.
        package var urlTimeout: Double
        /// How long a connection may take over a request, and how many may be open.
        var connectionLimits = ConnectionLimits.Settings()

        package init(folder: URL, output: URL? = nil, host: String = "127.0.0.1", port: Int = 8080, token: String? = nil,
                     uploadLimit: Int = 2 << 30, uploadMaximumAge: TimeInterval = 3600, urlHosts: [String] = [],
                     urlTimeout: Double = 15) {
            self.folder = folder
            self.output = output ?? folder.appendingPathComponent("Reversed")
            self.host = host
            self.port = port
            self.token = token
            self.uploadLimit = uploadLimit
            self.uploadMaximumAge = uploadMaximumAge
            self.urlHosts = urlHosts
            self.urlTimeout = urlTimeout
        }
    }

    let settings: Settings
    let folder: MediaFolder

    /// The shortest token taken: 16 characters of the URL-safe set are 95 bits or more.
    package static let shortestToken = 16

    /// - Throws: ``ServerError`` for a folder that is not one, a token too short, or hosts
    ///   that are not `host[:port]`.
    package init(_ settings: Settings) throws {
        var settings = settings
        if let token = settings.token {
            guard token.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.~".contains($0)) }) else {
                throw ServerError.setting("the token must be letters, digits and - _ . ~ (it goes into a URL)")
            }
            guard token.count >= Self.shortestToken else {
                throw ServerError.setting("the token must be \(Self.shortestToken) characters or more (this one has \(token.count))")
            }
        } else if !RequestGuard.isLoopback(settings.host) {
            // Reachable from other machines: never without a token, one made here if none was given.
            settings.token = Self.makeToken()
        }
        guard InputPolicy.restrictRemoteHosts(to: settings.urlHosts) else {
            throw ServerError.setting("--allow-url-hosts takes host or host:port entries, like media.example.org,cdn.example.org:8443")
        }
        guard settings.urlTimeout > 0, settings.urlTimeout <= 3600 else {
            throw ServerError.setting("--url-timeout is in seconds, more than 0 and at most 3600")
        }
        InputPolicy.remoteTimeout = settings.urlTimeout
        self.settings = settings
        folder = try MediaFolder(root: settings.folder, output: settings.output)
    }

    /// 32 random characters of the URL-safe set (190 bits).
    static func makeToken() -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] })
    }

    /// Serves until the calling task is cancelled (the tool cancels it on SIGINT, SIGTERM or
    /// SIGHUP), then stops every job (their partial files removed) and returns.
    /// - Parameter listening: called once with the URL the server answers at (its port chosen).
    package func run(listening: @escaping @Sendable (String) -> Void) async throws {
        let jobs = JobTable(folder: folder)
        let router = Router(context: ServerContext.self, options: .autoGenerateHeadEndpoints)
        let port = settings.port
        let host = settings.host
        let token = settings.token
        let boundPort = PortBox()
        router.add(middleware: LateGuard(settings: settings, port: boundPort))
        let uploads = UploadStore(output: settings.output, limit: settings.uploadLimit, maximumAge: settings.uploadMaximumAge)
        Routes(folder: folder, jobs: jobs, files: OpenFiles(), catalog: FileCatalog(), uploads: uploads,
               urlHosts: settings.urlHosts).add(to: router)
        // Old uploads go at the start and then as they age (checked a few times per age, at most a minute apart).
        let sweepEvery = min(60, max(1, settings.uploadMaximumAge / 4))
        let sweeper = Task {
            while !Task.isCancelled {
                await OffThread.runNonThrowing { uploads.removeExpired() }
                try? await Task.sleep(for: .seconds(sweepEvery))
            }
        }
        defer {
            sweeper.cancel()
            LinkFolder.shared.removeAll()
        }
        var logger = Logger(label: "reverse-audio.serve")
        logger.logLevel = .critical
        let limits = settings.connectionLimits
        let connections = ConnectionLimits.Count()
        let app = Application(
            router: router,
            server: .http1(configuration: .init(additionalChannelHandlers: [ConnectionLimits(settings: limits, count: connections)])),
            configuration: .init(address: .hostname(host, port: port), serverName: "reverse-audio"),
            onServerRunning: { channel in
                let chosen = channel.localAddress?.port ?? port
                boundPort.set(chosen)
                let shownHost = host.contains(":") ? "[\(host)]" : host
                listening("http://\(shownHost):\(chosen)/" + (token.map { "?token=\($0)" } ?? ""))
            },
            logger: logger)
        var configuration = ServiceGroupConfiguration(services: [app], gracefulShutdownSignals: [], logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(2)
        let group = ServiceGroup(configuration: configuration)
        let failure: (any Error)? = await withTaskCancellationHandler {
            do {
                try await group.run()
                return nil
            } catch {
                return error
            }
        } onCancel: {
            Task { await group.triggerGracefulShutdown() }
        }
        await jobs.stopAll()
        try Task.checkCancellation()
        // Not stopped by a signal: it could not listen (a port in use, an address not this machine's).
        if let failure, boundPort.port == nil {
            throw ServerError.listening("cannot listen on \(host):\(port): \(Self.reason(failure))")
        } else if let failure {
            throw ServerError.listening("the server stopped: \(Self.reason(failure))")
        }
    }
}

extension AudioServer {
    /// The system's words for why a socket could not be used ("Address already in use").
    static func reason(_ error: any Error) -> String {
        if let error = error as? IOError { return String(cString: strerror(error.errnoCode)) }
        let text = String(describing: error)
        // NIO's bind errors name the errno's text after "): ".
        return text.components(separatedBy: "): ").last ?? text
    }
}

/// The port the server was given, known only once it listens (port 0 lets the system choose).
final class PortBox: @unchecked Sendable {
    // @unchecked: `value` is touched only under `lock`.
    private let lock = NSLock()
    private var value: Int?

    func set(_ port: Int) { lock.withLock { value = port } }
    var port: Int? { lock.withLock { value } }
}

/// ``RequestGuard`` built on the first request, once the port it checks `Host` against is known.
struct LateGuard: RouterMiddleware {
    typealias Context = ServerContext
    let settings: AudioServer.Settings
    let port: PortBox

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let guarding = RequestGuard(host: settings.host, port: port.port ?? settings.port, token: settings.token)
        return try await guarding.handle(request, context: context, next: next)
    }
}
