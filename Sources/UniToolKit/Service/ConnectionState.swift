/// What a `PortalConnection` knows about its session and the portal's terms as a command runs,
/// and what each event does to it: one value under one lock, instead of a flag per fact.
///
/// A pure value, tested on its own (`ConnectionStateTests`); the connection does the I/O
/// (reading and writing the session file, asking the portal) and reports each outcome here.
struct ConnectionState: Sendable, Equatable {
    /// Whether the connection began with no cookies (to check a password for real): it then
    /// saves nothing until a login finishes, so a wrong password never replaces a good session.
    let startedEmpty: Bool
    /// The jar as it is on disk, so that an unchanged session is not written again.
    private(set) var savedJar: CookieJar?
    /// The session file as this connection last read or wrote it: another stamp means another
    /// process saved a session since.
    private(set) var diskStamp: FileStamp?
    /// Whether the session folder can be written, once found out.
    var storeWritable: Bool?
    /// The jar from before a login that then failed: what is saved instead of the half-finished
    /// login's cookies. Nil once a login succeeds.
    private(set) var jarBeforeFailedLogin: CookieJar?
    /// Whether a login finished on this connection.
    private(set) var loggedIn = false
    /// Whether the terms were found accepted (or accepted now) on this connection.
    var termsCleared = false
    /// The terms version, asked of the portal at most once per connection.
    var currentTerms: CurrentTerms?

    init(startedEmpty: Bool, savedJar: CookieJar?, diskStamp: FileStamp?) {
        self.startedEmpty = startedEmpty
        self.savedJar = savedJar
        self.diskStamp = diskStamp
    }

    mutating func loginSucceeded() {
        jarBeforeFailedLogin = nil
        loggedIn = true
    }

    /// A login failed: the jar from before the first failed one is what stays to be saved.
    mutating func loginFailed(jarBefore: CookieJar) {
        if jarBeforeFailedLogin == nil { jarBeforeFailedLogin = jarBefore }
    }

    /// The jar to write now, given the session's current one, or nil when nothing is to be
    /// written: a connection that started empty and has not logged in, or a jar as on disk.
    func jarToSave(current: CookieJar) -> CookieJar? {
        if startedEmpty, !loggedIn { return nil }
        let jar = jarBeforeFailedLogin ?? current
        return jar == savedJar ? nil : jar
    }

    /// The session file now holds `jar`, with `stamp`: written by this connection, or saved by
    /// another process and taken in.
    mutating func onDisk(_ jar: CookieJar, stamp: FileStamp?) {
        savedJar = jar
        diskStamp = stamp
    }

    /// Whether the session file changed under this connection (another process logged in):
    /// not for one that started empty, which must log in itself.
    func isNewer(_ stamp: FileStamp?) -> Bool {
        !startedEmpty && stamp != nil && stamp != diskStamp
    }
}
