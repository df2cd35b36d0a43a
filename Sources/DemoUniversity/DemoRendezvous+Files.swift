import Foundation
import MessageDigest

/// Why a rendezvous could not be written.
public struct DemoRendezvousError: Error, CustomStringConvertible {
    public let description: String
}

extension DemoRendezvous {
    /// Writes the file at `location` atomically (a new file, mode 0600, renamed over any old
    /// one), in a folder made or kept 0700 and the user's own. A folder that another user owns,
    /// or a symlink in its place, is refused: someone else could then read the key or swap the file.
    public func publish(at location: URL) throws {
        let folder = location.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var info = stat()
        guard lstat(folder.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else {
            throw DemoRendezvousError(description: "\(folder.path) is not a directory")
        }
        guard info.st_uid == getuid() else {
            throw DemoRendezvousError(description: "\(folder.path) belongs to another user (\(info.st_uid))")
        }
        if info.st_mode & 0o077 != 0, chmod(folder.path, 0o700) != 0 {
            throw DemoRendezvousError(description: "\(folder.path) is open to others and cannot be made 0700")
        }
        let data = try JSONEncoder().encode(self)
        let temporary = folder.appendingPathComponent(".\(location.lastPathComponent).\(getpid()).tmp")
        unlink(temporary.path)
        let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw DemoRendezvousError(description: "cannot create \(temporary.path): \(String(cString: strerror(errno)))")
        }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        fsync(descriptor)
        close(descriptor)
        guard written == data.count, rename(temporary.path, location.path) == 0 else {
            unlink(temporary.path)
            throw DemoRendezvousError(description: "cannot write \(location.path)")
        }
    }

    /// Removes the file at `location` if it is still this one (another `demo serve` may have
    /// replaced it since).
    public func withdraw(at location: URL) {
        guard let data = try? Data(contentsOf: location), let current = try? JSONDecoder().decode(DemoRendezvous.self, from: data),
            current.key == key
        else { return }
        unlink(location.path)
    }

    /// What looking for a served demo found.
    public enum Lookup: Sendable, Equatable {
        /// The user's own `demo serve` for this state file, proven.
        case found(URL)
        /// No rendezvous file.
        case none
        /// A file that was not used, and why; `removed` when it was the user's own stale file.
        case ignored(String, removed: Bool)
    }

    /// Looks for the `demo serve` of this user and `stateFile`: the rendezvous file checked by
    /// `judge`, the process alive, and the server proving it holds the key. A stale file of the
    /// user's own is removed; someone else's is left alone.
    public static func find(stateFile: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> Lookup {
        let location = location(stateFile: stateFile, environment: environment)
        let descriptor = open(location.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK)
        guard descriptor >= 0 else {
            if errno == ENOENT { return .none }
            if errno == ELOOP { return .ignored("\(location.path) is a symlink", removed: false) }
            return .ignored("\(location.path): \(String(cString: strerror(errno)))", removed: false)
        }
        var file = stat()
        var folder = stat()
        guard fstat(descriptor, &file) == 0, lstat(location.deletingLastPathComponent().path, &folder) == 0 else {
            close(descriptor)
            return .ignored("\(location.path) cannot be examined", removed: false)
        }
        var bytes: [UInt8] = []
        if file.st_mode & S_IFMT == S_IFREG {
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count > 0 { bytes = Array(buffer[..<count]) }
        }
        close(descriptor)
        let facts = FileFacts(
            owner: file.st_uid, mode: file.st_mode & 0o7777, isRegularFile: file.st_mode & S_IFMT == S_IFREG, folderOwner: folder.st_uid,
            folderMode: folder.st_mode & 0o7777, folderIsDirectory: folder.st_mode & S_IFMT == S_IFDIR)
        // A stale file is removed only if it is still the one read: a `demo serve` starting
        // meanwhile renames a new file into place, which must stay.
        let (device, inode) = (file.st_dev, file.st_ino)
        func removeIfUnchanged() -> Bool {
            var now = stat()
            guard lstat(location.path, &now) == 0, now.st_dev == device, now.st_ino == inode else { return false }
            return unlink(location.path) == 0
        }
        switch judge(contents: Data(bytes), facts: facts, user: getuid(), stateFile: stateFile.standardizedFileURL.path) {
        case .refused(let reason):
            return .ignored("\(location.path): \(reason)", removed: false)
        case .stale(let reason):
            return .ignored("\(location.path): \(reason)", removed: removeIfUnchanged())
        case .candidate(let rendezvous):
            // kill(pid, 0) fails with EPERM for another user's process: not our server either.
            guard kill(rendezvous.pid, 0) == 0 else {
                return .ignored("\(location.path): its process \(rendezvous.pid) is gone", removed: removeIfUnchanged())
            }
            switch rendezvous.probe() {
            case .proven: return .found(rendezvous.url)
            case .nothingListens:
                return .ignored("\(location.path): nothing listens on port \(rendezvous.port)", removed: removeIfUnchanged())
            case .notProven(let reason):
                return .ignored("\(location.path): the server on port \(rendezvous.port) is not this demo (\(reason))", removed: false)
            }
        }
    }

    enum Probe: Equatable {
        case proven
        case nothingListens
        case notProven(String)
    }

    /// Asks the server on the file's port for the proof of a fresh nonce, waiting up to 2 seconds
    /// in all: a serve busy with other requests still answers, and one that hangs costs a
    /// command 2 seconds before it starts a demo of its own.
    /// - Parameter limit: the whole probe's time, not each read's: a listener that trickles a
    ///   byte now and then cannot hold a command longer than this.
    func probe(within limit: Duration = .seconds(2)) -> Probe {
        let deadline = ContinuousClock.now + limit
        func millisecondsLeft() -> Int32 {
            let left = deadline - ContinuousClock.now
            let (seconds, attoseconds) = left.components
            return left <= .zero ? 0 : Int32(clamping: seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1)
        }
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return .notProven("no socket") }
        defer { close(socket) }
        var timeout = timeval(tv_sec: Int(limit.components.seconds) + 1, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { return errno == ECONNREFUSED ? .nothingListens : .notProven("no connection") }
        let nonce = Self.newKey()
        let request = Array(
            "GET \(Self.proofPath)?nonce=\(nonce) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else {
            return .notProven("the request could not be sent")
        }
        var answer: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 2048)
        while answer.count < 8192 {
            var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, millisecondsLeft())
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { break }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answer += buffer[..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard text.lowercased().hasPrefix("http/1.1 200"), let body = text.range(of: "\r\n\r\n") else {
            return .notProven("no proof in its answer")
        }
        let expected = Array(proof(nonce: nonce).utf8)
        let given = Array(text[body.upperBound...].utf8).filter { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        guard MessageDigest.constantTimeEqual(given, expected) else { return .notProven("a wrong proof") }
        return .proven
    }
}
