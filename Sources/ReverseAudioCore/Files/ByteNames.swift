import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// File names as the file system stores them: bytes, which need not be UTF-8 on Linux.
///
/// A Swift `String` (and so a `URL`'s path, and every API that takes one) holds only valid
/// Unicode, so a name such as `caf\xE9.wav` (Latin-1) cannot be passed through them unchanged.
/// Such a file is reached through an **alias**: a symbolic link with a UTF-8 name, in a folder
/// of this process's own under the temporary folder, whose target is the file's exact bytes.
/// The alias's name is the escaped name (``escaped(_:)``), so extensions and output names
/// derived from it still work; messages show the name as the user gave it, escaped
/// (``URL/displayPath``). The folder is removed when the process exits (and by the signal
/// watchdog, see ``ProcessCleanup``); one left by a killed run is removed by the next.
package enum ByteNames {
    /// True when `bytes` are valid UTF-8.
    package static func isUTF8<Bytes: Collection>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        String(validating: bytes, as: UTF8.self) != nil
    }

    /// `bytes` as text: valid UTF-8 as it is, every other byte as `\xNN`; control characters
    /// escaped too (`\n`, `\t`, `\x1B`), so that a name prints on one line.
    ///
    /// No two names give the same text (outputs are named from it): a backslash of the name
    /// that an escape could be read into is doubled (`\\`). So the four characters `caf\xE9`
    /// give `caf\\xE9`, and the byte 0xE9 after `caf` gives `caf\xE9`. A backslash followed by
    /// anything else (`a\b`) stays as it is, as does every name without one.
    package static func escaped<Bytes: Collection>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // Each unit of the name (a character, or a byte that is not UTF-8) as text, and whether
        // it is a backslash of the name.
        var pieces: [(text: String, isBackslash: Bool)] = []
        var index = bytes.startIndex
        while index != bytes.endIndex {
            // The longest valid UTF-8 sequence starting here (1 to 4 bytes).
            var decoded: (String, Bytes.Index)?
            var end = index
            for _ in 0..<4 {
                guard end != bytes.endIndex else { break }
                end = bytes.index(after: end)
                if let text = String(validating: bytes[index..<end], as: UTF8.self) {
                    decoded = (text, end)
                    break
                }
            }
            if let (text, next) = decoded {
                pieces.append((ControlEscaping.escaped(text), text == "\\"))
                index = next
            } else {
                pieces.append((String(format: "\\x%02X", bytes[index]), false))
                index = bytes.index(after: index)
            }
        }
        var result = ""
        for (position, piece) in pieces.enumerated() {
            guard piece.isBackslash else {
                result += piece.text
                continue
            }
            // What follows it as text: an escape's backslash, or a letter an escape starts with.
            let following = position + 1 < pieces.count ? pieces[position + 1].text.first : nil
            result += following.map { Self.escapeStarts.contains($0) } == true ? "\\\\" : "\\"
        }
        return result
    }

    /// The characters that, after a backslash, make an escape of ``escaped(_:)``: `\\`, `\xNN`,
    /// and ``ControlEscaping``'s `\0`, `\t`, `\n`, `\r`, `\u{9B}`.
    private static let escapeStarts: Set<Character> = ["\\", "x", "0", "t", "n", "r", "u"]

    /// A URL that reaches the file at `path` (exact bytes, absolute or relative to the current
    /// folder): the path itself when it is UTF-8, else an alias (see the type's description).
    /// - Parameters:
    ///   - path: the file's path, as bytes.
    ///   - display: how messages name it (default: `path` escaped).
    package static func url(forPath path: [UInt8], display: String? = nil) throws -> URL {
        if let text = String(validating: path, as: UTF8.self) { return URL(fileURLWithPath: text) }
        return try alias(for: path, display: display ?? escaped(path))
    }

    /// The text `argument` names as a path: itself when its bytes are UTF-8; else an alias to
    /// the file when one exists there, or the escaped text (which names nothing, and says so).
    package static func argument(_ bytes: [UInt8]) -> String {
        if let text = String(validating: bytes, as: UTF8.self) { return text }
        var status = stat()
        let exists = withCString(bytes) { lstat($0, &status) == 0 }
        if exists, let alias = try? alias(for: bytes, display: escaped(bytes)) { return alias.path }
        return escaped(bytes)
    }

    // MARK: Aliases

    private static let lock = NSLock()
    nonisolated(unsafe) private static var folder: String?
    /// The lock held on ``folder`` while it exists, so that no other run sweeps it away.
    nonisolated(unsafe) private static var folderClaim: OwnershipLock?
    nonisolated(unsafe) private static var count = 0
    /// Alias path → the name messages show for it.
    nonisolated(unsafe) private static var displays: [String: String] = [:]

    /// The prefix of the alias folders' names in the temporary folder.
    package static let folderPrefix = ".reverse-audio-names-"

    private static func alias(for path: [UInt8], display: String) throws -> URL {
        lock.lock()
        defer { lock.unlock() }
        let base = try aliasFolder()
        count += 1
        let slot = base + "/\(count)"
        guard mkdir(slot, 0o700) == 0 else {
            throw ReverseAudioError.input(.unreadable(path: display, reason: "cannot make an alias for its name: \(String(cString: strerror(errno)))"))
        }
        var name = escaped(path.split(separator: UInt8(ascii: "/")).last ?? [])
        if name.utf8.count > 200 {
            // Escapes can make a long name too long for a name of its own: keep its end (the extension).
            name = "…" + String(decoding: name.utf8.suffix(150), as: UTF8.self)
        }
        let link = slot + "/" + name
        var target = path
        if target.first != UInt8(ascii: "/") {
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            guard getcwd(&buffer, buffer.count) != nil else {
                throw ReverseAudioError.input(.unreadable(path: display, reason: "the current folder cannot be named"))
            }
            target = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) } + [UInt8(ascii: "/")] + path
        }
        let made = withCString(target) { symlink($0, link) == 0 }
        guard made else {
            throw ReverseAudioError.input(.unreadable(path: display, reason: "cannot make an alias for its name: \(String(cString: strerror(errno)))"))
        }
        displays[link] = display
        return URL(fileURLWithPath: link)
    }

    /// This process's alias folder, made on first use (and the folders of dead runs removed).
    private static func aliasFolder() throws -> String {
        if let folder { return folder }
        let temporary = FileManager.default.temporaryDirectory.path
        removeStaleFolders(in: temporary)
        for _ in 0..<16 {
            var template = Array("\(temporary)/\(folderPrefix)\(getpid())-XXXXXX".utf8CString)
            guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
                throw ReverseAudioError.output(.cannotCreateOutput(path: temporary, reason: "cannot make a folder for name aliases: \(String(cString: strerror(errno)))"))
            }
            let path = String(cString: made)
            switch OwnershipLock.lockFolder(at: path) {
            case .success(let claim):
                folderClaim = claim
            case .failure(.taken):
                // Swept by another run between its making and its locking: make another.
                continue
            case .failure(.failed(let code)):
                rmdir(path)
                throw ReverseAudioError.output(.cannotCreateOutput(path: temporary, reason: "cannot make a folder for name aliases: \(String(cString: strerror(code)))"))
            }
            ProcessCleanup.register(folder: path)
            atexit { ByteNames.removeAliases() }
            folder = path
            return path
        }
        throw ReverseAudioError.output(.cannotCreateOutput(path: temporary, reason: "cannot make a folder for name aliases: other runs keep removing it"))
    }

    /// Removes this process's alias folder (at exit).
    package static func removeAliases() {
        lock.lock()
        let path = folder
        let claim = folderClaim
        folder = nil
        folderClaim = nil
        lock.unlock()
        guard let path else { return }
        ProcessCleanup.removeTree(path)
        ProcessCleanup.unregister(folder: path)
        claim?.release()
    }

    /// Alias folders of runs that no longer exist (killed before their exit could remove them):
    /// only those whose ``OwnershipLock`` no process holds (a run in another PID namespace
    /// sharing the temporary folder holds it as any other), and not while the process the name
    /// records is alive here (a run of an earlier version, which took no lock).
    private static func removeStaleFolders(in temporary: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporary) else { return }
        for name in names where name.hasPrefix(folderPrefix) {
            let rest = name.dropFirst(folderPrefix.count)
            guard let pid = rest.split(separator: "-").first.flatMap({ pid_t($0) }), pid > 0, pid != getpid(),
                  kill(pid, 0) != 0, errno == ESRCH else { continue }
            OwnershipLock.removeIfAbandoned(temporary + "/" + name, isFolder: true) { ProcessCleanup.removeTree($0) }
        }
    }

    /// How messages name the file at `path` when it lies at or under an alias; nil otherwise.
    package static func display(forPath path: String) -> String? {
        lock.lock()
        defer { lock.unlock() }
        guard !displays.isEmpty, let folder, path.hasPrefix(folder + "/") else { return nil }
        // An alias is folder/N/NAME: anything deeper lies inside an aliased folder.
        let components = path.dropFirst(folder.count + 1).split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        guard components.count >= 2 else { return nil }
        let link = folder + "/" + components[0] + "/" + components[1]
        guard let shown = displays[link] else { return nil }
        return components.count == 3 ? shown + "/" + components[2] : shown
    }

    /// Calls `body` with `bytes` as a NUL-terminated C string.
    package static func withCString<Result>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        let terminated = bytes.map { CChar(bitPattern: $0) } + [0]
        return terminated.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
