import HTTPTypes
import Hummingbird
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOEmbedded

/// Requests handed straight to a router's responder, as HummingbirdTesting's router framework
/// does, without its dependency on an HTTP client (and so on TLS and HTTP/2, minutes of every
/// fresh build): no socket, no server, the same `Request` and context a connection would give.
struct InProcessClient<Responder: HTTPResponder>: Sendable where Responder.Context: RequestContext,
    Responder.Context.Source == ApplicationRequestContextSource {
    /// What the router answered: its head and the body it wrote.
    struct Answer: Sendable {
        let status: HTTPResponse.Status
        let headers: HTTPFields
        let body: ByteBuffer
    }

    let responder: Responder
    private let logger = Logger(label: "in-process")

    /// The answer to `method` `uri` with `headers` and `body`, as a connection to the server
    /// would get it (a thrown error is a 500, as the server sends).
    func execute(uri: String, method: HTTPRequest.Method, headers: HTTPFields = [:], body: ByteBuffer? = nil) async throws -> Answer {
        var fields = headers
        if let body { fields[.contentLength] = String(body.readableBytes) }
        let request = Request(head: HTTPRequest(method: method, scheme: "http", authority: "localhost", path: uri, headerFields: fields),
                              body: RequestBody(buffer: body ?? ByteBuffer()))
        let context = Responder.Context(source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: logger))
        let response: Response
        do {
            response = try await responder.respond(to: request, context: context)
        } catch {
            response = Response(status: .internalServerError)
        }
        let collected = NIOLockedValueBox(ByteBuffer())
        try await response.body.write(CollectingWriter(collected: collected))
        return Answer(status: response.status, headers: response.headers, body: collected.withLockedValue { $0 })
    }
}

/// A response body's bytes, kept in a box the caller reads once the body is written.
private struct CollectingWriter: ResponseBodyWriter {
    let collected: NIOLockedValueBox<ByteBuffer>

    mutating func write(_ buffer: ByteBuffer) async throws {
        _ = collected.withLockedValue { $0.writeImmutableBuffer(buffer) }
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

extension Router where Context.Source == ApplicationRequestContextSource {
    /// Runs `body` with a client of this router's responder.
    func inProcess<Value>(_ body: (InProcessClient<RouterResponder<Context>>) async throws -> Value) async throws -> Value {
        try await body(InProcessClient(responder: buildResponder()))
    }
}
