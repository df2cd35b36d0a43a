import Foundation

/// A new university's recipe folder, built on platform recipes: what `unitool recipes new`
/// writes. A pure value: the choices in, the files out.
public struct RecipeScaffold: Sendable {
    /// The identity providers unitool has platforms for, by the name a user types.
    public static let identityProviders = [
        "shibboleth": "shibboleth-idp", "simplesamlphp": "simplesamlphp", "keycloak": "keycloak", "cas": "cas",
    ]
    public static let learningPlatforms = ["moodle"]
    public static let libraries = ["koha"]

    public var portal: String
    public var name: String
    public var baseURL: URL
    public var identityProvider: String
    public var idpURL: URL
    public var lms: (platform: String, url: URL)?
    public var library: (platform: String, url: URL)?
    public var newsFeed: String?

    public init(portal: String, name: String?, baseURL: URL, identityProvider: String, idpURL: URL) throws {
        if let problem = PortalID.problem(with: portal) { throw UniToolError(.usage, "'\(portal)': \(problem)") }
        guard Self.identityProviders[identityProvider] != nil else {
            let list = Self.identityProviders.keys.sorted().joined(separator: ", ")
            throw UniToolError(
                .usage, localized("'\(identityProvider)' is not an identity provider unitool has a platform for"),
                hint: localized("choose one of: \(list); for another, write the login rules yourself (docs/RECIPES.md)")
            )
        }
        for url in [baseURL, idpURL] where url.scheme != "https" && url.scheme != "http" || url.host == nil {
            throw UniToolError(
                .usage, localized("'\(url.absoluteString)' is not a web address"),
                hint: localized("give it whole: https://portal.example.edu"))
        }
        self.portal = portal
        self.name = name ?? portal
        self.baseURL = baseURL
        self.identityProvider = identityProvider
        self.idpURL = idpURL
    }

    /// The files, by name.
    public var files: [(name: String, text: String)] {
        var services = ""
        // A feed on another origin (www. beside the portal) is a service of the university: a
        // recipe reaches only its portal's declared origins (`OriginPolicy`).
        let feedOrigin = newsFeed.flatMap { URL(string: $0) }.flatMap { $0.host == nil ? nil : $0 }
            .map(\.origin).flatMap { $0 == baseURL.origin ? nil : $0 }
        if lms != nil || library != nil || feedOrigin != nil {
            services = "services:\n"
            if let lms { services += "  lms: { base_url: \(Self.quoted(Self.directory(lms.url))) }\n" }
            if let library { services += "  library: { base_url: \(Self.quoted(Self.directory(library.url))) }\n" }
            if let feedOrigin { services += "  news: { base_url: \(Self.quoted(feedOrigin + "/")) }\n" }
        }
        // The identity provider was checked against this table when the scaffold was made.
        let platform = Self.identityProviders[identityProvider]!
        var files = [
            (
                "portal.yaml",
                """
                # \(portal), built on the \(platform) platform (Recipes/platforms/\(platform).yaml).
                # Next: 'unitool --portal \(portal) auth login', and if the login stops on a page
                # the platform does not know, 'unitool --portal \(portal) doctor login' says which
                # rule to add under login.pages (docs/RECIPES.md, "Building on a platform recipe").
                portal: \(portal)
                name: \(Self.quoted(name))
                base_url: \(Self.quoted(baseURL.absoluteString))
                idp_url: \(Self.quoted(idpURL.absoluteString))
                # Your password is sent to the IdP only.
                credentials_may_go_to: [idp]
                \(services)login:
                  use: \(platform)
                  # The page unitool opens to start a login, and how a page looks once you are in:
                  # adjust both to your portal (a link to log out is a good sign of being in).
                  start: /
                  done_when: { xpath: "//a[contains(@href, 'logout')]" }

                """
            )
        ]
        if let lms, lms.platform == "moodle" {
            files.append(("courses.yaml", "use: moodle/courses\nservice: lms\n"))
        }
        if let library, library.platform == "koha" {
            files.append(("loans.yaml", "use: koha/loans\nservice: library\n"))
        }
        if let newsFeed {
            files.append(
                (
                    "news.yaml",
                    "use: rss/news\n" + (feedOrigin == nil ? "" : "service: news\n") + "with: { feed: \(Self.quoted(newsFeed)) }\n"
                ))
        }
        return files
    }

