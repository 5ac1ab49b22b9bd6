import FFmpeg

/// What inputs may make FFmpeg open besides themselves: playlists' entries (refused unless
/// allowed per input) and remote hosts (any, unless restricted). Process-wide, set by the
/// tool before a command runs; the rules themselves are the FFmpeg layer's (`InputRules`).
package enum InputPolicy {
    /// Lets the inputs named exactly `paths` be playlists (HLS, DASH, ffconcat) whose entries are read.
    package static func allowPlaylists(at paths: [String]) {
        InputRules.allowPlaylists(at: paths)
    }

    /// Restricts every remote open (an input, its redirects, what it names) to `hosts`, each
    /// `host` or `host:port` (a host alone: ports 80 and 443).
    /// - Returns: false, with nothing changed, when an entry is neither.
    package static func restrictRemoteHosts(to hosts: [String]) -> Bool {
        var allowed: Set<RemoteHost> = []
        for text in hosts {
            guard let parsed = RemoteHost.parse(text) else { return false }
            allowed.formUnion(parsed)
        }
        InputRules.remoteHosts = allowed
        return true
    }

    /// True when `text` is a `host` or `host:port` an allowlist takes.
    package static func isHostEntry(_ text: String) -> Bool {
        RemoteHost.parse(text) != nil
    }

    /// True when `address` reaches an allowed host and port (always, unless restricted).
    package static func allowsRemote(_ address: String) -> Bool {
        InputRules.allowsRemote(address)
    }

    /// Seconds a remote input may take to connect, or between two bytes.
    package static var remoteTimeout: Double {
        get { InputRules.remoteTimeout }
        set { InputRules.remoteTimeout = newValue }
    }
}
