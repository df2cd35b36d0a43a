import Foundation
import Testing
import UniToolKit
import UniToolMCP
import UniToolRPC
import UniToolTestSupport

/// MCP's lifecycle where the spec is strict (issue 51, deliverable 6): `initialize` once and with
/// a `protocolVersion`, and batches only for the version that had them.
@Suite("MCP: initialize once, with a version; batches only where the agreed version has them")
struct MCPLifecycleTests {
    static func initialize(_ version: String?) throws -> RPCRequest {
        let params =
            version.map { #"{"protocolVersion":"\#($0)","capabilities":{},"clientInfo":{"name":"t","version":"1"}}"# }
            ?? #"{"capabilities":{},"clientInfo":{"name":"t","version":"1"}}"#
        return RPCRequest(id: .number(1), method: "initialize", params: try JSONParser.parse(params))
    }

    func server(_ host: DemoRPCHost) throws -> UniToolMCPServer {
        UniToolMCPServer(host: host, portal: try host.catalog.portal("demo"), user: "alice")
    }

    @Test("initialize without protocolVersion is -32602 naming it; a second initialize is -32600 and keeps the agreed version")
    func initializeOnce() async throws {
        try await RPCMethodsTests.withHost { host in
            let server = try server(host)
            let initialize = try #require(server.methods["initialize"])
            let unversioned = try Self.initialize(nil)
            await #expect {
                _ = try await initialize(unversioned)
            } throws: { error in
                (error as? RPCError).map { $0.code == -32602 && $0.message.contains("'protocolVersion' is required") } ?? false
            }
            let first = try await initialize(try Self.initialize("2025-03-26"))
            #expect(first["protocolVersion"] == .string("2025-03-26"))
            let again = try Self.initialize("2025-06-18")
            await #expect {
                _ = try await initialize(again)
            } throws: { error in
                (error as? RPCError).map { $0.code == -32600 && $0.message.contains("initialized already (MCP 2025-03-26)") } ?? false
            }
            // 2025-03-26 had batches, and the failed renegotiation did not take them away.
            #expect(server.batchRefusal() == nil)
        }
    }

    @Test("batches are refused before initialize and from 2025-06-18 on, and taken for 2025-03-26")
    func batches() async throws {
        try await RPCMethodsTests.withHost { host in
            let fresh = try server(host)
            #expect(fresh.batchRefusal()?.contains("has no batches") == true, "before initialize the latest version's rule holds")
            for (version, refused) in [("2025-06-18", true), ("2025-11-25", true), ("2025-03-26", false), ("2024-11-05", false)] {
                let server = try server(host)
                let initialize = try #require(server.methods["initialize"])
                let request = try Self.initialize(version)
                _ = try await initialize(request)
                #expect((server.batchRefusal() != nil) == refused, "\(version)")
            }
        }
    }
}
