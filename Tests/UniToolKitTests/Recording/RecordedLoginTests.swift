import Foundation
import LibXML
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// What the login's rules learn from what the person did (issue 48): a notice after the login
/// they passed by a "later", the attempt that worked rather than the first, a one-time code in a
/// password-type field, a service's own sign-on link; and which platform the pages are, by
/// evidence, with a confidence. Small recordings built here.
@Suite("Recording: the login's rules follow what the person did")
struct RecordedLoginTests {
    static func entry(
        _ method: String, _ url: String, form: [(String, String)]? = nil, status: Int = 200, redirect: String? = nil, html: String? = nil
    ) -> [String: Any] {
        RecordingBoundariesTests.entry(method, url, form: form, status: status, redirect: redirect, html: html)
    }

    static func archive(_ entries: [[String: Any]]) throws -> HTTPArchive {
        let data = try JSONSerialization.data(withJSONObject: ["log": ["version": "1.2", "entries": entries]])
        return try HTTPArchive(data: data, name: "login.har")
    }

    static let portal = "https://portal.example.edu"
    static let cas = "https://sso.example.edu"
    static let loginForm =
        "<form id='login' method='post' action='/login'><input name='user'><input type='password' name='secret'><button>Go</button></form>"
    static let home =
        "<div id='header'><a id='logoutLink' href='/logout'>Log out</a></div><div id='main'><a href='/grades'>Grades</a></div>"
    static let notice =
        "<div id='header'><a id='logoutLink' href='/logout'>Log out</a></div><div id='surveyNotice'><h2>Survey</h2>"
        + "<a id='answerNow' href='/survey/answer?next=%2Fhome'>Answer now</a> <a id='answerLater' href='/survey/later?next=%2Fhome'>Later</a></div>"

    static func evaluates(_ xpath: String, on html: String) throws -> Bool {
        try Document(html: html, url: portal + "/").evaluate(xpath).booleanValue
    }

    @Test("a notice after the login, passed by 'later' back to the same address, is an after_login rule; done_when is false on it")
    func interstitialAfterLogin() throws {
        let login = try RecordedLogin(
            reading: Self.archive([
                Self.entry("GET", "\(Self.portal)/login", html: Self.loginForm),
                Self.entry(
                    "POST", "\(Self.portal)/login", form: [("user", "jdoe"), ("secret", "s3cret-Pass!")], status: 302,
                    redirect: "\(Self.portal)/home"),
                Self.entry("GET", "\(Self.portal)/home", html: Self.notice),
                Self.entry("GET", "\(Self.portal)/survey/later?next=%2Fhome", status: 302, redirect: "/home"),
                Self.entry("GET", "\(Self.portal)/home", html: Self.home),
                Self.entry("GET", "\(Self.portal)/grades", html: RecordingBoundariesTests.table),
            ]))
        #expect(login.donePage == 4, "\(login.doneReading)")
        let done = try #require(login.doneXPath)
        #expect(try Self.evaluates(done, on: Self.home), "\(done)")
        #expect(try !Self.evaluates(done, on: Self.notice), "\(done)")
        let later = try #require(login.steps.first { $0.rule.afterLogin }, "\(login.steps.map(\.rule))")
        #expect(later.rule.when == "//div[@id='surveyNotice']")
        #expect(later.rule.action == .follow("//a[@id='answerLater']"))
        #expect(login.steps.count == 2)
    }

    @Test("a page the person only went on from by another link (no way back, no next=) is the portal, not a notice")
    func noInterstitialWithoutReturn() throws {
        let login = try RecordedLogin(
            reading: Self.archive([
                Self.entry("GET", "\(Self.portal)/login", html: Self.loginForm),
                Self.entry(
                    "POST", "\(Self.portal)/login", form: [("user", "jdoe"), ("secret", "s3cret-Pass!")], status: 302,
                    redirect: "\(Self.portal)/home"),
                Self.entry("GET", "\(Self.portal)/home", html: Self.home),
                Self.entry("GET", "\(Self.portal)/grades", html: RecordingBoundariesTests.table),
            ]))
        #expect(login.donePage == 2)
        #expect(login.doneXPath == "//a[@id='logoutLink']")
        #expect(!login.steps.contains { $0.rule.afterLogin })
    }

