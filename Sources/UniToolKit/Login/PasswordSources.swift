import Foundation
import Keyring
import OneTimeCode

/// Which secret a keyring item holds. It is an attribute of its own (`kind`), never part of
/// another attribute: when the kind was a suffix of the service name, a portal named
/// `demo:totp` read demo's TOTP secret as its password.
public enum SecretKind: String, Sendable {
    case password
    case totp
}

/// How unitool names its keyring items, and reads the ones an older unitool stored.
///
/// An item has the attributes `service=unitool`, `portal`, `username`, `kind` and, for a
/// password, `origins`: the origins the password may be sent to, space-separated, as the
/// portal's definition declared them when the password was stored. So
/// `secret-tool lookup service unitool portal demo username jdoe kind password` reads one back.
///
/// Older versions stored `service=unitool:<portal>` (and `unitool:<portal>:totp`) with
/// `username`; such an item is moved to the new attributes the first time it is read.
enum KeyringItems {
    static let service = "unitool"

    static func attributes(portal: String, user: String, kind: SecretKind) -> [String: String] {
        ["service": service, "portal": portal, "username": user, "kind": kind.rawValue]
    }

    static func legacyAttributes(portal: String, user: String, kind: SecretKind) -> [String: String] {
        ["service": kind == .password ? "unitool:\(portal)" : "unitool:\(portal):totp", "username": user]
    }

    /// The item's secret under the current scheme, or an older item's, moved to it first.
    static func find(
        portal: String, user: String, kind: SecretKind, keyring: Keyring, label: String, extra: [String: String] = [:]
    ) throws(KeyringError) -> Keyring.Item? {
        if let item = try keyring.search(attributes(portal: portal, user: user, kind: kind)).first { return item }
        let legacy = legacyAttributes(portal: portal, user: user, kind: kind)
        // The older scheme set only `service` and `username`; an item with a `kind` is not one.
        guard var item = try keyring.search(legacy).first(where: { $0.attributes["kind"] == nil }) else { return nil }
        defer { for index in item.secret.indices { item.secret[index] = 0 } }
        let moved = attributes(portal: portal, user: user, kind: kind).merging(extra) { $1 }
        try keyring.store(secret: item.secret, attributes: moved, label: label)
        try keyring.clear(legacy)
        return Keyring.Item(secret: item.secret, attributes: moved)
    }
}

/// unitool's passwords in the desktop keyring, one item per portal and user, each bound to the
/// origins its portal's definition may send it to (`KeyringItems`).
///
/// A password is released only to a definition of the portal whose every credential origin is
/// one it was stored for: a recipe pack that points the portal elsewhere gets nothing, and the
/// user is asked to type the password again, with both sets of origins named.
public struct PasswordKeyring: Sendable {
    public let portal: String
    /// Where the current definition of the portal may send a password.
    public let origins: [String]
    /// The definition that the current one replaced, if any (a trusted recipe pack).
    let replacedDefinition: String?
    private let items: BoundSecretItems

    public init(portal: PortalRecipe) {
        self.portal = portal.id
        self.origins = portal.declaredCredentialOrigins
        self.replacedDefinition = portal.replacedDefinition
        self.items = BoundSecretItems(
            portal: portal, kind: .password, name: localized("the password"), findLabel: "unitool: password on \(portal.id)")
    }

    /// The stored password, if it may go where this definition of the portal sends it.
    public func password(for user: String) throws -> Secret? {
        try items.released(
            for: user,
            refused: { storedFor, sendsTo in
                localized(
                    "the password stored for \(user) on '\(portal)' was stored for \(storedFor), but the portal's definition now would send it to \(sendsTo); unitool does not release it"
                )
            },
            again: localized(
                "give the password again with 'unitool auth login --portal \(portal) --user \(user)', or use --password-stdin"),
            read: { Secret(bytes: $0) }, bind: { try store($0, for: user) })
    }

