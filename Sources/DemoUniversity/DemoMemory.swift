import Foundation

/// The demo's memory across runs, `demo.json`: renewals, posted grades, purchase requests and
/// absences.
///
/// Several processes share the file: the demo each `--portal demo` command starts, a running
/// `unitool demo serve`, and `unitool demo post-grade` and its kin. So a change is made under the
/// file's lock on what the file holds at that moment (never on what a process read when it
/// started, which would undo another's change), written atomically, and a reader notices a newer
/// file by its identity (`Signature`) at its next request.
struct DemoMemory: Sendable {
    struct Remembered: Codable, Equatable, Sendable {
        struct PostedGrade: Codable, Equatable, Sendable {
            var grade: String
            var points: Double?
            var date: String
        }
        var renewals: [String: Int] = [:]
        var postedGrades: [String: PostedGrade] = [:]
        /// Optional, so that a file from before them still reads.
        var purchaseRequests: [String: [DemoPurchaseRequest]]? = nil
        var absences: [String: [Int]]? = nil
    }

    /// Which file is there now: a write renames a new file in, so its inode (and time) change.
    struct Signature: Equatable, Sendable {
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int64
        let modifiedNanoseconds: Int64
    }

    let file: URL

    init(_ file: URL) { self.file = file }

    func signature() -> Signature? {
        var info = stat()
        guard stat(file.path, &info) == 0 else { return nil }
        return Signature(
            device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size), modified: Int64(info.st_mtim.tv_sec),
            modifiedNanoseconds: Int64(info.st_mtim.tv_nsec))
    }

    /// What the file holds; a missing or unreadable file is a fresh demo, not a failure: it is
    /// only the demo's memory.
    func load() -> Remembered { loaded() ?? Remembered() }

    /// What the file holds, a fresh demo when there is no file, or nil when a file is there but
    /// cannot be read or is not the demo's memory: such a file is left as it is, never written
    /// over with an empty state (`update`).
    func loaded() -> Remembered? {
        guard let data = try? Data(contentsOf: file) else { return access(file.path, F_OK) == 0 ? nil : Remembered() }
        return try? JSONDecoder().decode(Remembered.self, from: data)
    }

    /// Runs `body` on what the file holds now, under its lock, and writes the result back
    /// atomically. Returns `body`'s result, what it made, and whether that was written: a demo
    /// whose file cannot be written goes on, forgetful; `demo post-grade` fails.
    @discardableResult
    func update<T>(_ body: (inout Remembered) throws -> T) rethrows -> (result: T, now: Remembered, written: Bool) {
        let folder = file.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let lock = open(folder.appendingPathComponent(".\(file.lastPathComponent).lock").path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        if lock >= 0 { flock(lock, LOCK_EX) }
        defer {
            if lock >= 0 {
                flock(lock, LOCK_UN)
                close(lock)
            }
        }
        // Without the lock, or over a file that cannot be read, a change is made in memory only:
        // writing it would lose another process's change, or the whole of an unreadable file.
        guard lock >= 0, var remembered = loaded() else {
            var fresh = load()
            let result = try body(&fresh)
            return (result, fresh, false)
        }
        let result = try body(&remembered)
        return (result, remembered, write(remembered))
    }

    /// Back to the demo's start: the file goes, under the lock, so that no change is half-undone.
    func reset() throws {
        // Under the lock, so that a change being made meanwhile is not half-undone; the file
        // then goes, so that the demo is as it ships.
        let folder = file.deletingLastPathComponent()
        let lock = open(folder.appendingPathComponent(".\(file.lastPathComponent).lock").path, O_RDWR | O_CLOEXEC)
        if lock >= 0 { flock(lock, LOCK_EX) }
        defer {
            if lock >= 0 {
                flock(lock, LOCK_UN)
                close(lock)
            }
        }
        if unlink(file.path) != 0, errno != ENOENT {
            throw DemoChangeError.unwritable("\(file.path): \(String(cString: strerror(errno)))")
        }
    }

    /// A temporary file renamed over the old one, so that two processes ending at once leave one
    /// whole file, and a reader never sees half of one.
    private func write(_ remembered: Remembered) -> Bool {
        guard let data = try? JSONEncoder().encode(remembered) else { return false }
        let folder = file.deletingLastPathComponent()
        let temporary = folder.appendingPathComponent(".\(file.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            return false
        }
        guard rename(temporary.path, file.path) == 0 else {
            try? FileManager.default.removeItem(at: temporary)
            return false
        }
        return true
    }

    static func adding(day: Int, to absences: [String: [Int]]?, key: String) -> [String: [Int]] {
        var all = absences ?? [:]
        all[key, default: []].append(day)
        return all
    }

    /// `user` with the grades posted for them (by `user/term/code`).
    static func applying(_ posted: [String: Remembered.PostedGrade], to user: DemoUser) -> DemoUser {
        var user = user
        for (term, grades) in user.grades {
            user.grades[term] = grades.map { grade in
                guard let change = posted["\(user.username)/\(term)/\(grade.code)"] else { return grade }
                var changed = grade
                changed.grade = change.grade
                changed.points = change.points
                changed.date = change.date
                return changed
            }
        }
        return user
    }
}
