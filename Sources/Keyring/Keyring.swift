import CLibSecret
import Localization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Secrets in the desktop keyring (the freedesktop Secret Service, over D-Bus) via libsecret.
///
/// Items use the generic schema that `secret-tool` uses, and are named by their attributes
/// alone (a dictionary such as `service=unitool portal=demo username=jdoe kind=password`), so a
/// user can read one back with `secret-tool lookup` and the same attributes. This is the only
/// code in unitool that touches libsecret.
public struct Keyring: Sendable {
    /// The libsecret version unitool was built against, for `unitool version`. libsecret itself
    /// is loaded only when the keyring is first used (Sources/CLibSecret/secret.c).
    public static var libsecretVersion: String { String(cString: unitool_secret_built_version()) }

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
        var error = unitool_secret_error()
        let table = try Self.table(attributes)
        defer { unitool_secret_attributes_free(table) }
        var terminated = secret
        terminated.append(0)
        let stored = terminated.withUnsafeBufferPointer { buffer in
            // The buffer is never empty here, so it has an address.
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { chars in
                unitool_secret_store(table, label, chars, &error)
            }
        }
        for index in terminated.indices { terminated[index] = 0 }
        if stored == 0 { throw KeyringError(consuming: &error) }
    }

    /// Every item that has at least these attributes (it may have more), with its secret.
    public func search(_ attributes: [String: String]) throws(KeyringError) -> [Item] {
        try Self.requireFindableSessionBus()
        var error = unitool_secret_error()
        let table = try Self.table(attributes)
        defer { unitool_secret_attributes_free(table) }
        guard let list = unitool_secret_search(table, &error) else {
            if error.kind != UNITOOL_SECRET_ERROR_NONE { throw KeyringError(consuming: &error) }
            return []
        }
        defer { unitool_secret_items_free(list) }
        var items: [Item] = []
        var node: OpaquePointer? = list
        while let current = node {
            let item = unitool_secret_items_head(current)
            var found: [String: String] = [:]
            for name in Self.attributeNames {
                if let value = unitool_secret_item_attribute(item, name) {
                    found[name] = String(cString: value)
                    free(value)
                }
            }
            var length = 0
            var secretError = unitool_secret_error()
            guard let secret = unitool_secret_item_secret(item, &length, &secretError) else {
                throw KeyringError(consuming: &secretError)
            }
            let bytes = secret.withMemoryRebound(to: UInt8.self, capacity: length) {
                Array(UnsafeBufferPointer(start: $0, count: length))
            }
            unitool_secret_free(secret, length)
            items.append(Item(secret: bytes, attributes: found))
            node = unitool_secret_items_tail(current)
        }
        return items
    }

    /// Whether the default collection, where unitool keeps its secrets, is there and unlocked.
    /// A search of a locked or missing collection finds nothing, so "nothing found" means
    /// "nothing stored" only when this is true.
    public func defaultCollectionIsOpen() throws(KeyringError) -> Bool {
        try Self.requireFindableSessionBus()
        var error = unitool_secret_error()
        let state = unitool_secret_default_collection_state(&error)
        if state < 0 { throw KeyringError(consuming: &error) }
        return state == 0
    }

    /// Removes every item that has these attributes. Returns false when there was none.
    @discardableResult
    public func clear(_ attributes: [String: String]) throws(KeyringError) -> Bool {
        try Self.requireFindableSessionBus()
        var error = unitool_secret_error()
        let table = try Self.table(attributes)
        defer { unitool_secret_attributes_free(table) }
        let removed = unitool_secret_clear(table, &error)
        if removed < 0 { throw KeyringError(consuming: &error) }
        return removed == 1
    }

    /// Whether a library could serve as libsecret: it loads, and has every function unitool
    /// calls. Nothing is kept; `nil` when it could, else why not.
    public static func probeLibrary(named soname: String) -> String? {
        var error = unitool_secret_error()
        if unitool_secret_probe(soname, &error) == 1 { return nil }
        return KeyringError(consuming: &error).detail
    }

    /// Refuses at once where no session bus can be found: no `DBUS_SESSION_BUS_ADDRESS`, no
    /// `XDG_RUNTIME_DIR` (where glib looks for the bus) and no `DISPLAY` (to autolaunch one).
    /// libsecret would fail there too, but only after glib, looking for a runtime folder, had
    /// fallen back to `~/.cache` and created it: a write in the user's home for nothing.
    static func requireFindableSessionBus() throws(KeyringError) {
        func isSet(_ name: String) -> Bool { getenv(name).map { $0.pointee != 0 } ?? false }
        guard isSet("DBUS_SESSION_BUS_ADDRESS") || isSet("XDG_RUNTIME_DIR") || isSet("DISPLAY") else {
            throw KeyringError(
                reason: .noSessionBus,
                detail: localized("DBUS_SESSION_BUS_ADDRESS, XDG_RUNTIME_DIR and DISPLAY are all unset, so no session bus can be found"))
        }
    }

    /// A table of these attributes; loads libsecret the first time.
    private static func table(_ attributes: [String: String]) throws(KeyringError) -> OpaquePointer {
        var error = unitool_secret_error()
        guard let table = unitool_secret_attributes_new(&error) else { throw KeyringError(consuming: &error) }
        for (name, value) in attributes { unitool_secret_attributes_set(table, name, value) }
        return table
    }
}

/// Why the keyring could not be used, sorted into what the user can act on.
public struct KeyringError: Error, Sendable, CustomStringConvertible {
    public enum Reason: Sendable, Equatable {
        /// libsecret itself (libsecret-1.so.0) is not installed, or is not the library it should be.
        case noLibrary
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
        KeyringError(reason: .locked, detail: localized("the default collection is locked, or was never created"))
    }

    init(reason: Reason, detail: String) {
        self.reason = reason
        self.detail = detail
    }

    /// Takes the failure the C side reported, sorted there by its GError domain and code, and
    /// sorts the rest by libsecret's and D-Bus's words.
    init(consuming error: inout unitool_secret_error) {
        defer { unitool_secret_error_clear(&error) }
        let message = error.message.map { String(cString: $0) }
        self.detail = message ?? localized("the keyring refused without saying why")
        // Sorted by libsecret's own words only: the words unitool puts in their place, in any
        // language, say nothing about the cause.
        let lowered = (message ?? "").lowercased()
        switch error.kind {
        case UNITOOL_SECRET_ERROR_NO_LIBRARY:
            self.reason = .noLibrary
            return
        case UNITOOL_SECRET_ERROR_LOCKED:
            self.reason = .locked
            return
        case UNITOOL_SECRET_ERROR_CANCELLED:
            self.reason = .cancelled
            return
        default: break
        }
        if lowered.contains("/org/freedesktop/secrets/collection") {
            // The Secret Service is there, but its default collection is missing or locked and
            // no prompt could be shown to create or unlock it.
            self.reason = .locked
        } else if lowered.contains("autolaunch") || lowered.contains("dbus_session_bus_address")
            || lowered.contains("could not connect") || lowered.contains("failed to connect")
            || lowered.contains("no such file or directory")
        {
            self.reason = .noSessionBus
        } else if lowered.contains("org.freedesktop.secrets") || lowered.contains("serviceunknown")
            || lowered.contains("service unknown") || error.kind == UNITOOL_SECRET_ERROR_DBUS
        {
            self.reason = .noSecretService
        } else if lowered.contains("prompt") || lowered.contains("locked") {
            self.reason = .locked
        } else {
            self.reason = .failed
        }
    }
}