    /// Refuses a secret from outside the keyring (`UNITOOL_PASSWORD_COMMAND`,
    /// `UNITOOL_TOTP_COMMAND`) for a definition of the portal that the user never vouched for:
    /// one from a recipe pack they have not trusted, or one that replaced another and sends
    /// secrets where that one did not. The command was set up for the portal the user knew.
    /// `source` names the command, `what` the secret ("the password", "one-time codes").
    public static func checkOutsideSecret(for portal: PortalRecipe, source: String, what: String = localized("the password")) throws {
        let origins = portal.declaredCredentialOrigins.joined(separator: ", ")
        if let pack = portal.untrustedPack {
            throw UniToolError(
                .credentialsMissing,
                localized(
                    "\(source) is not run for '\(portal.id)': the portal is defined by \(portal.file), from the recipe pack \(pack), which you have not trusted, and it could send \(what) to \(origins)"
                ),
                hint: localized("if you trust that pack, run 'unitool recipes trust \(pack)'; or give the password with --password-stdin"))
        }
        guard let before = portal.replacedCredentialOrigins else { return }
        guard PasswordRelease.decide(storedFor: before, requestedBy: portal.declaredCredentialOrigins, definitionReplaced: true) != .release
        else { return }
        let replaced = portal.replacedDefinition ?? "?"
        let storedFor = before.joined(separator: ", ")
        throw UniToolError(
            .credentialsMissing,
            localized(
                "\(source) is not used for '\(portal.id)': its definition (\(portal.file)) would send \(what) to \(origins), where the definition it replaced (\(replaced)) sent it only to \(storedFor)"
            ),
            hint: localized(
                "if you trust the new definition, give the password with --password-stdin; otherwise 'unitool recipes untrust' the pack"))
    }

    public func store(_ password: Secret, for user: String) throws {
        try items.store(password.revealBytes(), for: user, label: "unitool: \(user) on \(portal)")
    }

    /// Whether a password is stored at all, wherever it may go (for status displays).
    public func isStored(for user: String) throws -> Bool { try items.isStored(for: user) }

    @discardableResult
    public func remove(user: String) throws -> Bool { try items.remove(user: user) }

    static var alternatives: String {
        localized(
            "give the password with --password-stdin, or set UNITOOL_PASSWORD_COMMAND to a command that prints it (for example 'pass show uni/portal')"
        )
    }

    /// Turns libsecret's error into one that names the cause and the alternatives; `cannot` is
    /// what failed, in words: "cannot read the password of jdoe from the keyring".
    static func translate(_ error: KeyringError, cannot: String) -> UniToolError {
        switch error.reason {
        case .noLibrary:
            return UniToolError(
                .keyringFailed, localized("\(cannot): libsecret cannot be loaded (\(error.detail))"),
                hint: localized("install libsecret (Debian and Ubuntu: apt install libsecret-1-0), or \(alternatives)"))
        case .noSessionBus:
            return UniToolError(
                .keyringUnavailable,
                localized("\(cannot): there is no D-Bus session bus, so the Secret Service cannot be reached (\(error.detail))"),
                hint: localized("\(alternatives); or run inside a desktop session or 'dbus-run-session'"))
        case .noSecretService:
            return UniToolError(
                .keyringNoService,
                localized("\(cannot): no Secret Service (such as gnome-keyring) is running on the session bus (\(error.detail))"),
                hint: localized("start gnome-keyring-daemon --components=secrets, or \(alternatives)"))
        case .locked:
            return UniToolError(
                .keyringLocked, localized("\(cannot): the keyring is locked (\(error.detail))"),
                hint: localized("unlock it (log in to the desktop, or use your keyring's unlock command), or \(alternatives)"))
        case .cancelled:
            return UniToolError(
                .keyringPromptCancelled, localized("\(cannot): the unlock prompt was cancelled"),
                hint: localized("run the command again and unlock the keyring, or \(alternatives)"))
        case .failed:
            return UniToolError(.keyringFailed, "\(cannot): \(error.detail)", hint: alternatives)
        }
    }
}