    /// Writes the portal's folder inside `parent`, whole or not at all (`writeFolder`).
    ///
    /// - Returns: the folder written.
    public func write(into parent: URL, checking check: (URL) throws -> Void) throws -> URL {
        if let newsFeed, let problem = Self.feedProblem(newsFeed) {
            let feed = TerminalText.escaped(newsFeed)
            throw UniToolError(
                .usage, localized("--news-feed '\(feed)' \(problem); nothing was written"),
                hint: localized("give the feed's path (/news/rss) or its whole address (https://www.example.edu/news/rss)"))
        }
        return try Self.writeFolder(portal, files: files.map { ($0.name, Data($0.text.utf8)) }, into: parent, checking: check)
    }

    /// Writes a portal's folder inside `parent`, whole or not at all.
    ///
    /// The files (paths inside the folder, subfolders made as needed) go to a staging folder
    /// beside the final one; `check` reads them there (as `recipes lint` would), and only then
    /// is the folder renamed into place, which fails rather than replace a folder that appeared
    /// meanwhile. On any failure nothing is left behind: not the staging folder, and not the
    /// folders above it that this call created. An error from `check` names the final path, not
    /// the staging one, and says that nothing was written.
    ///
    /// The folder and its subfolders are 0700 and the files 0600, as the history is: a folder
    /// made from a recording holds pages of the person's grades and loans, and one made from
    /// platforms the portals they use; neither is for other users of the machine.
    ///
    /// - Returns: the folder written.
    public static func writeFolder(
        _ portal: String, files contents: [(path: String, data: Data)], into parent: URL, checking check: (URL) throws -> Void
    ) throws -> URL {
        let files = FileManager.default
        let parent = parent.standardizedFileURL
        let folder = parent.appendingPathComponent(portal)
        // A symbolic link is refused whether or not it leads anywhere: `fileExists` follows
        // it, and a dangling one would end in the rename's raw error.
        if let target = try? files.destinationOfSymbolicLink(atPath: folder.path) {
            let link = TerminalText.escaped(folder.path)
            let shownTarget = TerminalText.escaped(target)
            throw UniToolError(
                .usage,
                files.fileExists(atPath: folder.path)
                    ? localized("\(link) is a symbolic link (to \(shownTarget)); nothing was written")
                    : localized("\(link) is a symbolic link (to \(shownTarget), which does not exist); nothing was written"),
                hint: localized("remove the link (rm \(link)) or choose another name"))
        }
        guard !files.fileExists(atPath: folder.path) else {
            throw UniToolError(
                .usage, localized("\(folder.path) exists already; nothing was written"),
                hint: localized("choose another name, or remove it first"))
        }
        // The topmost folder this call creates, removed again on failure.
        var created: URL?
        var probe = parent
        while !files.fileExists(atPath: probe.path), probe.path != "/" {
            created = probe
            probe = probe.deletingLastPathComponent()
        }
        let staging = parent.appendingPathComponent(".\(portal).new-\(UUID().uuidString.prefix(8).lowercased())")
        let staged = staging.appendingPathComponent(portal)
        do {
            try files.createDirectory(at: staged, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: staging.path)
            for file in contents {
                let target = staged.appendingPathComponent(file.path)
                // Each folder between the staged one and the file, made private as it is made.
                var folders: [URL] = []
                var above = target.deletingLastPathComponent()
                while above.path.count > staged.path.count, !files.fileExists(atPath: above.path) {
                    folders.insert(above, at: 0)
                    above = above.deletingLastPathComponent()
                }
                for made in folders {
                    try files.createDirectory(at: made, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
                    try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: made.path)
                }
                try AtomicFile.write(file.data, to: target, mode: 0o600)
            }
            try files.setAttributes([.posixPermissions: 0o700], ofItemAtPath: staged.path)
            do {
                try check(staged)
            } catch let error as UniToolError {
                let message = error.message.replacingOccurrences(of: staged.path, with: folder.path)
                throw UniToolError(error.kind, localized("\(message); nothing was written"), hint: error.hint)
            }
            do {
                try files.moveItem(at: staged, to: folder)
            } catch {
                throw UniToolError(
                    .usage,
                    localized(
                        "\(TerminalText.escaped(folder.path)) could not be put in place (it appeared meanwhile?); nothing was written"),
                    hint: localized("choose another name, or remove it first"))
            }
            try? files.removeItem(at: staging)
            return folder
        } catch {
            try? files.removeItem(at: staging)
            if let created { try? files.removeItem(at: created) }
            throw error
        }
    }

