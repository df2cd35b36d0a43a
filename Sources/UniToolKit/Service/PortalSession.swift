import Foundation
import Logging
import Synchronization

/// The saved session of a connection: loaded when it was made, saved after each command as the
/// portal left it (never the jar of a login that failed half-way), and renewed by a login taken
/// in turns with other unitool processes of the same portal and user (`<session>.login.lock`).
struct PortalSession: ConnectionPart {
    let connection: PortalConnection
    var user: String { connection.user }
    var store: SessionStore? { connection.store }

    /// Runs one command (a CLI command, a JSON-RPC call) and then saves the session as the portal
    /// left it, whether the command succeeded or not: a cookie the portal deleted on its
    /// time-out page must not be sent again by the next run. Only a login that failed half-way
    /// is not kept (the jar from before it is saved instead).
    ///
    /// After a success a failure to save is the command's error; after a failure the command's
    /// own error is what the user needs, and the save problem is only logged.
    func settling<T>(_ body: () async throws -> T) async throws -> T {
        let result: T
        do {
            result = try await body()
        } catch {
            do {
                try save()
            } catch let saveError {
                logger.warning("\(localized("the session could not be saved after the failed command: \(saveError)"))")
            }
            throw error
        }
        try save()
        return result
    }

    /// Writes the cookie jar to the session store, as the portal left it; after a failed login,
    /// the jar from before that login.
    ///
    /// A jar that has not changed since it was loaded or last saved is not written again: the
    /// write is atomic, locked and fsynced, and the benchmarks showed it dominating a warm
    /// `recipes.run` over JSON-RPC.
    func save() throws {
        let current = session.cookieJar
        guard let jar = connection.state.withLock({ $0.jarToSave(current: current) }), let store = writableStore() else { return }
        try store.save(jar, portal: portal.id, user: user)
        let stamp = store.stamp(portal: portal.id, user: user)
        connection.state.withLock { $0.onDisk(jar, stamp: stamp) }
    }

    /// The session store, unless its folder cannot be written: then this run goes on without
    /// saving (said once, as a warning) rather than failing a command that needs no file.
    private func writableStore() -> SessionStore? {
        guard let store else { return nil }
        return connection.state.withLock { state in
            if let writable = state.storeWritable { return writable ? store : nil }
            let canWrite = store.isWritable(portal: portal.id, user: user)
            state.storeWritable = canWrite
            if !canWrite {
                logger.warning(
                    "\(localized("cannot write to \(store.directory.path): this run works without saving its session, so the next one logs in again. Make the folder writable (or set XDG_STATE_HOME) to keep sessions"))"
                )
            }
            return canWrite ? store : nil
        }
    }

    /// Logs in from the start page, whatever the saved session says. The observer, if any, is
    /// told about each login page as the flow leaves it.
    func logIn(observer: LoginObserver? = nil) async throws -> Page {
        try refuseFormLoginIfBrowserOnly()
        let flow = connection.loginFlow(observer: observer)
        return try await keepingJarIfLoginFails { try await flow.logIn(credentials: try connection.credentials()) }
    }

    /// Proves the password: a login from the start page that must have asked for it. `auth login`
    /// and `auth.login` both call it on a connection that started empty, so neither a saved session
    /// nor a live IdP session can let a wrong password pass unchecked. A login that never asked
    /// is `loginFailed`, and the caller stores nothing.
    func provePassword() async throws {
        try refuseFormLoginIfBrowserOnly()
        let asked = Mutex(false)
        let provide = connection.credentials
        let flow = connection.loginFlow()
        _ = try await keepingJarIfLoginFails {
            var tracked = try provide()
            let source = tracked.password
            tracked.password = {
                asked.withLock { $0 = true }
                return try source()
            }
            return try await flow.logIn(credentials: tracked)
        }
        guard asked.withLock({ $0 }) else {
            throw UniToolError(
                .loginFailed,
                localized("the portal let \(user) in without asking for a password, so unitool could not check it; nothing was stored"),
                hint: localized("the login service may remember this machine; sign out of it in a browser, then log in again"))
        }
    }

    /// A portal whose login works only in a browser (`login: { browser: true }`) is never sent
    /// a form login: the person signs in again with `auth login --browser`.
    private func refuseFormLoginIfBrowserOnly() throws {
        guard portal.login.browserOnly else { return }
        throw UniToolError(
            .loginInBrowserNeeded,
            localized(
                "the saved session of \(user) on \(portal.id) has ended (or there is none), and this portal signs in only in a browser"),
            hint: localized("sign in again: unitool --portal \(portal.id) auth login --browser --user \(user)"))
    }

    /// Runs a login; if it fails, remembers the jar from before it, so that the cookies of a
    /// half-finished login (an IdP's form state, a consent page's) are never saved.
    private func keepingJarIfLoginFails(_ login: () async throws -> Page) async throws -> Page {
        let before = session.cookieJar
        do {
            let landing = try await login()
            connection.state.withLock { $0.loginSucceeded() }
            return landing
        } catch {
            connection.state.withLock { $0.loginFailed(jarBefore: before) }
            throw error
        }
    }

    /// Logs in, taking turns with other unitool processes of the same portal and user: the
    /// login lock is held until the new session is saved, so a process that had to wait finds
    /// that session and uses it instead of logging in again.
    func logInOnce(from bounced: Page, asking url: URL, flow: LoginFlow) async throws -> Page {
        try refuseFormLoginIfBrowserOnly()
        guard let store = writableStore() else {
            return try await keepingJarIfLoginFails {
                try await flow.continueLogin(from: bounced, credentials: try connection.credentials(), returningTo: url)
            }
        }
        let lock = try await AsyncFileLock.acquire(store.file(portal: portal.id, user: user).path + ".login.lock") { [portal] in
            CurrentInteraction.report(localized("waiting for another unitool to finish signing in to \(portal.name)"))
        }
        var bounced = bounced
        // Another process may have saved a new session since this one loaded its own, whether
        // or not this one had to wait for the lock.
        // (Not when this connection was asked to start empty, to check a password for real.)
        let stamp = store.stamp(portal: portal.id, user: user)
        let sessionChanged = connection.state.withLock { $0.isNewer(stamp) }
        if sessionChanged {
            logger.debug("another unitool process logged in meanwhile; using its session")
            let saved = store.load(portal: portal.id, user: user)
            session.adopt(saved)
            connection.state.withLock { $0.onDisk(saved, stamp: stamp) }
        }
        if lock.waited || sessionChanged {
            let page = try await session.get(url)
            if try !flow.needsLogin(page) { return page }
            bounced = page
        }
        let landing = try await keepingJarIfLoginFails {
            try await flow.continueLogin(from: bounced, credentials: try connection.credentials(), returningTo: url)
        }
        try save()
        withExtendedLifetime(lock) {}
        return landing
    }
}
