import Foundation

/// Saved sessions: one cookie jar per portal and user, so the next run skips the login.
///
/// The files hold session cookies, which are as good as a password while they last, so they
/// are written atomically with mode 0600 under `$XDG_STATE_HOME/unitool/sessions`.
public struct SessionStore: Sendable {
    public let directory: URL

    public init(directory: URL) {
        self.directory = directory
    }

    public func file(portal: String, user: String) -> URL {
        directory.appendingPathComponent(PrivateFile.safeName(portal)).appendingPathComponent(PrivateFile.safeName(user) + ".json")
    }

    /// The saved jar, or an empty one. A damaged file is not fatal: the session is only a
    /// shortcut, so unitool logs in again and overwrites it.
    public func load(portal: String, user: String) -> CookieJar {
        let data: Data?
        do {
            data = try PrivateFile.read(
                file(portal: portal, user: user),
                exposure: localized("Anyone who read it could use the session: end it with 'unitool auth logout' to be safe."))
        } catch let error as UniToolError {
            PrivateFile.warn(localized("\(error.message); logging in afresh instead"))
            return CookieJar()
        } catch {
            return CookieJar()
        }
        guard let data, var jar = try? Self.decode(data) else { return CookieJar() }
        jar.removeExpired()
        return jar
    }

    /// The file's identity and version: another process's save changes it.
    public func stamp(portal: String, user: String) -> FileStamp? {
        FileStamp(of: file(portal: portal, user: user))
    }

    /// The saved form of a jar: JSON, dates in ISO 8601.
    public static func encode(_ jar: CookieJar) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(jar)
    }

    public static func decode(_ data: Data) throws -> CookieJar {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(CookieJar.self, from: data)
    }

    public func save(_ jar: CookieJar, portal: String, user: String) throws {
        let target = file(portal: portal, user: user)
        let data = try Self.encode(jar)
        // Several unitool processes may finish at once (cron, a front end, a terminal): the
        // lock keeps their writes in turn, and the atomic rename keeps readers safe meanwhile.
        try FileLock.withExclusiveLock(beside: target) {
            try AtomicFile.write(data, to: target, mode: 0o600)
        }
    }

    /// Removes the saved session, and any copy of it that a killed unitool left half-written.
    public func remove(portal: String, user: String) throws {
        let target = file(portal: portal, user: user)
        AtomicFile.sweepStaleTemporaries(of: target)
        if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(atPath: target.path) }
    }

    /// Whether sessions of this portal and user can be saved: the folder can be made and the
    /// login lock opened. A read-only state folder is no reason to refuse a command; the
    /// caller warns and goes on without saving.
    public func isWritable(portal: String, user: String) -> Bool {
        let target = file(portal: portal, user: user)
        try? FileManager.default.createDirectory(
            at: target.deletingLastPathComponent(), withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700])
        let descriptor = open(target.path + ".login.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        close(descriptor)
        return access(target.deletingLastPathComponent().path, W_OK) == 0
    }

    public func exists(portal: String, user: String) -> Bool {
        FileManager.default.fileExists(atPath: file(portal: portal, user: user).path)
    }
}
