import Foundation
import Testing
import UniToolKit

/// unitool's private files on a real file system: modes, owners, links, FIFOs and the login lock.
@Suite("Private files and the login lock")
struct PrivateFileTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("unitool-private-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    func mode(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.posixPermissions] as? Int ?? 0) & 0o777
    }

    @Test("a missing file is nil; a private one is read as it is")
    func readsPrivateFile() throws {
        let file = folder.appendingPathComponent("session.json")
        #expect(try PrivateFile.read(file) == nil)
        try AtomicFile.write(Data("{}".utf8), to: file, mode: 0o600)
        #expect(try PrivateFile.read(file) == Data("{}".utf8))
        #expect(try mode(file) == 0o600)
    }

    @Test("a file others can read is fixed to 0600 and still read")
    func loosePermissionsFixed() throws {
        let file = folder.appendingPathComponent("config.yaml")
        try Data("format: json\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o664], ofItemAtPath: file.path)
        #expect(try PrivateFile.read(file) == Data("format: json\n".utf8))
        #expect(try mode(file) == 0o600)
    }

    @Test("a symbolic link is refused unless the caller allows it (the settings file)")
    func symlinks() throws {
        let target = folder.appendingPathComponent("elsewhere.json")
        try AtomicFile.write(Data("{}".utf8), to: target, mode: 0o600)
        let link = folder.appendingPathComponent("session.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        #expect { try PrivateFile.read(link) } throws: { ($0 as? UniToolError)?.kind == .stateCorrupt }
        #expect(try PrivateFile.read(link, allowSymlink: true) == Data("{}".utf8))
    }

    @Test("a FIFO planted at the path is refused at once instead of hanging the read")
    func fifoRefused() throws {
        let fifo = folder.appendingPathComponent("session.json")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        do {
            _ = try PrivateFile.read(fifo)
            Issue.record("a FIFO was read")
        } catch let error as UniToolError {
            #expect(error.kind == .stateCorrupt)
            #expect(error.message.contains("not a regular file"))
        }
    }

    @Test("the login lock: a second holder waits until the first lets go, and says it waited")
    func loginLock() async throws {
        let path = folder.appendingPathComponent("alice.json.login.lock").path
        var first: AsyncFileLock? = try await AsyncFileLock.acquire(path)
        #expect(first?.waited == false)
        let (waiting, startedWaiting) = AsyncStream<Void>.makeStream()
        let second = Task {
            try await AsyncFileLock.acquire(path, timeout: .seconds(10)) {
                startedWaiting.yield()
                startedWaiting.finish()
            }
        }
        // Let go only once the second holder has found the lock held.
        for await _ in waiting { break }
        first = nil
        let lock = try await second.value
        #expect(lock.waited)
        #expect(first == nil)
    }

    @Test("a lock held too long is a clear error, not a wait forever")
    func lockTimeout() async throws {
        let path = folder.appendingPathComponent("bob.json.login.lock").path
        let held = try await AsyncFileLock.acquire(path)
        do {
            _ = try await AsyncFileLock.acquire(path, timeout: .milliseconds(200))
            Issue.record("the lock was taken twice")
        } catch let error as UniToolError {
            #expect(error.message.contains("another unitool process has been logging in"))
        }
        withExtendedLifetime(held) {}
    }
}