/// TOTP secrets in the keyring, beside the passwords, with `kind=totp`. They are stored as an
/// `otpauth://` URI so that digits, period and algorithm stay with the secret;
/// `secret-tool lookup service unitool portal <portal> username <user> kind totp` reads one back.
///
/// A code made from the secret opens the account as the password does, so the secret is bound
/// as the password is: to the origins the portal's definition declared when it was stored (the
/// `origins` attribute), and released only to a definition that sends codes nowhere else
/// (`PasswordRelease`). A trusted recipe pack that moves the portal gets no code.
public struct OneTimeCodeKeyring: Sendable {
    public let portal: String
    /// Where the current definition of the portal may send a code.
    public let origins: [String]
    private let items: BoundSecretItems

    public init(portal: PortalRecipe) {
        self.portal = portal.id
        self.origins = portal.declaredCredentialOrigins
        self.items = BoundSecretItems(
            portal: portal, kind: .totp, name: localized("the TOTP secret"), findLabel: "unitool: TOTP secret on \(portal.id)")
    }

    /// The user's code generator, or nil if no secret is stored; refused when the portal's
    /// definition would send codes where the secret was not stored for.
    public func generator(for user: String) throws -> TOTP? {
        try items.released(
            for: user,
            refused: { storedFor, sendsTo in
                localized(
                    "the TOTP secret stored for \(user) on '\(portal)' was stored for \(storedFor), but the portal's definition now would send one-time codes to \(sendsTo); unitool makes no code from it"
                )
            },
            again: localized("store the secret again with 'unitool auth totp set --portal \(portal) --user \(user)'"),
            read: { bytes in
                do {
                    return try TOTP(parsing: String(decoding: bytes, as: UTF8.self))
                } catch {
                    throw UniToolError(
                        .stateCorrupt, localized("the TOTP secret stored for \(user) on '\(portal)' cannot be read: \(error)"),
                        hint: localized("store it again with 'unitool auth totp set --portal \(portal) --user \(user)'"))
                }
            }, bind: { try store($0, for: user) })
    }

    public func store(_ generator: TOTP, for user: String) throws {
        try items.store(Array(generator.uri.utf8), for: user, label: "unitool: TOTP secret of \(user) on \(portal)")
    }

    /// Whether a secret is stored at all, wherever it may go (for status displays).
    public func isStored(for user: String) throws -> Bool { try items.isStored(for: user) }

    @discardableResult
    public func remove(user: String) throws -> Bool { try items.remove(user: user) }
}

/// One portal's keyring items of one kind (passwords, TOTP secrets), each bound to the credential
/// origins its portal's definition declared when it was stored (the `origins` attribute): the
/// reading, binding, refusing, storing and removing that `PasswordKeyring` and
/// `OneTimeCodeKeyring` share, since a code opens the account as the password does.
struct BoundSecretItems: Sendable {
    let portal: String
    let kind: SecretKind
    /// "the password", "the TOTP secret": for messages.
    let name: String
    /// The label of an item moved from the older naming scheme.
    let findLabel: String
    let origins: [String]
    let replacedDefinition: String?
    private let keyring = Keyring()

    init(portal: PortalRecipe, kind: SecretKind, name: String, findLabel: String) {
        self.portal = portal.id
        self.kind = kind
        self.name = name
        self.findLabel = findLabel
        self.origins = portal.declaredCredentialOrigins
        self.replacedDefinition = portal.replacedDefinition
    }

