import Foundation

/// Saved sessions: one cookie jar per portal and user, so the next run skips the login.
///
/// The files hold session cookies, which are as good as a password while they last, so they
/// are written atomically with mode 0600 under `$XDG_STATE_HOME/unitool/sessions`.
public struct SessionStore: Sendable {
    public let directory: URL

    public init(directory: URL = XDGDirectories.state.appendingPathComponent("sessions")) {
        self.directory = directory
    }

    public func file(portal: String, user: String) -> URL {
        directory.appendingPathComponent(Self.safeName(portal)).appendingPathComponent(Self.safeName(user) + ".json")
    }

    /// The saved jar, or an empty one. A damaged file is not fatal: the session is only a
    /// shortcut, so unitool logs in again and overwrites it.
    public func load(portal: String, user: String) -> CookieJar {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let data = try? Data(contentsOf: file(portal: portal, user: user)),
            var jar = try? decoder.decode(CookieJar.self, from: data)
        else { return CookieJar() }
        jar.removeExpired()
        return jar
    }

    public func save(_ jar: CookieJar, portal: String, user: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let target = file(portal: portal, user: user)
        let data = try encoder.encode(jar)
        // Several unitool processes may finish at once (cron, a front end, a terminal): the
        // lock keeps their writes in turn, and the atomic rename keeps readers safe meanwhile.
        try FileLock.withExclusiveLock(beside: target) {
            try AtomicFile.write(data, to: target, mode: 0o600)
        }
    }

    public func remove(portal: String, user: String) throws {
        let path = file(portal: portal, user: user).path
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
    }

    public func exists(portal: String, user: String) -> Bool {
        FileManager.default.fileExists(atPath: file(portal: portal, user: user).path)
    }

    /// Keeps a user or portal name from escaping the directory.
    static func safeName(_ name: String) -> String {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.@")
        let cleaned = String(name.map { allowed.contains($0) ? $0 : "_" })
        return cleaned.hasPrefix(".") ? "_" + cleaned : cleaned
    }
}

/// Writes a file so that a reader sees either the old content or the new, never half of it,
/// even if unitool is killed midway: write a temporary file beside it, flush, then rename.
public enum AtomicFile {
    public static func write(_ data: Data, to url: URL, mode: mode_t = 0o600) throws {
        let directory = url.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw UniToolError(
                .stateCorrupt, "cannot write \(url.path): \(String(cString: strerror(errno)))",
                hint: "check that the directory is writable")
        }
        var failure: Int32 = 0
        data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
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
            throw UniToolError(
                .stateCorrupt, "cannot write \(url.path): \(String(cString: strerror(failure)))",
                hint: "check free disk space and permissions; the previous file is unchanged")
        }
    }
}

/// An advisory `flock(2)` lock on `<file>.lock`, held while `body` runs.
public enum FileLock {
    public static func withExclusiveLock<T>(beside file: URL, _ body: () throws -> T) throws -> T {
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let path = file.path + ".lock"
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw UniToolError(
                .stateCorrupt, "cannot lock \(path): \(String(cString: strerror(errno)))",
                hint: "check that the directory is writable")
        }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw UniToolError(.stateCorrupt, "cannot lock \(path): \(String(cString: strerror(errno)))")
            }
        }
        defer { flock(descriptor, LOCK_UN) }
        return try body()
    }
}
