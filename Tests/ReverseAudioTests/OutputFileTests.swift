import Foundation
import Testing
import TestSupport
@testable import ReverseAudio
@testable import ReverseAudioCore
@testable import ReverseAudioFFmpeg
@testable import ReverseAudioPlayback
@testable import ReverseAudioVideo

/// How outputs are placed: by what is at the path, never by its prefix; published without
/// replacing unless asked.
@Suite struct OutputFileTests {
    @Test("the no-replace rename refuses a taken name and leaves both files as they were")
    func noReplaceRename() throws {
        let directory = try TemporaryDirectory()
        let source = directory.file("a")
        let taken = directory.file("b")
        try Data("new".utf8).write(to: source)
        try Data("old".utf8).write(to: taken)
        #expect(NoReplaceRename.rename(source.path, to: taken.path) == .failed(EEXIST))
        #expect(try String(contentsOf: taken, encoding: .utf8) == "old")
        #expect(try String(contentsOf: source, encoding: .utf8) == "new")
        #expect(NoReplaceRename.rename(source.path, to: directory.file("c").path) == .renamed)
        #expect(directory.contents == ["b", "c"])
    }

    @Test("only our own descriptors' names are written in place; other names under /dev and /proc are judged by what is there")
    func descriptorNames() throws {
        #expect(OutputFile.namesOpenDescriptor(URL(fileURLWithPath: "/dev/stdout")))
        #expect(OutputFile.namesOpenDescriptor(URL(fileURLWithPath: "/dev/fd/3")))
        #expect(OutputFile.namesOpenDescriptor(URL(fileURLWithPath: "/proc/self/fd/1")))
        #expect(!OutputFile.namesOpenDescriptor(URL(fileURLWithPath: "/dev/shm/song.wav")))
        #expect(!OutputFile.namesOpenDescriptor(URL(fileURLWithPath: "/proc/song.wav")))
        #expect(OutputFile.descriptorNumber(URL(fileURLWithPath: "/dev/stdout")) == 1)
        #expect(OutputFile.descriptorNumber(URL(fileURLWithPath: "/dev/fd/7")) == 7)
        let missing = URL(fileURLWithPath: "/dev/shm/\(UUID().uuidString).wav")
        #expect(try OutputFile.resolve(missing).kind == .missing)
    }

    @Test("a spooled output (a pipe for a format that seeks back) leaves no file anywhere when abandoned")
    func spoolLeavesNothing() throws {
        let directory = try TemporaryDirectory()
        let fifo = directory.file("p.aiff")
        try #require(mkfifo(fifo.path, 0o644) == 0)
        let before = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
        do {
            let output = try OutputFile(url: fifo, overwrite: true, inputs: [], requiresSeekableFile: true)
            #expect(output.placement == .spooled)
            #expect(output.isSeekable)
            #expect(output.temporaryURL.path.hasPrefix("/dev/fd/"))
        }
        let after = Set((try? FileManager.default.contentsOfDirectory(atPath: NSTemporaryDirectory())) ?? [])
        #expect(after.subtracting(before).filter { $0.hasPrefix(".reverse-audio") }.isEmpty)
        #expect(directory.contents == ["p.aiff"])
    }
}
