import CProcessHardening
import Foundation
import Localization
import Synchronization

/// How to start the browser for one login or one recording.
public struct BrowserOptions: Sendable {
    /// The browser's program (`BrowserLocator.locate`).
    public var executable: String
    /// No window: for servers and tests. A person signing in needs the window (the default).
    public var headless: Bool
    /// Where the temporary profile is made: a folder of the user's own (0700); unitool's is
    /// `$XDG_STATE_HOME/unitool/browser`. The profile is removed when the browser closes.
    public var profilesFolder: URL
    /// A profile kept from one login to the next (`--keep-browser-profile`), so the login
    /// service's own cookies let a later login finish without typing; nil for a fresh one.
    public var keptProfile: URL?
    /// The environment the browser runs in (its display, its locale).
    public var environment: [String: String]

    public init(
        executable: String, headless: Bool, profilesFolder: URL, keptProfile: URL? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.executable = executable
        self.headless = headless
        self.profilesFolder = profilesFolder
        self.keptProfile = keptProfile
        self.environment = environment
    }
}

/// Finds the browser: `UNITOOL_BROWSER`, else Chromium or Chrome on PATH.
public enum BrowserLocator {
    public static let variable = "UNITOOL_BROWSER"
    public static let names = ["chromium", "chromium-browser", "google-chrome", "google-chrome-stable"]

    public struct NotFound: Error, CustomStringConvertible {
        /// What `UNITOOL_BROWSER` named, when that is what could not be run.
        public var named: String?
        public var description: String {
            if let named { return localized("\(variable) names '\(named)', which is not a program that can be run") }
            let looked = names.joined(separator: ", ")
            return localized("no Chromium or Chrome was found on PATH (looked for \(looked))")
        }
    }

    public static func locate(environment: [String: String]) throws(NotFound) -> String {
        if let named = environment[variable], !named.isEmpty {
            if named.contains("/") {
                guard FileManager.default.isExecutableFile(atPath: named) else { throw NotFound(named: named) }
                return named
            }
            guard let found = onPath(named, environment: environment) else { throw NotFound(named: named) }
            return found
        }
        for name in names {
            if let found = onPath(name, environment: environment) { return found }
        }
        throw NotFound(named: nil)
    }

