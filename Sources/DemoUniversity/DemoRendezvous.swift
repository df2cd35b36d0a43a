import Foundation
import MessageDigest

/// How `unitool demo serve` is found by the commands of the same user and the same state
/// directory, and by no one else's.
///
/// A served demo binds a free loopback port and writes this file, mode 0600 in a 0700 folder of
/// `$XDG_RUNTIME_DIR` (the state folder when that is unset), named after the state file it
/// serves. A command reads it only when the file and its folder are the user's own and closed to
/// others, names the same state file, and the process is alive; then it asks the server to prove
/// it holds the file's random key (an HMAC of a fresh nonce), so that a port another user bound
/// after the demo died, or a file pointing at someone else's server, is never used. A loopback
/// port is open to every user of the machine; the key is what makes it this user's demo.
public struct DemoRendezvous: Codable, Sendable, Equatable {
    public static let formatVersion = 1

    public var version: Int
    public var port: Int
    public var pid: Int32
    /// The absolute path of the `demo.json` the server keeps its memory in.
    public var stateFile: String
    /// 32 random bytes, hex: what the server proves it knows.
    public var key: String

    enum CodingKeys: String, CodingKey {
        case version, port, pid, key
        case stateFile = "state_file"
    }

    public init(port: Int, pid: Int32 = getpid(), stateFile: String, key: String = DemoRendezvous.newKey()) {
        self.version = Self.formatVersion
        self.port = port
        self.pid = pid
        self.stateFile = stateFile
        self.key = key
    }

    public static func newKey() -> String {
        var generator = SystemRandomNumberGenerator()
        return hex((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
    }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Where the rendezvous file for `stateFile` is: `$XDG_RUNTIME_DIR/unitool/` (an absolute
    /// path only, as the XDG specification says), else the state file's own folder; named by a
    /// digest of the state file's path, so that two state directories of one user (two HOMEs)
    /// each find their own demo.
    public static func location(stateFile: URL, environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        let path = stateFile.standardizedFileURL.path
        let name = "demo-serve-\(hex(MessageDigest.sha256(path.utf8)).prefix(16)).json"
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            return URL(fileURLWithPath: runtime).appendingPathComponent("unitool").appendingPathComponent(name)
        }
        return stateFile.deletingLastPathComponent().appendingPathComponent(name)
    }

    /// What the server answers to `nonce`: proof that it holds `key`, bound to the state file.
    public func proof(nonce: String) -> String {
        Self.hex(MessageDigest.hmac(.sha256, key: Array(key.utf8), message: Array("unitool demo rendezvous\n\(nonce)\n\(stateFile)".utf8)))
    }

    /// The path a command asks for the proof at: `/api/demo/rendezvous?nonce=...`.
    public static let proofPath = "/api/demo/rendezvous"

    // MARK: The pure check

    /// What `lstat`/`fstat` said about the file and its folder: the input of `judge`.
    public struct FileFacts: Sendable, Equatable {
        public var owner: UInt32
        /// The permission bits (`0o600`).
        public var mode: UInt32
        /// A regular file, not a symlink or anything else.
        public var isRegularFile: Bool
        public var folderOwner: UInt32
        public var folderMode: UInt32
        /// A real directory, not a symlink to one.
        public var folderIsDirectory: Bool

        public init(owner: UInt32, mode: UInt32, isRegularFile: Bool, folderOwner: UInt32, folderMode: UInt32, folderIsDirectory: Bool) {
            self.owner = owner
            self.mode = mode
            self.isRegularFile = isRegularFile
            self.folderOwner = folderOwner
            self.folderMode = folderMode
            self.folderIsDirectory = folderIsDirectory
        }
    }

    public enum Verdict: Sendable, Equatable {
        /// Ours and well-formed: use it once the process is alive and the server proves the key.
        case candidate(DemoRendezvous)
        /// Not ours, or open to others: ignored and left where it is.
        case refused(String)
        /// Ours, but of no use (unreadable, another state file's, an old format): ignored and removed.
        case stale(String)
    }

    /// Whether a rendezvous file may be believed, from its bytes and what the file system says
    /// about it and its folder, for the user `user` and the state file `stateFile`. Pure.
    public static func judge(contents: Data, facts: FileFacts, user: UInt32, stateFile: String) -> Verdict {
        guard facts.folderIsDirectory, facts.folderOwner == user else {
            return .refused("its folder is not the user's own directory")
        }
        guard facts.folderMode & 0o022 == 0 else {
            return .refused(String(format: "its folder is writable by others (mode %03o)", facts.folderMode & 0o777))
        }
        guard facts.isRegularFile else { return .refused("it is not a regular file") }
        guard facts.owner == user else { return .refused("it belongs to user \(facts.owner)") }
        guard facts.mode & 0o077 == 0 else {
            return .refused(String(format: "others may read or change it (mode %03o)", facts.mode & 0o777))
        }
        guard let rendezvous = try? JSONDecoder().decode(DemoRendezvous.self, from: contents) else {
            return .stale("it is not a rendezvous file unitool can read")
        }
        guard rendezvous.version == formatVersion else { return .stale("it has format \(rendezvous.version)") }
        guard (1...65535).contains(rendezvous.port), rendezvous.pid > 0,
            rendezvous.key.count == 64, rendezvous.key.allSatisfy(\.isHexDigit)
        else { return .stale("its port, process or key is malformed") }
        guard rendezvous.stateFile == stateFile else {
            return .stale("it serves another state file, \(rendezvous.stateFile)")
        }
        return .candidate(rendezvous)
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
