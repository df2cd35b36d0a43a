import Foundation

// How unitool keeps its own files: written atomically, private to the user, and checked when read.

/// Which file, and which version of it: an atomic rename gives a new inode, a write a new time.
public struct FileStamp: Sendable, Equatable {
    let device: UInt64
    let inode: UInt64
    let size: Int64
    let modified: Int
    let modifiedNanoseconds: Int

    /// - Parameter followingLinks: stamp what a symbolic link points to (a recipe folder read
    ///   through one, as the catalog reads it), rather than the link itself.
    public init?(of url: URL, followingLinks: Bool = false) {
        self.init(path: url.path, followingLinks: followingLinks)
    }

    init?(path: String, followingLinks: Bool = false) {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = Int(info.st_mtim.tv_sec)
        modifiedNanoseconds = Int(info.st_mtim.tv_nsec)
    }

    /// A stamp as it was written down (`RecipeIndex`).
    init(device: UInt64, inode: UInt64, size: Int64, modified: Int, modifiedNanoseconds: Int) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modified = modified
        self.modifiedNanoseconds = modifiedNanoseconds
    }
}

/// Reads a file that must be private to the user (a saved session, the settings, accepted terms).
///
/// A file that others can read is fixed (chmod 0600) with a warning on stderr, as ssh does for
/// its keys; a file that belongs to another user, or is not a regular file, is refused.
public enum PrivateFile {
    /// Keeps a user or portal name from escaping the directory it names a file in.
    static func safeName(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@")
        let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" })
        return cleaned.hasPrefix(".") ? "_" + cleaned : cleaned
    }

    /// The file's bytes, or nil when it does not exist.
    ///
    /// - Parameters:
    ///   - allowSymlink: follow a symbolic link (for the settings file, which dotfile managers
    ///     link); the file it points to must still be the user's own.
    ///   - exposure: what to do if others could read it, for the warning.
    public static func read(_ url: URL, allowSymlink: Bool = false, exposure: String? = nil) throws -> Data? {
        // O_NONBLOCK: a FIFO planted at the path must not hang the open; it is refused below.
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC | (allowSymlink ? 0 : O_NOFOLLOW) | O_NONBLOCK)
        let openError = errno
        guard descriptor >= 0 else {
            if openError == ENOENT { return nil }
            if openError == ELOOP {
                throw UniToolError(
                    .stateCorrupt, localized("\(url.path) is a symbolic link; unitool keeps its private files as plain files"),
                    hint: localized("remove the link; unitool writes a new file"))
            }
            let reason = String(cString: strerror(openError))
            throw UniToolError(
                .stateCorrupt, localized("cannot read \(url.path): \(reason)"),
                hint: localized("check the file's permissions"))
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw UniToolError(
                .stateCorrupt, localized("\(url.path) is not a regular file"), hint: localized("remove it; unitool writes a new file"))
        }
        guard info.st_uid == geteuid() else {
            throw UniToolError(
                .stateCorrupt, localized("\(url.path) belongs to another user (uid \(info.st_uid)); unitool will not trust it"),
                hint: localized("remove it, or check who else writes to your unitool folders"))
        }
        let permissions = info.st_mode & 0o777
        if permissions & 0o077 != 0 {
            let mode = String(permissions, radix: 8)
            if fchmod(descriptor, 0o600) == 0 {
                warn(
                    exposure.map { exposure in localized("\(url.path) was readable by others (mode \(mode)); it is now 0600. \(exposure)") }
                        ?? localized("\(url.path) was readable by others (mode \(mode)); it is now 0600."))
            } else {
                throw UniToolError(
                    .stateCorrupt, localized("\(url.path) is readable by others (mode \(mode)) and cannot be fixed"),
                    hint: localized("run 'chmod 600 \(url.path)'"))
            }
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            // The buffer is never empty here, so it has an address.
            let count = buffer.withUnsafeMutableBytes { Foundation.read(descriptor, $0.baseAddress!, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                throw UniToolError(.stateCorrupt, localized("cannot read \(url.path): \(reason)"))
            }
            if count == 0 { break }
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }

    /// A warning for the user, on stderr whatever the output format: it is never data.
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data((localized("unitool: warning: \(message)") + "\n").utf8))
    }
}