    /// The stored secret, read by `read`, if it may go where this definition of the portal sends
    /// it (`PasswordRelease`). One stored without origins, for the user's own definition, is
    /// bound to it now by `bind`; one stored for other origins is refused, the message written by
    /// `refused` (from the origins it was stored for and those it would go to), the hint ending
    /// with `again`.
    func released<Value>(
        for user: String, refused: (_ storedFor: String, _ sendsTo: String) -> String, again: String,
        read: ([UInt8]) throws -> Value, bind: (Value) throws -> Void
    ) throws -> Value? {
        let item: Keyring.Item?
        do {
            item = try KeyringItems.find(
                portal: portal, user: user, kind: kind, keyring: keyring, label: findLabel,
                extra: replacedDefinition == nil ? ["origins": origins.joined(separator: " ")] : [:])
        } catch {
            throw PasswordKeyring.translate(error, cannot: localized("cannot read \(name) of \(user) from the keyring"))
        }
        guard var item else { return nil }
        defer { for index in item.secret.indices { item.secret[index] = 0 } }
        let value = try read(item.secret)
        let stored = item.attributes["origins"].map { $0.split(separator: " ").map(String.init) }
        switch PasswordRelease.decide(storedFor: stored, requestedBy: origins, definitionReplaced: replacedDefinition != nil) {
        case .release:
            return value
        case .bind:
            // Stored without origins (by hand, or by an older unitool), for the user's own
            // definition: bind it to that definition now, so no later one can take it.
            try bind(value)
            return value
        case .refuse(let storedFor):
            let old = storedFor.map { $0.joined(separator: ", ") } ?? localized("no recorded origins")
            let definedBy =
                replacedDefinition.map { replaced in localized("a recipe pack replacing \(replaced)") } ?? localized("a changed recipe")
            throw UniToolError(
                .credentialsMissing, refused(old, origins.joined(separator: ", ")),
                hint: localized("the portal is defined by \(definedBy); if you trust it, \(again)")
            )
        }
    }

    /// Stores `secret` bound to this definition's origins; one item per portal and user, so one
    /// stored for other origins is replaced.
    func store(_ secret: [UInt8], for user: String, label: String) throws {
        var attributes = KeyringItems.attributes(portal: portal, user: user, kind: kind)
        attributes["origins"] = origins.joined(separator: " ")
        do {
            try keyring.clear(KeyringItems.attributes(portal: portal, user: user, kind: kind))
            try keyring.store(secret: secret, attributes: attributes, label: label)
        } catch {
            throw PasswordKeyring.translate(error, cannot: localized("cannot store \(name) of \(user) in the keyring"))
        }
    }

    /// Whether a secret is stored at all, wherever it may go (for status displays).
    func isStored(for user: String) throws -> Bool {
        do throws(KeyringError) {
            if try !keyring.search(KeyringItems.attributes(portal: portal, user: user, kind: kind)).isEmpty { return true }
            if try keyring.search(KeyringItems.legacyAttributes(portal: portal, user: user, kind: kind))
                .contains(where: { $0.attributes["kind"] == nil })
            {
                return true
            }
            // Nothing found in a locked (or never created) collection is not "not stored".
            if try !keyring.defaultCollectionIsOpen() { throw KeyringError.lockedCollection() }
            return false
        } catch {
            throw PasswordKeyring.translate(error, cannot: localized("cannot read \(name) of \(user) from the keyring"))
        }
    }

    func remove(user: String) throws -> Bool {
        do {
            let removed = try keyring.clear(KeyringItems.attributes(portal: portal, user: user, kind: kind))
            let removedLegacy = try keyring.clear(KeyringItems.legacyAttributes(portal: portal, user: user, kind: kind))
            return removed || removedLegacy
        } catch {
            throw PasswordKeyring.translate(error, cannot: localized("cannot remove \(name) of \(user) from the keyring"))
        }
    }
}

/// Whether a stored password may go to a login: a pure decision, tested on its own.
public enum PasswordRelease: Equatable, Sendable {
    /// The password may go where the portal now sends it.
    case release
    /// It has no recorded origins (stored by hand), and the definition is the user's own: bind it.
    case bind
    /// The portal would send it somewhere it was not stored for.
    case refuse(storedFor: [String]?)

    /// - Parameters:
    ///   - stored: the origins the password was stored for; nil when none were recorded.
    ///   - requested: where the portal's current definition may send it.
    ///   - definitionReplaced: the definition comes from a recipe pack that replaced another.
    public static func decide(storedFor stored: [String]?, requestedBy requested: [String], definitionReplaced: Bool) -> PasswordRelease {
        guard let stored else { return definitionReplaced ? .refuse(storedFor: nil) : .bind }
        return Set(requested).isSubset(of: Set(stored)) && !requested.isEmpty ? .release : .refuse(storedFor: stored)
    }
}