    static func onPath(_ name: String, environment: [String: String]) -> String? {
        let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for folder in path.split(separator: ":") where !folder.isEmpty {
            let candidate = "\(folder)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}

/// A Chromium driven over `--remote-debugging-pipe`: the protocol goes over descriptors 3 and 4
/// of the browser, so no TCP port is ever opened for it, and no other program on the machine
/// can drive the browser that holds the person's login.
///
/// Use `withBrowser`: it starts the browser in a fresh profile, and closes it and removes the
/// profile however the body ends, also when unitool is interrupted (SIGINT, SIGTERM, SIGHUP).
/// A unitool killed outright leaves its profile behind; the next start removes it.
public final class Chromium: Sendable {
    public let devTools: DevToolsConnection
    public let processID: pid_t
    public let profile: URL
    private let removesProfile: Bool
    private let ended = Mutex(false)

    /// The prefix of temporary profiles' names; the process id of their unitool follows.
    static let profilePrefix = "unitool-chromium-"

    private let launch: InterruptCleanup.Launch
    /// The lock held on a kept profile while its browser runs; -1 for a temporary one.
    private let profileLock: Int32

    private init(
        devTools: DevToolsConnection, processID: pid_t, profile: URL, removesProfile: Bool, launch: InterruptCleanup.Launch,
        profileLock: Int32
    ) {
        self.launch = launch
        self.profileLock = profileLock
        self.devTools = devTools
        self.processID = processID
        self.profile = profile
        self.removesProfile = removesProfile
    }

    /// Starts the browser, runs `body`, then closes the browser and removes its profile.
    public static func withBrowser<T>(_ options: BrowserOptions, _ body: (Chromium) async throws -> T) async throws -> T {
        let browser = try launch(options)
        let result: T
        do {
            result = try await body(browser)
        } catch {
            browser.shutDown()
            throw error
        }
        browser.shutDown()
        return result
    }

    /// The arguments the browser is started with, before its first page.
    static func arguments(profile: URL, headless: Bool, runningAsRoot: Bool) -> [String] {
        var arguments = [
            "--remote-debugging-pipe", "--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-sync", "--disable-component-update", "--disable-default-apps",
            // Chromium's own password store: it must not write the person's password into their
            // desktop keyring beside unitool's entries; the profile goes anyway.
            "--password-store=basic",
            // Back and Forward load the page again, as DevTools' recordings show them, instead
            // of restoring it unseen from memory.
            "--disable-back-forward-cache",
        ]
        if headless { arguments.append("--headless") }
        // Chromium refuses to start as root with its sandbox on (containers, CI).
        if runningAsRoot { arguments.append("--no-sandbox") }
        arguments.append("about:blank")
        return arguments
    }

    static func launch(_ options: BrowserOptions) throws -> Chromium {
        // Watched for interruption from before its profile exists until it is gone.
        let watched = InterruptCleanup.shared.begin()
        do {
            return try start(options, as: watched)
        } catch {
            InterruptCleanup.shared.end(watched)
            throw error
        }
    }

    private static func start(_ options: BrowserOptions, as launch: InterruptCleanup.Launch) throws -> Chromium {
        let profile: URL
        var profileLock: Int32 = -1
        if let kept = options.keptProfile {
            try FileManager.default.createDirectory(at: kept, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            chmod(kept.path, 0o700)
            InterruptCleanup.shared.update(launch) { undo in
                undo.profile = kept
                undo.removesProfile = false
            }
            // One browser at a time in a kept profile: a second Chromium on it would hand its
            // window to the first and exit, and its end would then close the other's browser.
            profileLock = open(kept.path + ".lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            guard profileLock >= 0, flock(profileLock, LOCK_EX | LOCK_NB) == 0 else {
                if profileLock >= 0 { close(profileLock) }
                throw BrowserStartFailure(
                    reason: localized("another unitool is signing in with the kept browser profile \(kept.path); wait for it to finish"))
            }
            profile = kept
        } else {
            try FileManager.default.createDirectory(
                at: options.profilesFolder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            removeAbandonedProfiles(in: options.profilesFolder)
            profile = options.profilesFolder.appendingPathComponent("\(profilePrefix)\(getpid())-\(UUID().uuidString.prefix(8))")
            InterruptCleanup.shared.update(launch) { $0.profile = profile }
            try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        }
        turnOffPasswordSaving(in: profile)
        var ends: [Int32] = [-1, -1]
        // Both ends close on exec: another process started meanwhile must not inherit them. The
        // browser's copies are made by dup2, which it keeps.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &ends) == 0 else {
            let reason = String(cString: strerror(errno))
            if options.keptProfile == nil { try? FileManager.default.removeItem(at: profile) }
            if profileLock >= 0 { close(profileLock) }
            throw BrowserStartFailure(reason: localized("no socket for the browser: \(reason)"))
        }
        let arguments = arguments(profile: profile, headless: options.headless, runningAsRoot: geteuid() == 0)
        // Whatever the browser keeps beside its profile (its config and cache folders) stays in
        // the profile, out of the user's ~/.config and ~/.cache.
        var environment = options.environment
        environment["XDG_CONFIG_HOME"] = profile.appendingPathComponent("config").path
        environment["XDG_CACHE_HOME"] = profile.appendingPathComponent("cache").path
        let spawned = Result {
            let pid = try spawn(options.executable, arguments: arguments, environment: environment, channel: ends[1])
            InterruptCleanup.shared.update(launch) { $0.processID = pid }
            return pid
        }
        close(ends[1])
        let pid: pid_t
        do {
            pid = try spawned.get()
        } catch {
            close(ends[0])
            if options.keptProfile == nil { try? FileManager.default.removeItem(at: profile) }
            if profileLock >= 0 { close(profileLock) }
            throw error
        }
        return Chromium(
            devTools: DevToolsConnection(descriptor: ends[0]), processID: pid, profile: profile, removesProfile: options.keptProfile == nil,
            launch: launch, profileLock: profileLock)
    }

    /// Closes the browser: asks it to close, waits a few seconds, then kills its process group;
    /// removes a temporary profile. Safe to call twice.
    public func shutDown() {
        guard
            ended.withLock({ done in
                defer { done = true }
                return !done
            })
        else { return }
        devTools.post("Browser.close")
        var status: Int32 = 0
        var exited = false
        for _ in 0..<300 {
            let result = waitpid(processID, &status, WNOHANG)
            if result == processID || (result < 0 && errno == ECHILD) {
                exited = true
                break
            }
            usleep(10_000)
        }
        // Its helpers (renderers, the zygote) are in its process group.
        kill(-processID, SIGKILL)
        if !exited { while waitpid(processID, &status, 0) < 0 && errno == EINTR {} }
        killStragglers()
        devTools.close()
        if removesProfile { try? FileManager.default.removeItem(at: profile) }
        if profileLock >= 0 { close(profileLock) }
        InterruptCleanup.shared.end(launch)
    }

    /// The browser's crash handler leaves its process group (it starts a session of its own)
    /// and would outlive a browser that was killed: any process still naming the profile in
    /// its command line is this browser's, and goes too.
    private func killStragglers() { Self.killProcesses(naming: profile) }

    static func killProcesses(naming profile: URL) {
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [] {
            guard let pid = pid_t(entry), pid != getpid(),
                let commandLine = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { continue }
            if runs(in: profile, commandLine: Array(commandLine)) { kill(pid, SIGKILL) }
        }
    }

    /// Whether a command line (its arguments, each ended by NUL, as /proc gives it) is of a
    /// browser process of `profile`: an argument that is the profile (`--user-data-dir=PATH`) or
    /// names a place inside it (the crash handler's `--database=PATH/…`). Only a whole argument
    /// counts: not a process of the profile `PATH2`, and not `du PATH`.
    static func runs(in profile: URL, commandLine: [UInt8]) -> Bool {
        let path = profile.path
        return commandLine.split(separator: 0, omittingEmptySubsequences: true).contains { argument in
            let text = String(decoding: argument, as: UTF8.self)
            guard text.hasPrefix("--"), let equals = text.firstIndex(of: "=") else { return false }
            let value = text[text.index(after: equals)...]
            return value == path || value.hasPrefix(path + "/")
        }
    }

    /// Chromium's own password manager off in the profile (its first `Preferences`): it must not
    /// keep the person's password, least of all in a profile that is kept.
    static func turnOffPasswordSaving(in profile: URL) {
        let preferences = profile.appendingPathComponent("Default/Preferences")
        guard !FileManager.default.fileExists(atPath: preferences.path) else { return }
        try? FileManager.default.createDirectory(
            at: preferences.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let settings = #"{"credentials_enable_service":false,"profile":{"password_manager_enabled":false}}"#
        FileManager.default.createFile(atPath: preferences.path, contents: Data(settings.utf8), attributes: [.posixPermissions: 0o600])
    }

    /// Temporary profiles whose unitool is no longer running (it was killed outright).
    static func removeAbandonedProfiles(in folder: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        for name in names where name.hasPrefix(profilePrefix) {
            let owner = name.dropFirst(profilePrefix.count).split(separator: "-").first.flatMap { pid_t($0) }
            guard let owner, owner != getpid(), kill(owner, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: folder.appendingPathComponent(name))
        }
    }

    /// `posix_spawn` with the socket as descriptors 3 and 4, nothing else of unitool's handed on,
    /// the browser's output to /dev/null (it never reaches a trace or a log), in a process group
    /// of its own, with default signal actions (unitool ignores some while a browser runs).
    private static func spawn(_ path: String, arguments: [String], environment: [String: String], channel: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, channel, 3)
        posix_spawn_file_actions_adddup2(&actions, channel, 4)
        unitool_spawn_close_from(&actions, 5)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signalNumber in InterruptCleanup.signals + [SIGPIPE] { sigaddset(&defaults, signalNumber) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        posix_spawnattr_setpgroup(&attributes, 0)
        let argv = ([path] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv + envp { free(pointer) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else {
            let reason = String(cString: strerror(result))
            throw BrowserStartFailure(reason: localized("\(path) could not be started: \(reason)"))
        }
        return pid
    }
}

public struct BrowserStartFailure: Error, CustomStringConvertible {
    public var reason: String
    public var description: String { reason }
}

/// Closes the browsers of a unitool that is interrupted: kills them and removes their profiles,
/// then ends unitool by the same signal, so its exit status still says what ended it.
///
/// A browser is watched from before its profile is made until it is gone, so that no moment of
/// its start leaves a profile behind. While any is watched, SIGINT, SIGTERM and SIGHUP have a
/// handler that only writes the signal's number to a pipe (all a signal handler may do); a
/// thread reading that pipe does the work. When the last browser is gone, the handling that was
/// there before (the default, a `nohup`'s ignore, another handler) is put back.
final class InterruptCleanup: Sendable {
    static let shared = InterruptCleanup()
    static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// One browser's start and life: what an interruption must undo.
    struct Launch: Hashable, Sendable {
        let id: Int
    }

    struct Undo: Sendable {
        var profile: URL?
        /// A temporary profile goes; a kept one stays (its browser's processes go all the same).
        var removesProfile = true
        var processID: pid_t?
    }

    private struct State {
        var nextID = 0
        var launches: [Launch: Undo] = [:]
        /// The handling each signal had before unitool's, while unitool's is in place. A signal
        /// that was ignored (`nohup`, a script's `&`) is left ignored and is not here.
        var previous: [Int32: sighandler_t?] = [:]
        var installed = false
    }

    private let state = Mutex(State())
    /// The pipe from the handler to the thread that cleans up (made once, for the process).
    private let pipeEnds: (read: Int32, write: Int32) = {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return (-1, -1) }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        return (ends[0], ends[1])
    }()

    private init() {
        InterruptPipe.writeEnd = pipeEnds.write
        let thread = Thread { [self] in
            var number: Int32 = 0
            while read(pipeEnds.read, &number, MemoryLayout<Int32>.size) == MemoryLayout<Int32>.size {
                interrupted(by: number)
            }
        }
        thread.name = "unitool browser cleanup"
        thread.start()
    }

    func begin() -> Launch {
        state.withLock { state in
            let launch = Launch(id: state.nextID)
            state.nextID += 1
            state.launches[launch] = Undo()
            if !state.installed, pipeEnds.write >= 0 {
                state.installed = true
                for signalNumber in Self.signals {
                    let earlier = signal(signalNumber, InterruptPipe.handler)
                    if unsafeBitCast(earlier, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self) {
                        signal(signalNumber, SIG_IGN)
                    } else {
                        state.previous[signalNumber] = earlier
                    }
                }
            }
            return launch
        }
    }

    func update(_ launch: Launch, _ change: (inout Undo) -> Void) {
        state.withLock { state in
            guard var undo = state.launches[launch] else { return }
            change(&undo)
            state.launches[launch] = undo
        }
    }

    func end(_ launch: Launch) {
        state.withLock { state in
            state.launches[launch] = nil
            guard state.launches.isEmpty else { return }
            for (signalNumber, handler) in state.previous { signal(signalNumber, handler ?? SIG_DFL) }
            state.previous = [:]
            state.installed = false
        }
    }

    /// Stops each browser first (SIGSTOP: it writes nothing more, and its pipe stays open, so
    /// unitool's own tasks do not see it end), kills what else runs in its profile (the crash
    /// handler, in a session of its own), removes a temporary profile, kills the browser, puts the
    /// signal's earlier handling back and sends the signal again. All of it under the lock, so
    /// that no browser's ordinary end can run meanwhile and exit some other way first.
    private func interrupted(by signalNumber: Int32) {
        state.withLock { state in
            // Every browser ended before the signal was read: its handling is already back.
            guard !state.launches.isEmpty else {
                kill(getpid(), signalNumber)
                return
            }
            let undos = Array(state.launches.values)
            for undo in undos { if let pid = undo.processID { kill(-pid, SIGSTOP) } }
            for undo in undos { if let profile = undo.profile { Chromium.killProcesses(naming: profile) } }
            for undo in undos where undo.removesProfile {
                if let profile = undo.profile { try? FileManager.default.removeItem(at: profile) }
            }
            for undo in undos { if let pid = undo.processID { kill(-pid, SIGKILL) } }
            let earlier = state.previous[signalNumber] ?? nil
            signal(signalNumber, earlier ?? SIG_DFL)
            // To the process, not this thread: the signal is handled (or ends unitool) as it
            // would have been without a browser.
            kill(getpid(), signalNumber)
        }
    }
}

/// The signal handler's only state: where to write the signal's number.
private enum InterruptPipe {
    nonisolated(unsafe) static var writeEnd: Int32 = -1

    static let handler: @convention(c) (Int32) -> Void = { number in
        var number = number
        _ = write(InterruptPipe.writeEnd, &number, MemoryLayout<Int32>.size)
    }
}
