import DemoUniversity
import Foundation
import Logging
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// The composition root (`Workspace`): every connection of every front end is made here, so
/// the rules it decides are tested once, against a running demo, with the user's folders in a
/// sandbox.
@Suite("Workspace: one factory of connections, its stores in its own folders")
struct WorkspaceTests {
    static let catalog = try! RecipeCatalog(directories: [Fixtures.recipes])

    /// A workspace over a fresh sandbox with the demo's terms accepted, and the demo's portal at
    /// `demo`; the sandbox is removed afterwards.
    func withWorkspace(_ body: (Workspace, PortalRecipe, Sandbox, DemoUniversity) async throws -> Void) async throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        try sandbox.acceptTerms(portal: "demo", version: DemoUniversity.initialTermsVersion)
        try await DemoUniversity.withRunning { demo in
            let workspace = Workspace(
                locations: sandbox.locations, history: .kept(retentionDays: 30), logger: Logger(label: "workspace-test"))
            try await body(workspace, try Self.catalog.portal("demo").relocated(to: demo.baseURL), sandbox, demo)
        }
    }

    @Test("everything a run keeps (session, history) lands under the workspace's locations, and nowhere else")
    func storesUnderItsLocations() async throws {
        try await withWorkspace { workspace, portal, sandbox, _ in
            let grades = try Self.catalog.recipe(portal: "demo", command: "grades")
            let connection = workspace.connection(
                to: portal, as: "alice", credentials: { Credentials(username: "alice", password: Secret("wonderland")) })
            let records = try await workspace.withService(over: connection) { service in
                try await service.run(grades, options: ["term": "2026-spring"], interaction: Unattended())
            }
            #expect(records.records.count == 4)
            #expect(workspace.sessions.exists(portal: "demo", user: "alice"))
            #expect(FileManager.default.fileExists(atPath: sandbox.locations.historyFile.path))
            #expect(try workspace.history?.counts().runs == 1)
            // Every file is in one of the four XDG folders the locations name, none loose in the root.
            let folders = [sandbox.locations.config, sandbox.locations.state, sandbox.locations.data, sandbox.locations.cache]
            let elsewhere = sandbox.allFiles().filter { file in !folders.contains { file.path.hasPrefix($0.path + "/") } }
            #expect(!sandbox.allFiles().isEmpty)
            #expect(elsewhere.isEmpty, "\(elsewhere)")
        }
    }

    @Test("a public command connects as nobody, neither loads nor saves a session, and never logs in")
    func publicCommand() async throws {
        try await withWorkspace { workspace, portal, _, demo in
            let headlines = try Self.catalog.recipe(portal: "demo", command: "headlines")
            #expect(!headlines.login)
            let connection = workspace.connection(
                for: headlines, on: portal, as: "alice",
                credentials: { throw UniToolError(.internal, "a public command asked for a password") })
            #expect(connection.user == "")
            // Alice has no saved session: the terms are read anonymously, not through hers.
            #expect(connection.termsThrough == nil)
            let records = try await workspace.withService(over: connection) { service in
                try await service.run(headlines, options: [:], interaction: Unattended())
            }
            #expect(records.records.count == 14)
            #expect(await demo.requests.allSatisfy { !$0.isLogin })
            #expect(!workspace.sessions.exists(portal: "demo", user: ""))
            #expect(!workspace.sessions.exists(portal: "demo", user: "alice"))
        }
    }

    @Test("a public command reads the terms through the named user's saved session, when there is one")
    func publicCommandTermsThroughSavedSession() async throws {
        try await withWorkspace { workspace, portal, _, _ in
            let alice = workspace.connection(
                to: portal, as: "alice", credentials: { Credentials(username: "alice", password: Secret("wonderland")) })
            try await workspace.withService(over: alice) { service in
                _ = try await service.session(interaction: Unattended()) { try await $0.logIn() }
            }
            #expect(workspace.sessions.exists(portal: "demo", user: "alice"))
            let headlines = try Self.catalog.recipe(portal: "demo", command: "headlines")
            let connection = workspace.connection(
                for: headlines, on: portal, as: "alice",
                credentials: { throw UniToolError(.internal, "a public command asked for a password") })
            #expect(connection.termsThrough?.user == "alice")
            #expect(connection.user == "")
            await connection.close()
        }
    }

    @Test("the history is opened once and shared; a workspace that keeps none has none")
    func historyOnce() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        let kept = Workspace(locations: sandbox.locations, history: .kept(retentionDays: 7), logger: Logger(label: "test"))
        let first = try #require(kept.history)
        #expect(first === kept.history)
        #expect(first.retentionDays == 7)
        #expect(Workspace(locations: sandbox.locations, logger: Logger(label: "test")).history == nil)
    }
}
