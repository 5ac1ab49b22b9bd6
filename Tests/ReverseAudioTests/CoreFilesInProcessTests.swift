import Foundation
import Testing
import TestSupport
@testable import ReverseAudioCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How the core handles files, in process on a fresh folder: an output is written under a
/// temporary name and published whole or not at all, never over what is not a regular file;
/// locks tell a live run's files from a killed one's; names that are not UTF-8 stay reachable
/// and print on one line.
@Suite struct CoreFilesInProcessTests {
    static func text(_ url: URL) throws -> String { try String(contentsOf: url, encoding: .utf8) }

    static func kind(_ path: String) -> mode_t? {
        var status = stat()
        return lstat(path, &status) == 0 ? status.st_mode & S_IFMT : nil
    }

    /// The refusal `body` throws, as `.output(.cannotCreateOutput)`'s reason.
    static func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
        } catch ReverseAudioError.output(.cannotCreateOutput(_, let reason)) {
            return reason
        } catch {
            Issue.record("unexpected \(error)")
        }
        return nil
    }

    // MARK: OutputFile

    @Test("a new output is written under a hidden temporary name beside it and appears only at commit, whole")
    func publishedAtomically() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("out.wav")
        let output = try OutputFile(url: target, overwrite: false, inputs: [])
        #expect(output.placement == .publishedAtomically && output.isSeekable)
        let temporary = output.temporaryURL
        #expect(temporary.deletingLastPathComponent().path == directory.url.path)
        #expect(output.temporaryFolder.path == directory.url.path)
        let name = temporary.lastPathComponent
        #expect(name.hasPrefix(".reverse-audio-\(getpid())-") && name.hasSuffix(".partial"), "\(name)")
        #expect(ProcessCleanup.registeredFiles.contains(temporary.path))
        #expect(directory.contents == [name], "reserved as an empty file; nothing under the output's name yet")
        try Data("RIFF-bytes".utf8).write(to: temporary)
        #expect(output.temporarySize == 10)
        try output.commit()
        #expect(output.isCommitted)
        #expect(try Self.text(target) == "RIFF-bytes")
        #expect(directory.contents == ["out.wav"])
        #expect(!ProcessCleanup.registeredFiles.contains(temporary.path))
    }

    @Test("an output abandoned (a failed run) leaves nothing: no temporary file, no output")
    func abandonedLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        var temporary: URL?
        do {
            let output = try OutputFile(url: directory.file("out.flac"), overwrite: false, inputs: [])
            temporary = output.temporaryURL
            try Data(repeating: 1, count: 4096).write(to: output.temporaryURL)
        }
        #expect(directory.contents.isEmpty)
        let abandoned = try #require(temporary)
        #expect(!ProcessCleanup.registeredFiles.contains(abandoned.path))
        // discard() is what the failure paths call; twice is harmless.
        let output = try OutputFile(url: directory.file("out.flac"), overwrite: false, inputs: [])
        output.discard()
        output.discard()
        #expect(directory.contents.isEmpty)
    }

    @Test("an existing file is kept without overwrite; with it, it is replaced by a rename: a reader of the old file still reads it")
    func overwriteReplacesAtomically() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("out.wav")
        try Data("old".utf8).write(to: target)
        #expect(throws: ReverseAudioError.output(.outputExists(path: target.path))) {
            _ = try OutputFile(url: target, overwrite: false, inputs: [])
        }
        #expect(directory.contents == ["out.wav"], "no temporary file left by the refusal")
        let output = try OutputFile(url: target, overwrite: true, inputs: [])
        try Data("new".utf8).write(to: output.temporaryURL)
        #expect(try Self.text(target) == "old", "untouched until commit")
        let reader = try FileHandle(forReadingFrom: target)
        defer { try? reader.close() }
        try output.commit()
        #expect(try Self.text(target) == "new")
        #expect(String(decoding: try reader.readToEnd() ?? Data(), as: UTF8.self) == "old")
        #expect(directory.contents == ["out.wav"])
    }

    @Test("a name taken while the output was written is not replaced: the commit fails and the other file stays")
    func nameTakenDuringRun() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("out.wav")
        let output = try OutputFile(url: target, overwrite: false, inputs: [])
        try Data("ours".utf8).write(to: output.temporaryURL)
        try Data("theirs".utf8).write(to: target)
        #expect(throws: ReverseAudioError.output(.outputExists(path: target.path))) { try output.commit() }
        #expect(try Self.text(target) == "theirs")
        #expect(directory.contents == ["out.wav"], "our temporary file removed")
    }

    @Test("a file that became a folder while it was written is not replaced even with overwrite")
    func becameFolderDuringRun() throws {
        let directory = try TemporaryDirectory()
        let target = directory.file("out.wav")
        try Data("old".utf8).write(to: target)
        let output = try OutputFile(url: target, overwrite: true, inputs: [])
        try FileManager.default.removeItem(at: target)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        #expect(Self.refusal { try output.commit() } == "it is no longer a regular file")
        #expect(Self.kind(target.path) == S_IFDIR)
        #expect(directory.contents == ["out.wav"])
    }

    @Test("a folder, a socket and a link to nothing are refused with the reason, overwrite or not")
    func refusedKinds() throws {
        let directory = try TemporaryDirectory()
        let folder = directory.file("folder.wav")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
        let socketPath = directory.file("s.wav").path
        let socketDescriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(socketDescriptor >= 0)
        defer { close(socketDescriptor) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(socketPath.utf8) + [0])
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        try #require(bound == 0)
        let dangling = directory.file("dangling.wav")
        try #require(symlink(directory.file("nowhere.wav").path, dangling.path) == 0)
        for overwrite in [false, true] {
            #expect(Self.refusal { _ = try OutputFile(url: folder, overwrite: overwrite, inputs: []) } == "a folder has that name")
            #expect(Self.refusal { _ = try OutputFile(url: URL(fileURLWithPath: socketPath), overwrite: overwrite, inputs: []) }
                    == "it is a socket; refusing to replace it")
            #expect(Self.refusal { _ = try OutputFile(url: dangling, overwrite: overwrite, inputs: []) }
                    == "it is a symbolic link to a missing file")
        }
        #expect(Self.kind(folder.path) == S_IFDIR && Self.kind(socketPath) == S_IFSOCK && Self.kind(dangling.path) == S_IFLNK)
        #expect(directory.contents == ["dangling.wav", "folder.wav", "s.wav"], "no temporary file anywhere")
    }

    @Test("a FIFO is written in place and never replaced, with or without overwrite")
    func fifoWrittenInPlace() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("p.wav")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        for overwrite in [false, true] {
            let output = try OutputFile(url: fifo, overwrite: overwrite, inputs: [])
            #expect(output.placement == .writtenInPlace)
            #expect(output.temporaryURL.path == fifo.path)
            #expect(!output.isSeekable)
            #expect(output.temporaryFolder.path != directory.url.path, "scratch data goes to the system's temporary folder")
            try output.commit()
            output.discard()
        }
        #expect(Self.kind(fifo.path) == S_IFIFO)
        #expect(directory.contents == ["p.wav"])
    }

    @Test("a link to a file is followed: its target is replaced and the link stays a link")
    func linkFollowed() throws {
        let directory = try TemporaryDirectory()
        try FileManager.default.createDirectory(at: directory.file("real"), withIntermediateDirectories: false)
        let real = directory.file("real/out.wav")
        try Data("old".utf8).write(to: real)
        let link = directory.file("link.wav")
        try #require(symlink(real.path, link.path) == 0)
        #expect(throws: ReverseAudioError.output(.outputExists(path: link.path))) {
            _ = try OutputFile(url: link, overwrite: false, inputs: [])
        }
        let output = try OutputFile(url: link, overwrite: true, inputs: [])
        #expect(output.target.resolvingSymlinksInPath().path == real.resolvingSymlinksInPath().path)
        #expect(output.temporaryURL.deletingLastPathComponent().lastPathComponent == "real", "written beside the target")
        try Data("new".utf8).write(to: output.temporaryURL)
        try output.commit()
        #expect(Self.kind(link.path) == S_IFLNK)
        #expect(try Self.text(real) == "new")
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.file("real").path) == ["out.wav"])
    }

    @Test("an output that is one of the inputs, by another spelling or a hard link, is refused even with overwrite")
    func outputIsInput() throws {
        let directory = try TemporaryDirectory()
        let input = directory.file("in.wav")
        try Data("audio".utf8).write(to: input)
        try #require(link(input.path, directory.file("hard.wav").path) == 0)
        let spellings = [input, URL(fileURLWithPath: directory.url.path + "/./in.wav"), directory.file("hard.wav")]
        for spelling in spellings {
            #expect(throws: ReverseAudioError.output(.outputIsInput(path: spelling.displayPath))) {
                _ = try OutputFile(url: spelling, overwrite: true, inputs: [input])
            }
        }
        #expect(try Self.text(input) == "audio")
        #expect(directory.contents == ["hard.wav", "in.wav"])
    }

    @Test("a missing folder, a file for a folder and a name too long are refused before any work, naming the reason")
    func placeRefused() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.file("none")
        #expect(Self.refusal { _ = try OutputFile(url: missing.appendingPathComponent("a.wav"), overwrite: false, inputs: []) }
                == "folder \(missing.path) does not exist")
        try Data().write(to: directory.file("file"))
        #expect(Self.refusal { _ = try OutputFile(url: directory.file("file/a.wav"), overwrite: false, inputs: []) }
                == "\(directory.file("file").path) is not a folder")
        let long = String(repeating: "n", count: 296) + ".wav"
        let reason = Self.refusal { _ = try OutputFile(url: directory.file(long), overwrite: false, inputs: []) }
        #expect(reason?.hasPrefix("the name is 300 bytes long; \(directory.url.path) allows at most") == true, "\(reason ?? "")")
        #expect(directory.contents == ["file"])
    }

    @Test("stale temporary files are swept only when of our pattern, a regular file, of a dead process and unlocked")
    func stalePartialsSwept() throws {
        let directory = try TemporaryDirectory()
        // A process that cannot be alive: above any pid_max Linux allows (2^22).
        let dead = ".reverse-audio-2147483646-1a2b.partial"
        let own = ".reverse-audio-\(getpid())-ff.partial"
        let live = ".reverse-audio-1-ff.partial"
        let malformed = [".reverse-audio-xyz.partial", ".reverse-audio-2147483646-zz.partial", ".reverse-audio-2147483646.partial",
                         "reverse-audio-2147483646-1a.partial"]
        for name in [dead, own, live] + malformed {
            try Data("x".utf8).write(to: directory.file(name))
        }
        let folder = ".reverse-audio-2147483646-abc.partial"
        try FileManager.default.createDirectory(at: directory.file(folder), withIntermediateDirectories: false)
        // Held by a run elsewhere (another PID namespace): its number says dead, its lock says alive.
        let held = ".reverse-audio-2147483645-beef.partial"
        guard case .success(let lock) = OwnershipLock.createFile(at: directory.file(held).path) else {
            Issue.record("could not lock")
            return
        }
        OutputFile.removeStalePartials(in: directory.url)
        #expect(directory.contents == ([own, live, folder, held] + malformed).sorted())
        lock.release()
        OutputFile.removeStalePartials(in: directory.url)
        #expect(directory.contents == ([own, live, folder] + malformed).sorted())
    }

    // MARK: NoReplaceRename and OwnershipLock

    @Test("the no-replace rename counts a dangling link and a folder as taken names, and reports a missing source")
    func noReplaceRenameEdges() throws {
        let directory = try TemporaryDirectory()
        let source = directory.file("a")
        try Data("new".utf8).write(to: source)
        try #require(symlink(directory.file("nowhere").path, directory.file("dangling").path) == 0)
        try FileManager.default.createDirectory(at: directory.file("folder"), withIntermediateDirectories: false)
        #expect(NoReplaceRename.rename(source.path, to: directory.file("dangling").path) == .failed(EEXIST))
        #expect(NoReplaceRename.rename(source.path, to: directory.file("folder").path) == .failed(EEXIST))
        #expect(NoReplaceRename.rename(directory.file("missing").path, to: directory.file("b").path) == .failed(ENOENT))
        #expect(Self.kind(directory.file("dangling").path) == S_IFLNK)
        #expect(directory.contents == ["a", "dangling", "folder"])
    }

    @Test("a locked file is not removed as abandoned; once released it is, by the closure, once")
    func ownershipLockOnFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.file("claim").path
        guard case .success(let lock) = OwnershipLock.createFile(at: path) else {
            Issue.record("could not create and lock")
            return
        }
        #expect(lock.path == path)
        guard case .failure(.taken) = OwnershipLock.createFile(at: path) else {
            Issue.record("a taken name was created again")
            return
        }
        let removed = Collected<String>()
        #expect(!OwnershipLock.removeIfAbandoned(path, isFolder: false) { removed.append($0) })
        #expect(removed.values.isEmpty && FileManager.default.fileExists(atPath: path))
        lock.release()
        lock.release()
        #expect(OwnershipLock.removeIfAbandoned(path, isFolder: false) { removed.append($0); unlink($0) })
        #expect(removed.values == [path])
        #expect(!OwnershipLock.removeIfAbandoned(path, isFolder: false) { removed.append($0) }, "nothing left to remove")
        guard case .failure(.failed(let code)) = OwnershipLock.createFile(at: directory.file("none/claim").path) else {
            Issue.record("a file was made in a missing folder")
            return
        }
        #expect(code == ENOENT)
    }

    @Test("a sweep never follows a link and never takes a folder for a file or a file for a folder")
    func ownershipLockKinds() throws {
        let directory = try TemporaryDirectory()
        let file = directory.file("file").path
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        try #require(symlink(file, directory.file("link").path) == 0)
        let folder = directory.file("folder").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let removed = Collected<String>()
        #expect(!OwnershipLock.removeIfAbandoned(directory.file("link").path, isFolder: false) { removed.append($0) })
        #expect(!OwnershipLock.removeIfAbandoned(folder, isFolder: false) { removed.append($0) })
        #expect(!OwnershipLock.removeIfAbandoned(file, isFolder: true) { removed.append($0) })
        #expect(removed.values.isEmpty)
        guard case .success(let lock) = OwnershipLock.lockFolder(at: folder) else {
            Issue.record("could not lock the folder")
            return
        }
        #expect(!OwnershipLock.removeIfAbandoned(folder, isFolder: true) { removed.append($0) })
        lock.release()
        #expect(OwnershipLock.removeIfAbandoned(folder, isFolder: true) { removed.append($0) })
        #expect(removed.values == [folder])
        guard case .failure(.taken) = OwnershipLock.lockFolder(at: directory.file("gone").path) else {
            Issue.record("a missing folder was locked")
            return
        }
    }

    // MARK: Names

    @Test("names as bytes: UTF-8 kept, other bytes and control characters escaped, a backslash doubled only before an escape's letter")
    func escapedNames() {
        let cases: [([UInt8], String)] = [
            (Array("song.mp3".utf8), "song.mp3"),
            (Array("café 🎵.flac".utf8), "café 🎵.flac"),
            ([0x63, 0x61, 0x66, 0xE9], #"caf\xE9"#),
            (Array(#"caf\xE9"#.utf8), #"caf\\xE9"#),
            (Array(#"a\b"#.utf8), #"a\b"#),
            (Array(#"end\"#.utf8), #"end\"#),
            (Array("a\nb\tc\r\u{1B}\u{7F}".utf8), #"a\nb\tc\r\x1B\x7F"#),
            (Array(#"a\n"#.utf8), #"a\\n"#),
            ([0x61, 0x5C, 0xE9], #"a\\\xE9"#),
            ([0xE2, 0x82], #"\xE2\x82"#),
            ([0xC0, 0x80], #"\xC0\x80"#),
            ([0xE2, 0x82, 0xAC, 0xFF], #"€\xFF"#),
            ([], ""),
        ]
        for (bytes, expected) in cases {
            #expect(ByteNames.escaped(bytes) == expected, "\(bytes)")
        }
        #expect(ByteNames.isUTF8(Array("é".utf8)) && !ByteNames.isUTF8([0xE9]) && ByteNames.isUTF8([UInt8]()))
        // Outputs are named from the escaped text: no two names may give the same.
        let tricky: [[UInt8]] = cases.map(\.0) + [[0x5C], [0x5C, 0x5C], [0x5C, 0x78], [0x5C, 0xE9], [0x5C, 0x5C, 0xE9], Array(#"\\xE9"#.utf8),
                                                 Array("\n".utf8), Array(#"\n"#.utf8), Array(#"\\n"#.utf8), [0x00], Array(#"\0"#.utf8),
                                                 [0xC2, 0x9B], Array(#"\u{9B}"#.utf8)]
        #expect(Set(tricky.map { ByteNames.escaped($0) }).count == Set(tricky).count)
    }

    @Test("a file whose name is not UTF-8 is reached through an alias and shown by its own name, escaped")
    func aliasForByteName() throws {
        let directory = try TemporaryDirectory()
        let folderBytes = Array(directory.url.path.utf8) + [UInt8(ascii: "/")] + [0x64, 0x69, 0x72, 0xFF]
        let fileBytes = folderBytes + [UInt8(ascii: "/")] + [0x63, 0x61, 0x66, 0xE9] + Array(".wav".utf8)
        try #require(ByteNames.withCString(folderBytes) { mkdir($0, 0o700) } == 0)
        let descriptor = ByteNames.withCString(fileBytes) { open($0, O_CREAT | O_WRONLY, 0o600) }
        try #require(descriptor >= 0)
        _ = "bytes".withCString { write(descriptor, $0, 5) }
        close(descriptor)
        defer {
            _ = ByteNames.withCString(fileBytes) { unlink($0) }
            _ = ByteNames.withCString(folderBytes) { rmdir($0) }
        }
        let shownFile = directory.url.path + #"/dir\xFF/caf\xE9.wav"#
        let alias = try ByteNames.url(forPath: fileBytes)
        #expect(alias.lastPathComponent == #"caf\xE9.wav"#, "its extension still tells the format")
        #expect(alias.pathExtension == "wav")
        #expect(try Self.text(alias) == "bytes")
        #expect(alias.displayPath == shownFile)
        // A folder's alias: what lies inside it is shown under the folder's own name.
        let folderAlias = try ByteNames.url(forPath: folderBytes)
        #expect(folderAlias.appendingPathComponent(#"caf\xE9.wav"#).displayPath == directory.url.path + #"/dir\xFF/caf\xE9.wav"#)
        #expect(ByteNames.display(forPath: directory.url.path) == nil)
        // A UTF-8 path is its own URL; an argument naming nothing stays its escaped text.
        #expect(try ByteNames.url(forPath: Array("/x/a.wav".utf8)).path == "/x/a.wav")
        #expect(ByteNames.argument(Array(directory.url.path.utf8) + [0x2F, 0xFE]) == directory.url.path + #"/\xFE"#)
        #expect(try Self.text(URL(fileURLWithPath: ByteNames.argument(fileBytes))) == "bytes")
    }

    @Test("display paths: relative stays relative, control characters escaped, credentials never shown")
    func displayPaths() throws {
        #expect(URL(fileURLWithPath: "live/a.wav").displayPath == "live/a.wav")
        #expect(URL(fileURLWithPath: "/music/a\nb\u{1B}[2J.wav").displayPath == #"/music/a\nb\x1B[2J.wav"#)
        let remote = try #require(URL(string: "https://user:secret@example.com/a%20b.mp3?t=1"))
        #expect(!remote.displayPath.contains("secret") && !remote.displayPath.contains("user"))
        #expect(remote.displayPath == "https://example.com/a%20b.mp3?t=1")
        #expect(remote.mediaLocation == remote.absoluteString, "FFmpeg gets the URL whole")
        #expect(remote.isRemote)
        #expect(try #require(URL(string: "HTTP://example.com/a.mp3")).isRemote)
        #expect(try #require(URL(string: "ftp://example.com/a.mp3")).isRemote == false)
        #expect(!URL(fileURLWithPath: "/http/a.mp3").isRemote)
        #expect(URL(fileURLWithPath: "/music/a b.wav").mediaLocation == "/music/a b.wav")
    }

    // MARK: ProcessCleanup

    @Test("folders are made with their parents; a file in the way is named in the refusal")
    func createFolder() throws {
        let directory = try TemporaryDirectory()
        let nested = directory.file("a/b/c")
        try ProcessCleanup.createFolder(nested)
        try ProcessCleanup.createFolder(nested)
        #expect(Self.kind(nested.path) == S_IFDIR)
        try Data().write(to: directory.file("file"))
        #expect(throws: ReverseAudioError.output(.cannotCreateOutput(path: directory.file("file").path,
                                                                     reason: "a file has that name, not a folder"))) {
            try ProcessCleanup.createFolder(directory.file("file"))
        }
        #expect(throws: ReverseAudioError.output(.cannotCreateOutput(path: directory.file("file/x/y").path,
                                                                     reason: "\(directory.file("file").path) is a file, not a folder"))) {
            try ProcessCleanup.createFolder(directory.file("file/x/y"))
        }
        // Through a link to a folder is fine.
        try #require(symlink(directory.file("a").path, directory.file("link").path) == 0)
        try ProcessCleanup.createFolder(directory.file("link/d"))
        #expect(Self.kind(directory.file("a/d").path) == S_IFDIR)
    }

    @Test("a tree is removed without following its links: what they point at stays")
    func removeTree() throws {
        let directory = try TemporaryDirectory()
        let outside = try TemporaryDirectory()
        try Data("keep".utf8).write(to: outside.file("song.wav"))
        try FileManager.default.createDirectory(at: outside.file("folder"), withIntermediateDirectories: false)
        try Data("keep".utf8).write(to: outside.file("folder/inner.wav"))
        let tree = directory.file("tree")
        try FileManager.default.createDirectory(at: tree.appendingPathComponent("x/y"), withIntermediateDirectories: true)
        try Data().write(to: tree.appendingPathComponent("x/y/z"))
        try #require(symlink(outside.file("song.wav").path, tree.appendingPathComponent("x/file-link").path) == 0)
        try #require(symlink(outside.file("folder").path, tree.appendingPathComponent("folder-link").path) == 0)
        ProcessCleanup.removeTree(tree.path)
        #expect(directory.contents.isEmpty)
        #expect(try Self.text(outside.file("folder/inner.wav")) == "keep")
        #expect(try Self.text(outside.file("song.wav")) == "keep")
        ProcessCleanup.removeTree(tree.path)
        // A link given as the tree itself: the link goes, never its target.
        try #require(symlink(outside.file("folder").path, directory.file("top-link").path) == 0)
        ProcessCleanup.removeTree(directory.file("top-link").path)
        #expect(directory.contents.isEmpty)
        #expect(outside.contents == ["folder", "song.wav"])
    }
}
