import Foundation
import HTTPTypes
import Hummingbird

/// The checks every request passes before any route sees it (a server on a user's music).
///
/// - `Host` must name the address the server is bound to (or, bound to loopback, `localhost`
///   or the loopback addresses), with its port: a page on another site that rebinds its own
///   name to 127.0.0.1 (DNS rebinding) is refused with 421. Bound to every address (`0.0.0.0`,
///   `::`) any name may reach it, and the token (required there) is what keeps others out.
/// - `Origin`, when the browser sends one, must be this server's as the request names it:
///   another site's script is refused with 403 (its reads of the API and its jobs alike).
/// - A browser's request from another site's page (`Sec-Fetch-Site` neither `same-origin`
///   nor `none`) is refused with 403, but for a navigation to the page itself: an `<img>` or
///   `<audio>` on another page sends no `Origin`, and must not start the server's work.
/// - With a token, every request carries it: the `X-ReverseAudio-Token` header, or
///   `?token=` in the URL, or the cookie that sets. The page opened with `?token=` is answered
///   with a redirect to the page without it (the token leaves the address bar and history);
///   the cookie's name holds the port, so servers on other ports of the host never get it.
struct RequestGuard: RouterMiddleware {
    typealias Context = ServerContext
    /// `host:port` spellings a request may name; nil for any (bound to every address).
    let hosts: Set<String>?
    let token: String?
    /// The token's cookie, named for the port.
    let cookieName: String

    static let tokenHeader = HTTPField.Name("X-ReverseAudio-Token")!
    static let fetchSite = HTTPField.Name("Sec-Fetch-Site")!
    static let fetchMode = HTTPField.Name("Sec-Fetch-Mode")!

    init(host: String, port: Int, token: String?) {
        var names = [host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host]
        if Self.isLoopback(host) { names += ["localhost", "127.0.0.1", "[::1]"] }
        hosts = Self.isWildcard(host) ? nil : Set(names.map { "\($0.lowercased()):\(port)" })
        self.token = token
        cookieName = "reverse_audio_token_\(port)"
    }

    /// True for the addresses that mean every interface.
    static func isWildcard(_ host: String) -> Bool {
        host == "0.0.0.0" || host == "::" || host == "[::]"
    }

    /// True for an address only this machine reaches.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let host = request.head.authority?.lowercased(), hosts?.contains(host) ?? true else {
            throw HTTPError(.misdirectedRequest, message: "this server answers only to \((hosts ?? []).sorted().joined(separator: ", "))")
        }
        if let origin = request.headers[.origin]?.lowercased() {
            guard origin == "http://" + host else {
                throw HTTPError(.forbidden, message: "requests from another site's page are refused")
            }
        }
        if let site = request.headers[Self.fetchSite]?.lowercased(), site != "same-origin", site != "none" {
            let isPageNavigation = request.headers[Self.fetchMode]?.lowercased() == "navigate" && request.uri.path == "/"
            guard isPageNavigation else { throw HTTPError(.forbidden, message: "requests from another site's page are refused") }
        }
        guard let token else { return try await next(request, context) }
        let fromQuery = request.uri.queryParameters["token"].map(String.init)
        let given = request.headers[Self.tokenHeader] ?? fromQuery ?? cookie(in: request)
        guard let given, constantTimeEqual(given, token) else {
            throw HTTPError(.forbidden, message: "this server needs its token (the URL it printed holds it)")
        }
        let setCookie = HTTPField(name: .setCookie, value: "\(cookieName)=\(token); Path=/; HttpOnly; SameSite=Strict")
        if fromQuery != nil, request.method == .get, request.uri.path == "/" {
            return Response(status: .seeOther, headers: [.location: "/", .cacheControl: "no-store", setCookie.name: setCookie.value])
        }
        var response = try await next(request, context)
        if fromQuery != nil { response.headers.append(setCookie) }
        return response
    }

    private func cookie(in request: Request) -> String? {
        for field in request.headers[values: .cookie] {
            for pair in field.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == cookieName { return String(parts[1]) }
            }
        }
        return nil
    }

    /// Compares without stopping at the first difference (a token's bytes are not guessed one by one).
    private func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
