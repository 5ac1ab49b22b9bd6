import Foundation

extension URL {
    /// The path as the user gave it (relative stays relative), for messages and reports: a file
    /// reached through an alias (its name is not UTF-8, see ``ByteNames``) by its own name with
    /// the bytes escaped, and control characters escaped so that a message stays on one line.
    package var displayPath: String {
        guard isFileURL else { return ControlEscaping.escaped(withoutCredentials.absoluteString) }
        if let shown = ByteNames.display(forPath: path) { return shown }
        return ControlEscaping.escaped(relativePath)
    }

    /// What FFmpeg opens: a file's path, or an `http://`/`https://` URL whole.
    package var mediaLocation: String { isFileURL ? path : absoluteString }

    /// True for an `http://` or `https://` URL.
    package var isRemote: Bool {
        guard let scheme = scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    /// This URL without a user name or password (which a message must not show).
    private var withoutCredentials: URL {
        guard user != nil || password != nil, var parts = URLComponents(url: self, resolvingAgainstBaseURL: true) else { return self }
        parts.user = nil
        parts.password = nil
        return parts.url ?? self
    }
}