/// Writes a file so that a reader sees either the old content or the new, never half of it,
/// even if unitool is killed midway: write a temporary file beside it, flush, then rename.
public enum AtomicFile {
    public static func write(_ data: Data, to url: URL, mode: mode_t = 0o600) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        sweepStaleTemporaries(of: url)
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw UniToolError(
                .stateCorrupt, localized("cannot write \(url.path): \(reason)"), hint: localized("check that the directory is writable"))
        }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                // The buffer is never empty here, so it has an address.
                let written = Foundation.write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = errno
                    return
                }
                offset += written
            }
        }
        if failure == 0 && fsync(descriptor) != 0 { failure = errno }
        close(descriptor)
        if failure == 0 && rename(temporary.path, url.path) != 0 { failure = errno }
        if failure != 0 {
            unlink(temporary.path)
            let reason = String(cString: strerror(failure))
            throw UniToolError(
                .stateCorrupt, localized("cannot write \(url.path): \(reason)"),
                hint: localized("check free disk space and permissions; the previous file is unchanged"))
        }
    }
}

extension AtomicFile {
    /// Removes the temporary copies of `url` that a killed unitool left behind
    /// (`.NAME.PID.N.tmp`, whose process no longer runs). A session's copy holds its cookies, so
    /// it must not outlive the process that wrote it. Returns how many were removed.
    @discardableResult
    public static func sweepStaleTemporaries(of url: URL) -> Int {
        let directory = url.deletingLastPathComponent()
        let prefix = ".\(url.lastPathComponent)."
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return 0 }
        var removed = 0
        for name in names where name.hasPrefix(prefix) && name.hasSuffix(".tmp") {
            let middle = name.dropFirst(prefix.count).dropLast(".tmp".count)
            guard let pidText = middle.split(separator: ".").first, let pid = pid_t(pidText) else { continue }
            if pid == getpid() || !isProcessGone(pid) { continue }
            if unlink(directory.appendingPathComponent(name).path) == 0 { removed += 1 }
        }
        return removed
    }

    /// True when no process has this id (a process of another user still counts as running).
    static func isProcessGone(_ pid: pid_t) -> Bool {
        kill(pid, 0) != 0 && errno == ESRCH
    }
}

/// An advisory `flock(2)` lock that async code can wait for without blocking a thread: it asks
/// again every 50 ms. Released when the value is released.
public final class AsyncFileLock: Sendable {
    private let descriptor: Int32
    /// True when another process held the lock and this one had to wait.
    public let waited: Bool

    private init(descriptor: Int32, waited: Bool) {
        self.descriptor = descriptor
        self.waited = waited
    }

    /// Takes the lock on `path`, waiting up to `timeout`. `whileWaiting` is told once, when the
    /// lock is found held: the person behind the command should know why nothing happens.
    public static func acquire(
        _ path: String, timeout: Duration = .seconds(120), whileWaiting: (@Sendable () -> Void)? = nil
    ) async throws -> AsyncFileLock {
        let descriptor = try FileLock.openLockFile(path)
        let deadline = ContinuousClock.now + timeout
        var waited = false
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let lockError = errno
            guard lockError == EWOULDBLOCK || lockError == EINTR else {
                close(descriptor)
                let reason = String(cString: strerror(lockError))
                throw UniToolError(
                    .stateCorrupt, localized("cannot lock \(path): \(reason)"),
                    hint: localized("unitool's state folder must be on a file system that supports flock(2)"))
            }
            guard ContinuousClock.now < deadline else {
                close(descriptor)
                throw UniToolError(
                    .stateCorrupt,
                    localized(
                        "another unitool process has been logging in to this portal as this user for more than \(timeout) (it may be waiting for a password or a one-time code)"
                    ),
                    hint: localized("finish or stop the other unitool, then try again"))
            }
            if !waited { whileWaiting?() }
            waited = true
            do {
                try await Task.sleep(for: .milliseconds(50))
            } catch {
                close(descriptor)
                throw error
            }
        }
        return AsyncFileLock(descriptor: descriptor, waited: waited)
    }

    deinit { close(descriptor) }
}

/// An advisory `flock(2)` lock on `<file>.lock`, held while `body` runs.
public enum FileLock {
    public static func withExclusiveLock<T>(beside file: URL, _ body: () throws -> T) throws -> T {
        let path = file.path + ".lock"
        let descriptor = try openLockFile(path)
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                let reason = String(cString: strerror(errno))
                throw UniToolError(.stateCorrupt, localized("cannot lock \(path): \(reason)"))
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }

    /// Opens (creating it, and its private folder, if need be) a lock file of mode 0600.
    static func openLockFile(_ path: String) throws -> Int32 {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw UniToolError(
                .stateCorrupt, localized("cannot lock \(path): \(reason)"), hint: localized("check that the directory is writable"))
        }
        return descriptor
    }
}
