import CLibSecret

/// Passwords in the desktop keyring (the freedesktop Secret Service, over D-Bus) via libsecret.
///
/// Entries use the generic schema with the attributes `service` and `username`, so a user can
/// read them back with `secret-tool lookup service <service> username <user>`. This is the only
/// code in unitool that touches libsecret.
public struct Keyring: Sendable {
    /// The value of the `service` attribute, such as `unitool:demo`.
    public let service: String

    public init(service: String) { self.service = service }

    /// Stores or replaces the password for `username`.
    public func store(password: [UInt8], username: String, label: String) throws(KeyringError) {
        var error: UnsafeMutablePointer<GError>?
        let attributes = unitool_attributes(service, username)
        defer { g_hash_table_unref(attributes) }
        var terminated = password
        terminated.append(0)
        let stored = terminated.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                secret_password_storev_sync(unitool_generic_schema(), attributes, nil, label, chars, nil, &error)
            }
        }
        for index in terminated.indices { terminated[index] = 0 }
        if stored == 0 { throw KeyringError(consuming: error) }
    }

    /// The stored password, or nil when there is none.
    public func lookup(username: String) throws(KeyringError) -> [UInt8]? {
        var error: UnsafeMutablePointer<GError>?
        let attributes = unitool_attributes(service, username)
        defer { g_hash_table_unref(attributes) }
        let found = secret_password_lookupv_sync(unitool_generic_schema(), attributes, nil, &error)
        if let error { throw KeyringError(consuming: error) }
        guard let found else { return nil }
        defer { unitool_password_free(found) }
        let length = strlen(found)
        return found.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
    }

    /// Removes the password. Returns false when there was none.
    @discardableResult
    public func clear(username: String) throws(KeyringError) -> Bool {
        var error: UnsafeMutablePointer<GError>?
        let attributes = unitool_attributes(service, username)
        defer { g_hash_table_unref(attributes) }
        let removed = secret_password_clearv_sync(unitool_generic_schema(), attributes, nil, &error)
        if let error { throw KeyringError(consuming: error) }
        return removed != 0
    }
}

/// Why the keyring could not be used, sorted into what the user can act on.
public struct KeyringError: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// No D-Bus session bus ("Cannot autolaunch D-Bus without X11 $DISPLAY").
        case noSessionBus
        /// A session bus, but no Secret Service (no gnome-keyring or KeePassXC) on it.
        case noSecretService
        /// The collection is locked and could not be unlocked (no prompt possible).
        case locked
        /// The user dismissed the unlock prompt.
        case cancelled
        case failed
    }

    public let reason: Reason
    /// libsecret's own words, which never contain the secret.
    public let detail: String

    public var description: String { detail }

    init(consuming error: UnsafeMutablePointer<GError>?) {
        guard let error else {
            self.reason = .failed
            self.detail = "the keyring refused without saying why"
            return
        }
        defer { g_error_free(error) }
        let domain = error.pointee.domain
        let code = error.pointee.code
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        self.detail = message
        let lowered = message.lowercased()
        if domain == unitool_secret_error_domain() && code == Int32(SECRET_ERROR_IS_LOCKED.rawValue) {
            self.reason = .locked
        } else if domain == unitool_io_error_domain() && code == Int32(G_IO_ERROR_CANCELLED.rawValue) {
            self.reason = .cancelled
        } else if lowered.contains("/org/freedesktop/secrets/collection") {
            // The Secret Service is there, but its default collection is missing or locked and
            // no prompt could be shown to create or unlock it.
            self.reason = .locked
        } else if lowered.contains("autolaunch") || lowered.contains("dbus_session_bus_address")
            || lowered.contains("could not connect") || lowered.contains("failed to connect")
            || lowered.contains("no such file or directory")
        {
            self.reason = .noSessionBus
        } else if lowered.contains("org.freedesktop.secrets") || lowered.contains("serviceunknown")
            || lowered.contains("service unknown") || domain == unitool_dbus_error_domain()
        {
            self.reason = .noSecretService
        } else if lowered.contains("prompt") || lowered.contains("locked") {
            self.reason = .locked
        } else {
            self.reason = .failed
        }
    }
}
