import Foundation
import Testing
import UniToolKit
import UniToolRPC
import UniToolTestSupport

/// Every JSON-RPC method's parameters go through one schema (`RPCMethods.schemas`, issue 51,
/// deliverable 4): whatever the method, an unknown parameter or a value of the wrong type is
/// -32602 naming it, before anything is asked of the portal, and `initialize` publishes them.
@Suite("JSON-RPC: one schema per method, one error for every mistake in the params")
struct RPCParamsSchemaTests {
    /// A value of another type than `kind` takes.
    static func wrong(_ kind: ArgumentSchema.Kind) -> String {
        switch kind {
        case .string, .strings, .object: return "5"
        case .boolean, .integer: return #""x""#
        case .stringOrNumber: return "true"
        }
    }

    @Test("every method: an unknown parameter, and each parameter given the wrong type, is -32602 naming it; nothing reaches the portal")
    func everyMethod() async throws {
        try await RPCMethodsTests.withHost { host in
            var requests: [String] = []
            var expected: [(id: Int, method: String, parameter: String)] = []
            for (method, schema) in RPCMethods.schemas.sorted(by: { $0.key < $1.key }) {
                requests.append(RPCMethodsTests.request(requests.count + 1, method, #"{"bogus":1}"#))
                expected.append((requests.count, method, "bogus"))
                for property in schema.properties {
                    requests.append(
                        RPCMethodsTests.request(requests.count + 1, method, #"{"\#(property.name)":\#(Self.wrong(property.kind))}"#))
                    expected.append((requests.count, method, property.name))
                }
            }
            // shutdown is sent last: it ends the work for every request after it.
            let ordered = requests.enumerated().sorted { first, second in
                (expected[first.offset].method == "shutdown" ? 1 : 0) < (expected[second.offset].method == "shutdown" ? 1 : 0)
            }.map(\.element)
            let answers = await RPCMethodsTests.call(ordered, host: host)
            for (id, method, parameter) in expected {
                let error = answers[String(id)]?["error"]
                #expect(error?["code"] == .number(-32602), "\(method) \(parameter): \(String(describing: answers[String(id)]))")
                #expect(error?["message"]?.stringValue?.contains("'\(parameter)'") == true, "\(method): \(String(describing: error))")
                #expect(error?["data"]?["exit_code"] == .number(64), "\(method) \(parameter)")
            }
            #expect(expected.count > RPCMethods.schemas.count * 2, "the methods have parameters to test")
            let asked = await host.demo.requests
            #expect(asked.isEmpty, "a refused call asked the portal: \(asked)")
        }
    }

    @Test("every method the server offers has a schema: none goes unchecked")
    func covered() async throws {
        try await RPCMethodsTests.withHost { host in
            let offered = Set(RPCMethods(host: host).table.keys)
            #expect(offered.isSubset(of: Set(RPCMethods.schemas.keys)), "\(offered.subtracting(RPCMethods.schemas.keys))")
        }
    }

    @Test("initialize publishes each method's parameters as JSON Schema, additionalProperties false")
    func published() async throws {
        try await RPCMethodsTests.withHost { host in
            let answers = await RPCMethodsTests.call([RPCMethodsTests.request(1, "initialize")], host: host)
            let params = answers["1"]?["result"]?["capabilities"]?["params"]
            for name in RPCMethods.names where name != "exit" {
                #expect(params?[name]?["additionalProperties"] == .bool(false), "\(name)")
            }
            #expect(params?["recipes.run"]?["required"] == .array([.string("recipe")]))
            #expect(params?["search"]?["properties"]?["limit"]?["maximum"] != nil)
            #expect(params?["today"]?["properties"]?["progressToken"]?["type"] == .array([.string("string"), .string("number")]))
        }
    }
}
