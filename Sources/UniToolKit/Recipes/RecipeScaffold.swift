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
            throw UniToolError(
                .usage, "'\(identityProvider)' is not an identity provider unitool has a platform for",
                hint:
                    "choose one of: \(Self.identityProviders.keys.sorted().joined(separator: ", ")); for another, write the login rules yourself (docs/RECIPES.md)"
            )
        }
        for url in [baseURL, idpURL] where url.scheme != "https" && url.scheme != "http" || url.host == nil {
            throw UniToolError(.usage, "'\(url.absoluteString)' is not a web address", hint: "give it whole: https://portal.example.edu")
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
        if lms != nil || library != nil {
            services = "services:\n"
            if let lms { services += "  lms: { base_url: \"\(Self.directory(lms.url))\" }\n" }
            if let library { services += "  library: { base_url: \"\(Self.directory(library.url))\" }\n" }
        }
        let platform = Self.identityProviders[identityProvider]!
        var files = [
            (
                "portal.yaml",
                """
                # \(name), built on the \(platform) platform (Recipes/platforms/\(platform).yaml).
                # Next: 'unitool --portal \(portal) auth login', and if the login stops on a page
                # the platform does not know, 'unitool --portal \(portal) doctor login' says which
                # rule to add under login.pages (docs/RECIPES.md, "Building on a platform recipe").
                portal: \(portal)
                name: \(Self.quoted(name))
                base_url: \(baseURL.absoluteString)
                idp_url: \(idpURL.absoluteString)
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
            files.append(("news.yaml", "use: rss/news\nwith: { feed: \(Self.quoted(newsFeed)) }\n"))
        }
        return files
    }

    /// A service's address as a base for relative paths: with its trailing slash.
    static func directory(_ url: URL) -> String {
        let text = url.absoluteString
        return text.hasSuffix("/") ? text : text + "/"
    }

    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }
}
