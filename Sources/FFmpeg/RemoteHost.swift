import Foundation

/// A host and port an address reaches: `example.com:443` for `https://example.com/x.mp3`.
package struct RemoteHost: Hashable, Sendable, CustomStringConvertible {
    /// The host, lowercased, without brackets for an IPv6 address.
    package let host: String
    /// The port, the scheme's default when the address names none.
    package let port: Int

    package init(host: String, port: Int) {
        self.host = host.lowercased()
        self.port = port
    }

    /// The host and port of an `http://` or `https://` URL; nil for any other.
    package init?(url: String) {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
              let host = components.host, !host.isEmpty else { return nil }
        let defaultPort: Int
        switch scheme {
        case "http": defaultPort = 80
        case "https": defaultPort = 443
        default: return nil
        }
        self.init(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: components.port ?? defaultPort)
    }

    /// `host` or `host:port` as a user writes it in an allowlist (`[::1]:8080` for IPv6); a
    /// host alone means the default ports of both schemes. Nil for text that is neither.
    package static func parse(_ text: String) -> [RemoteHost]? {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !trimmed.isEmpty, !trimmed.contains("/"), !trimmed.contains("@") else { return nil }
        guard let components = URLComponents(string: "http://" + trimmed), let host = components.host, !host.isEmpty,
              components.path.isEmpty, components.query == nil else { return nil }
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if let port = components.port {
            guard (1...65535).contains(port) else { return nil }
            return [RemoteHost(host: bare, port: port)]
        }
        return [RemoteHost(host: bare, port: 80), RemoteHost(host: bare, port: 443)]
    }

    package var description: String {
        let shown = host.contains(":") ? "[\(host)]" : host
        return "\(shown):\(port)"
    }
}
