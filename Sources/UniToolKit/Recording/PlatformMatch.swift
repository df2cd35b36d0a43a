import Foundation
import LibXML

/// Which bundled login platform (Shibboleth IdP, SimpleSAMLphp, Keycloak, CAS, LemonLDAP::NG, …)
/// a recorded login's pages belong to, told by the platform's own rules: its rules are run on
/// each recorded page, as a login would run them, and a page is the platform's when the first
/// rule that matches does what the person did there (the same fields filled with the same
/// values, the same auto-post, a link followed).
///
/// A platform whose error rule matches a page of a successful login is not that page's product.
/// The best platform covers the page that took the password and the most pages; its error,
/// lockout and one-time-code rules then come with `use:`, which a recording of a successful
/// login could never show.
public struct PlatformMatch: Sendable {
    public var platform: String
    public var summary: String
    /// The indices of the steps the platform's rules handle as the person did.
    public var covered: Set<Int>
    /// For each step a platform rule matched: that rule's name (a rule of the same name in the
    /// portal replaces it).
    public var ruleNames: [Int: String]
    /// Why, for the YAML comment.
    public var reason: String
    /// How sure the match is, from 0 to 1: the share of the acted-on pages the platform's rules
    /// handle as the person did, and whether the addresses show the platform's protocol and paths.
    public var confidence: Double = 0
    /// The next best platform and its confidence, when it comes close (within 0.2).
    public var runnerUp: (platform: String, confidence: Double)?

