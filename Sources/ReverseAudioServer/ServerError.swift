/// Why `serve` could not start.
package enum ServerError: Error, CustomStringConvertible {
    /// Settings that cannot work together (another host without a token, a token that cannot
    /// go into a URL): a usage error.
    case setting(String)
    /// The folder to serve is not one.
    case folder(String)
    /// The server could not listen, or stopped by itself.
    case listening(String)

    package var description: String {
        switch self {
        case .setting(let reason), .folder(let reason), .listening(let reason): return reason
        }
    }
}
