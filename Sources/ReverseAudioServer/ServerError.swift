/// Why `serve` could not start.
package enum ServerError: Error, CustomStringConvertible {
    /// A setting that cannot work (the folder is not one, a host that needs a token).
    case setup(String)

    package var description: String {
        switch self {
        case .setup(let reason): return reason
        }
    }
}
