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
                    $0.dropFirst("summary:".count).trimmingCharacters(in: .whitespaces)
                } ?? name
            return (name, summary, recipe.login.pages)
        }
    }

    /// The platform that handles the most of these steps, the password's among them; nil when none does.
    static func best(for steps: [RecordedLogin.Step], in folder: URL) -> PlatformMatch? {
        guard
            let passwordStep = steps.firstIndex(where: { step in
                if case .fill(let values, _) = step.rule.action { return values.contains { $0.value == "{{password}}" } }
                return false
            })
        else { return nil }
        var best: PlatformMatch?
        for platform in platforms(in: folder) {
            var covered: Set<Int> = []
            var names: [Int: String] = [:]
            var refused = false
            for (index, step) in steps.enumerated() {
                guard let rule = firstMatch(platform.rules, step: step) else { continue }
                if case .fail = rule.action {
                    refused = true
                    break
                }
                names[index] = rule.name
                if same(rule.action, step.rule.action) && pressesSameButton(rule, step) && followsSameLink(rule, step) {
                    covered.insert(index)
                }
            }
            guard !refused, covered.contains(passwordStep) else { continue }
            if covered.count > best?.covered.count ?? 0 {
                best = PlatformMatch(
                    platform: platform.name, summary: platform.summary, covered: covered, ruleNames: names,
                    reason:
                        "recognised: \(covered.count) of the \(Plural.count(steps.count, "page")) acted on are those of \(platform.summary) (Recipes/platforms/\(platform.name).yaml), whose rules also know its error pages"
                )
            }
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
        guard case .fill(_, let theirs) = rule.action, case .fill(_, let ours) = step.rule.action, let ours else { return true }
        guard let page = step.page else { return theirs == ours }
        guard let match = try? page.select(rule.when).first else { return false }
        let form = match.name == "form" ? match : (match.ancestor(named: "form") ?? (try? page.select("//form").first))
        guard let form else { return false }
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
