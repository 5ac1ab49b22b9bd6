import Hummingbird

/// What every request of `serve` carries: Hummingbird's core, and a small body limit (the API
/// takes only short JSON objects: a larger body is refused with 413 before it is read).
struct ServerContext: RequestContext {
    var coreContext: CoreRequestContextStorage

    init(source: Source) {
        coreContext = .init(source: source)
    }

    /// Bytes a request body may hold.
    var maxUploadSize: Int { 64 * 1024 }
}