    /// Refuses a name a bundled portal has (`demo`): the folder would take its place for this
    /// user, silently, unless `replacing` says that is what they want.
    ///
    /// - Parameter bundled: the bundled recipes' folder (`RecipeCatalog.bundledDirectory()`).
    public static func checkBundledName(_ portal: String, bundled: URL, replacing: Bool) throws {
        let definition = bundled.appendingPathComponent(portal).appendingPathComponent("portal.yaml")
        guard !replacing, FileManager.default.fileExists(atPath: definition.path) else { return }
        throw UniToolError(
            .usage, localized("'\(portal)' is the name of a portal unitool comes with; a folder of that name would replace it"),
            hint: localized("choose another name (\(portal)-2, or your university's), or add --replace-bundled to replace it on purpose"))
    }

    /// Why `text` cannot be a news feed's path or address, or nil when it can. The platform
    /// recipe puts the value into its own YAML as text, so a quote, a backslash, white space or
    /// a control character, none of which a path or an address holds unencoded, is refused.
    public static func feedProblem(_ text: String) -> String? {
        guard text.hasPrefix("/") || text.hasPrefix("https://") || text.hasPrefix("http://") else {
            return localized("is neither a path starting with / nor an http(s) address")
        }
        if let bad = text.unicodeScalars.first(where: {
            $0 == "\"" || $0 == "\\" || $0.properties.isWhitespace || TerminalText.isControl($0)
        }) {
            let shown = bad == " " ? localized("a space") : "'" + TerminalText.escaped(String(bad)) + "'"
            return localized("holds \(shown), which no path or address holds as it is")
        }
        return nil
    }

    /// A service's address as a base for relative paths: with its trailing slash.
    static func directory(_ url: URL) -> String {
        let text = url.absoluteString
        return text.hasSuffix("/") ? text : text + "/"
    }

    /// A YAML double-quoted scalar that reads back as exactly `text`, whatever it holds.
    ///
    /// Every value the user typed goes into the files this way, never as plain YAML: a line
    /// break in a title must not start a key of its own (`base_url: https://evil.example`), and
    /// a quote or a backslash must not end the scalar. So `\` and `"` are escaped, and so is
    /// everything YAML would not keep as it is inside quotes: the C0 and C1 controls, DEL, the
    /// line breaks of YAML 1.1 (U+0085, U+2028, U+2029, which a parser folds), the byte order
    /// mark and the noncharacters U+FFFE and U+FFFF.
    public static func quoted(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x5C: result += "\\\\"
            case 0x22: result += "\\\""
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x09: result += "\\t"
            case 0x00: result += "\\0"
            case 0x85: result += "\\N"
            case 0x2028: result += "\\L"
            case 0x2029: result += "\\P"
            case 0x01..<0x20, 0x7F...0x9F: result += "\\x" + hex(scalar.value, digits: 2)
            case 0xFEFF, 0xFFFE, 0xFFFF: result += "\\u" + hex(scalar.value, digits: 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    private static func hex(_ value: UInt32, digits: Int) -> String {
        let text = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}
