import CLibSecret

/// Secrets in the desktop keyring (the freedesktop Secret Service, over D-Bus) via libsecret.
///
/// Items use the generic schema that `secret-tool` uses, and are named by their attributes
/// alone (a dictionary such as `service=unitool portal=demo username=jdoe kind=password`), so a
/// user can read one back with `secret-tool lookup` and the same attributes. This is the only
/// code in unitool that touches libsecret.
public struct Keyring: Sendable {
    /// The libsecret version unitool was built against, for `unitool version`.
    public static var libsecretVersion: String {
        "\(unitool_libsecret_major()).\(unitool_libsecret_minor()).\(unitool_libsecret_micro())"
    }

    /// One item found by a search: its secret and the attributes it was stored with.
    public struct Item: Sendable {
        public var secret: [UInt8]
        public var attributes: [String: String]

        public init(secret: [UInt8], attributes: [String: String]) {
            self.secret = secret
            self.attributes = attributes
        }
    }

    /// The attributes unitool reads back from an item it found (the schema's names).
    public static let attributeNames = ["service", "username", "portal", "kind", "origins"]

    public init() {}

    /// Stores or replaces the secret of the item with exactly these attributes.
    public func store(secret: [UInt8], attributes: [String: String], label: String) throws(KeyringError) {
        try Self.requireFindableSessionBus()
        var error: UnsafeMutablePointer<GError>?
        let table = Self.table(attributes)
        defer { g_hash_table_unref(table) }
        var terminated = secret
        terminated.append(0)
        let stored = terminated.withUnsafeBufferPointer { buffer in
            // The buffer is never empty here, so it has an address.
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                secret_password_storev_sync(unitool_generic_schema(), table, nil, label, chars, nil, &error)
            }
        }
        for index in terminated.indices { terminated[index] = 0 }
        if stored == 0 { throw KeyringError(consuming: error) }
    }

    /// Every item that has at least these attributes (it may have more), with its secret.
    public func search(_ attributes: [String: String]) throws(KeyringError) -> [Item] {
        try Self.requireFindableSessionBus()
        var error: UnsafeMutablePointer<GError>?
        let table = Self.table(attributes)
        defer { g_hash_table_unref(table) }
        let list = unitool_search(table, &error)
        if let error {
            if let list { unitool_items_free(list) }
            throw KeyringError(consuming: error)
        }
        guard let list else { return [] }
        defer { unitool_items_free(list) }
        var items: [Item] = []
        var node: UnsafeMutablePointer<GList>? = list
        while let current = node {
            let item = unitool_item(current)
            var found: [String: String] = [:]
            for name in Self.attributeNames {
                if let value = unitool_item_attribute(item, name) {
                    found[name] = String(cString: value)
                    g_free(value)
                }
            }
            var length: gsize = 0
            var secretError: UnsafeMutablePointer<GError>?
            guard let secret = unitool_item_secret(item, &length, &secretError) else {
                throw KeyringError(consuming: secretError)
            }
            let bytes = secret.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                Array(UnsafeBufferPointer(start: $0, count: Int(length)))
            }
            unitool_secret_free(secret, length)
            items.append(Item(secret: bytes, attributes: found))
            node = current.pointee.next
        }
        return items
    }

    /// Whether the default collection, where unitool keeps its secrets, is there and unlocked.
    /// A search of a locked or missing collection finds nothing, so "nothing found" means
    /// "nothing stored" only when this is true.
    public func defaultCollectionIsOpen() throws(KeyringError) -> Bool {
        try Self.requireFindableSessionBus()
        var error: UnsafeMutablePointer<GError>?
        let state = unitool_default_collection_state(&error)
        if state < 0 { throw KeyringError(consuming: error) }
        return state == 0
    }

    /// Removes every item that has these attributes. Returns false when there was none.
    @discardableResult
    public func clear(_ attributes: [String: String]) throws(KeyringError) -> Bool {
        try Self.requireFindableSessionBus()
        var error: UnsafeMutablePointer<GError>?
        let table = Self.table(attributes)
        defer { g_hash_table_unref(table) }
        let removed = secret_password_clearv_sync(unitool_generic_schema(), table, nil, &error)
        if let error { throw KeyringError(consuming: error) }
        return removed != 0
    }

    /// Refuses at once where no session bus can be found: no `DBUS_SESSION_BUS_ADDRESS`, no
    /// `XDG_RUNTIME_DIR` (where glib looks for the bus) and no `DISPLAY` (to autolaunch one).
    /// libsecret would fail there too, but only after glib, looking for a runtime folder, had
    /// fallen back to `~/.cache` and created it: a write in the user's home for nothing.
    static func requireFindableSessionBus() throws(KeyringError) {
        func isSet(_ name: String) -> Bool { g_getenv(name).map { $0.pointee != 0 } ?? false }
        guard isSet("DBUS_SESSION_BUS_ADDRESS") || isSet("XDG_RUNTIME_DIR") || isSet("DISPLAY") else {
            throw KeyringError(
                reason: .noSessionBus,
                detail: "DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR and DISPLAY are all unset, so no session bus can be found")
        }
    }

    private static func table(_ attributes: [String: String]) -> OpaquePointer {
        // g_hash_table_new aborts rather than return NULL (GLib allocations never fail).
        let table = unitool_attributes_new()!
        for (name, value) in attributes { unitool_attributes_set(table, name, value) }
        return table
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

    /// The default collection is locked or missing: nothing can be read from it or kept in it.
    public static func lockedCollection() -> KeyringError {
        KeyringError(reason: .locked, detail: "the default collection is locked, or was never created")
    }

    init(reason: Reason, detail: String) {
        self.reason = reason
        self.detail = detail
    }

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