    @Test("a wrong password and a rejected consent first: the rules follow the attempt that led on")
    func attemptThatWorked() throws {
        let consent =
            "<form id='consent' method='post' action='/consent'><button name='reject' value='1'>No</button><button name='accept' value='1'>Yes</button></form>"
        let wrong = Self.loginForm.replacingOccurrences(of: "<form", with: "<p class='error'>Wrong password</p><form")
        let login = try RecordedLogin(
            reading: Self.archive([
                Self.entry("GET", "\(Self.portal)/login", html: Self.loginForm),
                Self.entry("POST", "\(Self.portal)/login", form: [("user", "jdoe"), ("secret", "typo-Pass!")], html: wrong),
                Self.entry(
                    "POST", "\(Self.portal)/login", form: [("user", "jdoe"), ("secret", "s3cret-Pass!")], status: 302,
                    redirect: "\(Self.portal)/consent"),
                Self.entry("GET", "\(Self.portal)/consent", html: consent),
                Self.entry("POST", "\(Self.portal)/consent", form: [("reject", "1")], status: 302, redirect: "\(Self.portal)/consent"),
                Self.entry("GET", "\(Self.portal)/consent", html: consent),
                Self.entry("POST", "\(Self.portal)/consent", form: [("accept", "1")], status: 302, redirect: "\(Self.portal)/home"),
                Self.entry("GET", "\(Self.portal)/home", html: Self.home),
            ]))
        let consentStep = try #require(login.steps.first { $0.rule.when.contains("consent") }, "\(login.steps.map(\.rule))")
        #expect(consentStep.rule.action == .fill([], submit: ".//button[@name='accept']"))
        #expect(login.steps.filter { $0.rule.when.contains("login") }.count == 1)
        // The password step keeps the page without the failed attempt's error.
        let passwordStep = try #require(login.steps.first)
        #expect(try passwordStep.page?.select("//p[@class='error']").isEmpty == true)
        #expect(login.typedSecrets.contains("typo-Pass!") && login.typedSecrets.contains("s3cret-Pass!"))
    }

    static let casLogin =
        "<form id='fm1' method='post' action='/cas/login'><input name='username'><input type='password' name='password'>"
        + "<input type='hidden' name='execution' value='e1'><input type='hidden' name='_eventId' value='submit'>"
        + "<button name='submitBtn' type='submit'>Log in</button></form>"
    static let casToken =
        "<form id='fm1' method='post' action='/cas/login'><input type='hidden' name='execution' value='e2'>"
        + "<input type='hidden' name='accountId' value='42'><input type='password' name='token'>"
        + "<button id='login'>Log in</button></form>"

    static func casRecording(extra: [[String: Any]] = []) throws -> HTTPArchive {
        let service = "service=https%3A%2F%2Fportal.example.edu%2Fhome"
        return try Self.archive(
            [
                Self.entry("GET", "\(Self.portal)/home", status: 302, redirect: "\(Self.cas)/cas/login?\(service)"),
                Self.entry("GET", "\(Self.cas)/cas/login?\(service)", html: Self.casLogin),
                Self.entry(
                    "POST", "\(Self.cas)/cas/login",
                    form: [("username", "jdoe"), ("password", "s3cret-Pass!"), ("execution", "e1"), ("_eventId", "submit")],
                    html: Self.casToken),
                Self.entry(
                    "POST", "\(Self.cas)/cas/login", form: [("execution", "e2"), ("accountId", "42"), ("token", "123456")], status: 302,
                    redirect: "\(Self.portal)/home?ticket=ST-1-abc"),
                Self.entry("GET", "\(Self.portal)/home?ticket=ST-1-abc", status: 302, redirect: "\(Self.portal)/home"),
                Self.entry("GET", "\(Self.portal)/home", html: Self.home),
            ] + extra)
    }

