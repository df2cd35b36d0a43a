import Foundation
import Synchronization

/// What a test needs of the machine beyond the package: the keyring of Scripts/test.sh, a peer
/// program, root. Used in `.enabled(if:)` traits; each want that is not met is noted, and the
/// process says once, at its very end (after swift-testing's summary), what was skipped for want
/// of what. Scripts/test.sh provides them all, so there the line never appears.
public enum Needs {
    private static let missing = Mutex<[String: Int]>([:])
    private static let registered = Atomic<Bool>(false)

    /// `met`, noting `what` was wanted when it is not.
    public static func check(_ met: Bool, _ what: String) -> Bool {
        if !met { note(what) }
        return met
    }

    /// The sandbox and keyring that Scripts/test.sh sets up (a private gnome-keyring on a D-Bus of its own).
    public static var testSandbox: Bool {
        check(ProcessInfo.processInfo.environment["UNITOOL_TEST_SANDBOX"] != nil, "the keyring and sandbox of Scripts/test.sh")
    }

    /// A program the test drives: a shell, tmux, khal, gdbus.
    public static func program(_ path: String) -> Bool {
        check(FileManager.default.isExecutableFile(atPath: path), (path as NSString).lastPathComponent)
    }

    /// Root, to give a file to another user.
    public static var root: Bool { check(geteuid() == 0, "root") }

    private static func note(_ what: String) {
        missing.withLock { $0[what, default: 0] += 1 }
        if registered.compareExchange(expected: false, desired: true, ordering: .relaxed).exchanged {
            atexit { Needs.summarise() }
        }
    }

    /// The one line: "unitool tests: skipped for want of tmux (2), root (1) …".
    static func summarise() {
        let wants = missing.withLock { $0 }.sorted { $0.key < $1.key }.map { "\($0.key) (\($0.value))" }
        guard !wants.isEmpty else { return }
        let line =
            "unitool tests: \(missing.withLock { $0.values.reduce(0, +) }) suites or tests were skipped for want of "
            + wants.joined(separator: ", ") + "; Scripts/test.sh provides them all\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
