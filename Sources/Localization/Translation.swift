import Foundation

/// The language unitool speaks in: the catalogs found for a ``LanguagePreference``, in order.
///
/// A message missing from the first catalog is looked for in the next (`LANGUAGE=hu:ja`), then
/// left in English, as gettext does. The command line chooses one for the whole process from
/// `LANG` and its kin (``setProcessDefault(_:)``); a JSON-RPC connection whose client declares a
/// locale speaks it for that connection's requests (``override``), and every other connection
/// speaks English, since a program reads what it is sent.
public struct Translation: Sendable {
    public let preference: LanguagePreference
    let catalogs: [MessageCatalog]

    public init(preference: LanguagePreference, catalogs: [MessageCatalog]) {
        self.preference = preference
        self.catalogs = catalogs
    }

    /// English: no catalog, every text as the source writes it.
    public static let english = Translation(preference: LanguagePreference(locales: []), catalogs: [])

    /// The catalogs named `domain.mo` for each asked-for locale, from the first of `directories`
    /// that has one (`<dir>/<name>/LC_MESSAGES/<domain>.mo`, the layout `share/locale` has).
    public init(preference: LanguagePreference, directories: [String], domain: String = "unitool") {
        var catalogs: [MessageCatalog] = []
        for locale in preference.locales {
            let found = LanguagePreference.catalogNames(for: locale).lazy.flatMap { name in
                directories.lazy.map { "\($0)/\(name)/LC_MESSAGES/\(domain).mo" }
            }
            .compactMap(MessageCatalog.load(path:)).first
            if let found { catalogs.append(found) }
        }
        self.init(preference: preference, catalogs: catalogs)
    }

    /// The languages asked for, in order, whether or not unitool has a catalog for them: what a
    /// recipe's per-language text is chosen by.
    public var languages: [String] { preference.languages }

    /// The locales asked for, in order, territory and all (`pt_BR`, `ja_JP`): what a recipe's
    /// per-language text is chosen by, most specific first (`RecipeText`).
    public var locales: [String] { preference.locales }

    /// True when some catalog was found: the text is not all English.
    public var isTranslated: Bool { !catalogs.isEmpty }

    public func message(_ key: String) -> String? {
        for catalog in catalogs {
            if let found = catalog.message(key) { return found }
        }
        return nil
    }

    public func message(_ key: String, plural: String, count: Int) -> String? {
        for catalog in catalogs {
            if let found = catalog.message(key, count: count) { return found }
        }
        return nil
    }

    // MARK: - The current language

    private static let processDefault = LockedValue(Translation.english)

    /// Sets the language of every text this process renders where no ``override`` applies; the
    /// command line calls it once, before it parses its arguments.
    public static func setProcessDefault(_ translation: Translation) { processDefault.value = translation }

    /// A connection's own language for the work done on its behalf (JSON-RPC, MCP).
    @TaskLocal public static var override: Translation?

    /// The language texts are rendered in now.
    public static var current: Translation { override ?? processDefault.value }
}

/// A value read from any thread and set rarely.
final class LockedValue<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value

    init(_ value: Value) { stored = value }

    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension Translation {
    /// Where catalogs are looked for, in order:
    /// - `UNITOOL_LOCALEDIR`, a folder in `share/locale`'s layout (tests, a translator's own build);
    /// - `share/locale` beside the installed binary (`/usr/bin/unitool` → `/usr/share/locale`,
    ///   where the `.deb` puts them);
    /// - `.build/locale` in the source tree the binary was built from, which
    ///   `Scripts/build-catalogs.sh` fills from `po/`.
    public static func catalogDirectories(environment: [String: String], executable: String) -> [String] {
        var directories: [String] = []
        if let explicit = environment["UNITOOL_LOCALEDIR"], !explicit.isEmpty { directories.append(explicit) }
        let binary = URL(fileURLWithPath: executable).resolvingSymlinksInPath()
        directories.append(binary.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("share/locale").path)
        // Sources/Localization/Translation.swift → the package root.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        directories.append(root.appendingPathComponent(".build/locale").path)
        return directories
    }

    /// The language the environment asks for, with the catalogs found for it; English, with no
    /// file read, when it asks for none.
    public static func forEnvironment(_ environment: [String: String], executable: String) -> Translation {
        let preference = LanguagePreference(environment: environment)
        guard !preference.locales.isEmpty else { return .english }
        return Translation(preference: preference, directories: catalogDirectories(environment: environment, executable: executable))
    }
}

extension Translation {
    /// The running binary's path: the kernel's `/proc/self/exe`, since `argv[0]` is only
    /// `unitool` when the shell found it on `PATH`.
    static var runningExecutable: String {
        if let path = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"), path.hasPrefix("/") { return path }
        return CommandLine.arguments.first ?? ""
    }

    /// The language of this process's environment (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`).
    public static func forProcessEnvironment() -> Translation {
        forEnvironment(ProcessInfo.processInfo.environment, executable: runningExecutable)
    }

    /// The language a protocol names with a BCP 47 tag (LSP's `locale`: `ja`, `hu-HU`), with the
    /// process's catalog folders; English for a tag that is no language.
    public static func forLocale(_ tag: String) -> Translation {
        var environment = ProcessInfo.processInfo.environment
        for name in ["LANGUAGE", "LC_ALL", "LC_MESSAGES"] { environment[name] = nil }
        environment["LANG"] = tag.replacingOccurrences(of: "-", with: "_")
        return forEnvironment(environment, executable: runningExecutable)
    }
}