    /// The login platforms in `folder` (the top-level `*.yaml` files), each with its rules as a
    /// portal using it gets them.
    static func platforms(in folder: URL) -> [(name: String, summary: String, rules: [PageRule])] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasSuffix(".yaml") }.sorted()
        return names.compactMap { file in
            let name = String(file.dropLast(".yaml".count))
            let probe = """
                portal: probe
                base_url: https://portal.example.edu
                login:
                  use: \(name)
                  start: /
                  done_when: { xpath: "//a" }

                """
            guard let recipe = try? PortalRecipe.load(file: "probe.yaml", text: probe, platforms: folder) else { return nil }
            let text = (try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)) ?? ""
            let summary =
                text.split(separator: "\n").first { $0.hasPrefix("summary:") }.map {
                    $0.dropFirst("summary:".count).trimmingWhitespace()
                } ?? name
            return (name, summary, recipe.login.pages)
        }
    }

    /// The protocol each bundled platform speaks and the paths its pages are at: evidence read
    /// from the recording's addresses, beside what its rules do on the pages.
    static let evidence: [String: (protocols: Set<SignOnProtocol>, paths: [String])] = [
        "cas": ([.cas], ["/cas/login"]),
        "keycloak": ([.saml, .openIDConnect], ["/protocol/openid-connect/", "/protocol/saml", "/login-actions/"]),
        "lemonldap": ([.saml], ["/saml/singlesignon"]),
        "shibboleth-idp": ([.saml], ["/idp/profile/"]),
        "simplesamlphp": ([.saml], ["/simplesaml/", "/module.php/core/loginuserpass"]),
    ]

    enum SignOnProtocol: Sendable, Hashable {
        case cas, saml, openIDConnect
    }

    /// The sign-on protocols the addresses show. CAS by its protocol, on any CAS server (Apereo,
    /// django-cas-server, …): a `…/login?service=` address and a `ticket=ST-…` brought back; SAML by
    /// a `SAMLRequest` or `SAMLResponse`; OpenID Connect by its `/protocol/openid-connect/` path
    /// or an authorization request (`response_type` with `client_id`).
    static func protocols(in addresses: [URL], steps: [RecordedLogin.Step]) -> Set<SignOnProtocol> {
        var found: Set<SignOnProtocol> = []
        var casLogin = false
        var casTicket = false
        for url in addresses + steps.map(\.pageURL) {
            let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
            let names = Set(items.map(\.name))
            if names.contains("service") && url.path.hasSuffix("/login") { casLogin = true }
            if items.contains(where: { $0.name == "ticket" && ($0.value ?? "").hasPrefix("ST-") }) { casTicket = true }
            if names.contains("SAMLRequest") || names.contains("SAMLResponse") { found.insert(.saml) }
            if url.path.contains("/protocol/openid-connect/") || names.contains("response_type") && names.contains("client_id") {
                found.insert(.openIDConnect)
            }
        }
        for step in steps {
            if step.rule.when.contains("SAMLResponse") || step.rule.when.contains("SAMLRequest") { found.insert(.saml) }
        }
        if casLogin && casTicket { found.insert(.cas) }
        return found
    }

    /// The platform that handles the most of these steps, the password's among them, weighed with
    /// the addresses' evidence; nil when none handles the password's page as the person did.
    static func best(for steps: [RecordedLogin.Step], in folder: URL, addresses: [URL] = []) -> PlatformMatch? {
        guard
            let passwordStep = steps.firstIndex(where: { step in
                if case .fill(let values, _) = step.rule.action { return values.contains { $0.value == "{{password}}" } }
                return false
            })
        else { return nil }
        let seen = protocols(in: addresses, steps: steps)
        let serviceOrigin = steps[passwordStep].pageURL.origin
        let onService = Set(steps.indices.filter { steps[$0].pageURL.origin == serviceOrigin && !steps[$0].rule.afterLogin })
        let paths = (addresses + steps.map(\.pageURL)).map { $0.path.lowercased() }
        var candidates: [PlatformMatch] = []
        for platform in platforms(in: folder) {
            var covered: Set<Int> = []
            var names: [Int: String] = [:]
            for (index, step) in steps.enumerated() {
                guard let rule = firstMatch(platform.rules, step: step) else { continue }
                // An error rule matching a recorded page (a failed attempt's) covers nothing;
                // it is no sign against the platform either.
                if case .fail = rule.action { continue }
                names[index] = rule.name
                if same(rule.action, step.rule.action) && pressesSameButton(rule, step) && followsSameLink(rule, step) {
                    covered.insert(index)
                }
            }
            guard covered.contains(passwordStep) else { continue }
            let known = evidence[platform.name]
            // The share of the login service's own pages (those on the password page's origin):
            // a portal's notice or a service's sign-on link is no page of the platform.
            let coveredOnService = covered.intersection(onService).count
            let share = Double(coveredOnService) / Double(max(onService.count, 1))
            // The addresses' evidence adds to the pages': the platform's protocol seen (2/3) and
            // its paths (1/3). Its absence is no sign against it (a CAS server may also speak SAML).
            var said = [
                "\(coveredOnService) of the \(Plural.count(onService.count, "page")) acted on at the login service are those of \(platform.summary)"
            ]
            var evidenceShare = 0.0
            if let known {
                if !known.protocols.isDisjoint(with: seen) {
                    evidenceShare += 2 / 3
                    said.append("the addresses show its protocol")
                }
                if known.paths.contains(where: { path in paths.contains { $0.contains(path) } }) {
                    evidenceShare += 1 / 3
                    said.append("its paths")
                }
            }
            let confidence = 0.6 * share + 0.4 * evidenceShare
            candidates.append(
                PlatformMatch(
                    platform: platform.name, summary: platform.summary, covered: covered, ruleNames: names,
                    reason:
                        "recognised (confidence \(String(format: "%.2f", confidence))): \(said.joined(separator: "; ")) (Recipes/platforms/\(platform.name).yaml), whose rules also know its error pages",
                    confidence: confidence))
        }
        // The most confident, then the one covering the most pages, then the first in name order.
        let ranked = candidates.enumerated().sorted {
            ($0.element.confidence, $0.element.covered.count, -$0.offset) > ($1.element.confidence, $1.element.covered.count, -$1.offset)
        }.map(\.element)
        guard var best = ranked.first else { return nil }
        if let second = ranked.dropFirst().first, best.confidence - second.confidence < 0.2 {
            best.runnerUp = (second.platform, second.confidence)
            best.reason += "; runner-up: \(second.platform) (confidence \(String(format: "%.2f", second.confidence)))"
        }
        return best
    }

    /// The platform rule a login would apply to the step's page: the first whose `when` matches.
    /// A page the recording lost is matched by a rule with the very same `when`.
    static func firstMatch(_ rules: [PageRule], step: RecordedLogin.Step) -> PageRule? {
        guard let page = step.page else { return rules.first { $0.when == step.rule.when && !isFailure($0) } }
        return rules.first { rule in (try? page.evaluate(rule.when).booleanValue) == true }
    }

    private static func isFailure(_ rule: PageRule) -> Bool {
        if case .fail = rule.action { return true }
        return false
    }

    /// Whether the platform's rule presses the button the person pressed: its `submit`, or
    /// without one the form's first submit button (as Enter does). A step whose page the
    /// recording lost is compared by the XPath's text.
    static func pressesSameButton(_ rule: PageRule, _ step: RecordedLogin.Step) -> Bool {
        guard case .fill(_, let theirs) = rule.action, case .fill(_, let ours) = step.rule.action else { return true }
        guard let page = step.page else { return ours == nil || theirs == ours }
        guard let match = try? page.select(rule.when).first else { return false }
        let form = match.name == "form" ? match : (match.ancestor(named: "form") ?? (try? page.select("//form").first))
        guard let form else { return false }
        // A button without a name is not in what the browser posted: the platform's rule must at
        // least find the button it presses on this page (SimpleSAMLphp's on a CAS page does not).
        guard let ours else { return theirs.map { (try? form.select($0).isEmpty) == false } ?? true }
        let pressed = try? form.select(ours).first
        let pressing = try? form.select(
            theirs ?? "(.//button[not(@type) or @type='submit'] | .//input[@type='submit' or @type='image'])[1]"
        ).first
        guard let pressed, let pressing else { return false }
        return pressed == pressing
    }

    /// Whether the platform's rule follows the link the person followed.
    static func followsSameLink(_ rule: PageRule, _ step: RecordedLogin.Step) -> Bool {
        guard case .follow(let theirs) = rule.action, case .follow(let ours) = step.rule.action else { return true }
        guard let page = step.page else { return theirs == ours }
        guard let followed = try? page.select(ours).first, let following = try? page.select(theirs).first else { return false }
        return followed == following
    }

    /// Whether a platform's action does what the person did.
    static func same(_ action: PageRule.Action, _ recorded: DraftRule.Action) -> Bool {
        switch (action, recorded) {
        case (.autoSubmit, .autoSubmit), (.follow, .follow): return true
        case (.fill(let values, _), .fill(let recordedValues, _)):
            let theirs = Set(values.map { "\($0.name)=\($0.value.source)" })
            let ours = Set(recordedValues.map { "\($0.name)=\($0.value)" })
            return theirs == ours
        default: return false
        }
    }
}
