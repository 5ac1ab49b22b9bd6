import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A rename that fails with `EEXIST` instead of replacing what is at the new name, atomically:
/// Linux's `renameat2(RENAME_NOREPLACE)`, macOS's `renamex_np(RENAME_EXCL)`.
enum NoReplaceRename {
    /// What a rename attempt did.
    enum Outcome: Equatable {
        case renamed
        /// It failed with this `errno` (`EEXIST`: the name is taken).
        case failed(Int32)
        /// The system or the filesystem has no such rename: use another way.
        case unsupported
    }

    static func rename(_ source: String, to destination: String) -> Outcome {
        #if os(Linux)
        guard let renameat2 else { return .unsupported }
        // RENAME_NOREPLACE is (1 << 0) in <linux/fs.h>, a kernel ABI constant.
        if renameat2(AT_FDCWD, source, AT_FDCWD, destination, 1) == 0 { return .renamed }
        let code = errno
        // EINVAL: this filesystem does not take the flag; ENOSYS: the kernel lacks the call.
        return [EINVAL, ENOSYS, EOPNOTSUPP].contains(code) ? .unsupported : .failed(code)
        #elseif canImport(Darwin)
        if renamex_np(source, destination, UInt32(RENAME_EXCL)) == 0 { return .renamed }
        let code = errno
        return [EINVAL, ENOTSUP].contains(code) ? .unsupported : .failed(code)
        #else
        return .unsupported
        #endif
    }

    #if os(Linux)
    private typealias RenameAt2 = @convention(c) (Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32) -> Int32

    /// glibc (2.28 and later) declares `renameat2` only under `_GNU_SOURCE`, which Swift's Glibc
    /// module does not define, so it is looked up when first needed.
    private static let renameat2: RenameAt2? = {
        // RTLD_DEFAULT is a null handle in glibc: search every loaded library.
        guard let symbol = dlsym(nil, "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()
    #endif
}