    @Test("a one-time code in a password-type field after the password is {{totp}}, its own step; the cas platform still covers both")
    func codeInPasswordField() throws {
        let login = try RecordedLogin(reading: Self.casRecording())
        #expect(login.steps.count == 2, "\(login.steps.map(\.rule))")
        #expect(login.steps.last?.rule.action == .fill([.init(name: "token", value: "{{totp}}")], submit: nil))
        #expect(login.steps.first?.rule.when != login.steps.last?.rule.when)
        #expect(login.credentialDestinations.map(\.origin) == [Self.cas])
        #expect(login.credentialDestinations.first?.reason.contains("password") == true)
        let match = try #require(
            PlatformMatch.best(
                for: login.steps, in: RecipeComposer.bundledPlatforms, addresses: login.pageLoads.map(\.url)))
        #expect(match.platform == "cas")
        #expect(match.covered == [0, 1])
        #expect(match.confidence > 0.8, "\(match.reason)")
    }

    @Test("a service's sign-on page whose link the person followed to the login service is a follow rule")
    func serviceSignOn() throws {
        let library = "https://library.example.edu"
        let service = "service=https%3A%2F%2Flibrary.example.edu%2Fopac-user.pl"
        let opac =
            "<div id='opac-auth'><h1>Log in</h1><p><a href='\(Self.cas)/cas/login?\(service)'>Log in with CAS</a></p>"
            + "<form id='auth' method='post'><input name='userid'><input type='password' name='password'></form></div>"
        let login = try RecordedLogin(
            reading: Self.casRecording(extra: [
                Self.entry("GET", "\(library)/opac-user.pl", html: opac),
                Self.entry("GET", "\(Self.cas)/cas/login?\(service)", status: 302, redirect: "\(library)/opac-user.pl?ticket=ST-2-x"),
                Self.entry("GET", "\(library)/opac-user.pl?ticket=ST-2-x", html: RecordingBoundariesTests.table),
            ]))
        let hop = try #require(login.steps.first { $0.rule.when == "//div[@id='opac-auth']" }, "\(login.steps.map(\.rule))")
        guard case .follow(let link) = hop.rule.action else {
            Issue.record("\(hop.rule)")
            return
        }
        #expect(try hop.page?.select(link).first?.normalizedText == "Log in with CAS")
    }

    @Test("CAS is told by its protocol on any server; a platform whose button the page lacks is not claimed")
    func evidenceAndButtons() throws {
        // A CAS server of another product: its own markup, a button without a name.
        let other =
            "<form method='post' action='/cas/login'><input name='username'><input type='password' name='password'>"
            + "<input type='hidden' name='lt' value='LT-1'><button type='submit'>Connexion</button></form>"
        let service = "service=https%3A%2F%2Fportal.example.edu%2Fhome"
        let login = try RecordedLogin(
            reading: Self.archive([
                Self.entry("GET", "\(Self.cas)/cas/login?\(service)", html: other),
                Self.entry(
                    "POST", "\(Self.cas)/cas/login?\(service)", form: [("username", "jdoe"), ("password", "s3cret-Pass!"), ("lt", "LT-1")],
                    status: 302, redirect: "\(Self.portal)/home?ticket=ST-9-z"),
                Self.entry("GET", "\(Self.portal)/home?ticket=ST-9-z", status: 302, redirect: "\(Self.portal)/home"),
                Self.entry("GET", "\(Self.portal)/home", html: Self.home),
            ]))
        #expect(PlatformMatch.protocols(in: login.pageLoads.map(\.url), steps: login.steps) == [.cas])
        let match = PlatformMatch.best(for: login.steps, in: RecipeComposer.bundledPlatforms, addresses: login.pageLoads.map(\.url))
        #expect(match?.platform != "simplesamlphp", "\(match?.reason ?? "")")
    }
}
