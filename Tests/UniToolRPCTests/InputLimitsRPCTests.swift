import Foundation
import Testing
import UniToolKit
import UniToolRPC

/// Inputs out of bounds over JSON-RPC, in process: the call is refused as invalid params, and the
/// server goes on serving the next request.
@Suite("JSON-RPC inputs out of bounds, in process")
struct InputLimitsRPCTests {
    @Test("recipes.run with a huge since is -32602, and the server goes on answering")
    func hugeSince() async throws {
        try await RPCMethodsTests.withHost { host in
            let answers = await RPCMethodsTests.call(
                [
                    RPCMethodsTests.request(
                        1, "recipes.run", #"{"portal":"demo","recipe":"news","options":{"since":"9999999999999999d"}}"#),
                    RPCMethodsTests.request(2, "portals.list"),
                ], host: host)
            let refused = answers["1"]
            #expect(refused?["error"]?["code"] == .number(-32602), "\(String(describing: refused))")
            #expect(refused?["error"]?["message"]?.stringValue?.contains("from 0 to 36500") == true, "\(String(describing: refused))")
            let next = answers["2"]
            #expect(next?["result"] != nil, "the server answers the next request: \(String(describing: next))")
        }
    }
}
