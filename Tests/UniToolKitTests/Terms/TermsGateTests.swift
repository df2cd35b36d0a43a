import DemoUniversity
import Foundation
import Testing
import UniToolKit
import UniToolTestSupport

/// The terms check every data call makes inside the service, against the demo's terms API, in
/// process. What the `terms` commands print, and the prompt on a terminal, stay in
/// EndToEndTests/TermsCommandTests.
@Suite("The terms gate of the service")
struct TermsGateTests {
    var stale: (String) -> String { { "accept version \($0)" } }

    @Test("on a fresh state a data call is refused, naming 'terms accept' and 'terms show', and only the terms API is asked")
    func firstRunRefuses() async throws {
        let bench = try DemoServiceBench(acceptingTerms: false)
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            let error = await #expect(throws: UniToolError.self) { try await bench.run("grades", on: demo) }
            #expect(error?.kind == .termsNotAccepted)
            #expect(error?.message.contains("you have not accepted the terms of use of Demo University (current version 2026-09)") == true)
            #expect(error?.hint?.contains("unitool terms accept --portal demo") == true, "\(String(describing: error))")
            #expect(error?.hint?.contains("unitool terms show --portal demo") == true)
            let requests = await demo.requests
            #expect(requests.map(\.path) == ["/api/terms/version"], "\(requests)")
        }
    }

    @Test("a damaged record of accepted terms stops data calls (state_corrupt), and accepting the terms replaces it, as the hint says")
    func damagedRecordIsReplacedByAccept() async throws {
        let bench = try DemoServiceBench(acceptingTerms: false)
        defer { bench.remove() }
        let file = bench.acceptedTerms.directory.appendingPathComponent("demo.json")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try "garbage".write(to: file, atomically: true, encoding: .utf8)
        try await DemoUniversity.withRunning { demo in
            let error = await #expect(throws: UniToolError.self) { try await bench.run("library-calendar", on: demo) }
            #expect(error?.kind == .stateCorrupt)
            #expect(error?.hint?.contains("run 'unitool terms accept --portal demo'") == true, "\(String(describing: error))")
            let accepted = try await bench.withService(on: demo) { _, connection in
                try await connection.acceptTerms(version: nil, store: bench.acceptedTerms, staleHint: stale)
            }
            #expect(accepted == "2026-09")
            let calendar = try await bench.run("library-calendar", on: demo)
            #expect(!calendar.records.isEmpty)
        }
    }

    @Test("a terms bump while the portal runs: refused with both versions until the new one is accepted; a stale version is refused")
    func bumpAtRunTime() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        try await DemoUniversity.withRunning { demo in
            _ = try await bench.run("grades", on: demo)
            await demo.publishTerms(version: "2027-02")
            let refused = await #expect(throws: UniToolError.self) { try await bench.run("grades", on: demo) }
            #expect(refused?.kind == .termsNotAccepted)
            #expect(refused?.message.contains("you accepted version 2026-09, the portal now has version 2027-02") == true)

            let before = try Data(contentsOf: bench.acceptedTerms.directory.appendingPathComponent("demo.json"))
            let staleError = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { _, connection in
                    try await connection.acceptTerms(version: "2026-09", store: bench.acceptedTerms, staleHint: stale)
                }
            }
            #expect(staleError?.kind == .termsVersionStale)
            #expect(staleError?.message.contains("version 2026-09 is not the current version") == true)
            #expect(staleError?.message.contains("current: 2027-02") == true)
            #expect(staleError?.hint == "accept version 2027-02")
            let after = try Data(contentsOf: bench.acceptedTerms.directory.appendingPathComponent("demo.json"))
            #expect(after == before, "a refused accept changed the record of accepted terms")

            let status = try await bench.withService(on: demo) { _, connection in try await connection.termsStatus(bench.acceptedTerms) }
            #expect(status.current?.version == "2027-02")
            #expect(status.accepted?.version == "2026-09")
            #expect(!status.isUpToDate)

            _ = try await bench.withService(on: demo) { _, connection in
                try await connection.acceptTerms(version: "2027-02", store: bench.acceptedTerms, staleHint: stale)
            }
            let grades = try await bench.run("grades", on: demo)
            #expect(grades.records.contains { $0["course"]?.text == "Probability Theory" })
        }
    }

    @Test(
        "every failure of the terms API is terms_unavailable with its cause; no login is made, and the accepted terms are kept",
        arguments: [
            ("terms-api=error", "answered 500"),
            ("terms-api=not-json", "did not answer with JSON"),
            ("terms-api=no-version", "without the field 'version'"),
            ("terms-api=number-version", "gave 'version' as a number"),
        ])
    func apiFailures(fault: String, cause: String) async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let file = bench.acceptedTerms.directory.appendingPathComponent("demo.json")
        let before = try Data(contentsOf: file)
        try await DemoUniversity.withRunning(faults: try DemoFaults(parsing: fault)) { demo in
            let error = await #expect(throws: UniToolError.self) { try await bench.run("grades", on: demo) }
            #expect(error?.kind == .termsUnavailable)
            #expect(error?.message.contains(cause) == true, "\(String(describing: error))")
            // With terms accepted before, the first page is asked for beside the check, but the
            // login it meets waits for the verdict: no form is posted to the IdP.
            let posts = await demo.requests.filter { $0.method == "POST" }
            #expect(posts.isEmpty, "\(posts)")

            for call in ["status", "accept"] {
                let failure = await #expect(throws: UniToolError.self) {
                    try await bench.withService(on: demo) { _, connection in
                        if call == "status" { _ = try await connection.termsStatus(bench.acceptedTerms) }
                        _ = try await connection.acceptTerms(version: nil, store: bench.acceptedTerms, staleHint: stale)
                    }
                }
                #expect(failure?.kind == .termsUnavailable, "\(call)")
            }
            let after = try Data(contentsOf: file)
            #expect(after == before)
        }
    }

    @Test("an unreachable terms API fails closed with the network's kind (portal_unreachable) and says the terms could not be checked")
    func unreachableAPI() async throws {
        let bench = try DemoServiceBench()
        defer { bench.remove() }
        let error = await #expect(throws: UniToolError.self) {
            try await bench.withService(at: URL(string: "http://127.0.0.1:1")!) { service, _ in
                try await service.execute(try bench.request("grades"), of: try bench.recipe("grades"), interaction: Unattended())
            }
        }
        #expect(error?.kind == .portalUnreachable)
        #expect(error?.message.contains("cannot check the terms of use of Demo University") == true, "\(String(describing: error))")
        #expect(error?.message.contains("127.0.0.1:1") == true)
    }

    @Test("versions compare by exact code points: accepting an NFD version when the portal serves NFC is refused as stale")
    func decomposedVersionIsNotTheServedOne() async throws {
        let bench = try DemoServiceBench(acceptingTerms: false)
        defer { bench.remove() }
        var faults = DemoFaults()
        faults.termsVersion = "2026-\u{E9}t\u{E9}"
        try await DemoUniversity.withRunning(faults: faults) { demo in
            let decomposed = "2026-e\u{301}te\u{301}"
            let staleError = await #expect(throws: UniToolError.self) {
                try await bench.withService(on: demo) { _, connection in
                    try await connection.acceptTerms(version: decomposed, store: bench.acceptedTerms, staleHint: stale)
                }
            }
            #expect(staleError?.kind == .termsVersionStale)
            let accepted = try bench.acceptedTerms.load(portal: "demo")
            #expect(accepted == nil, "terms were accepted under a version the portal did not serve")

            try bench.acceptedTerms.save(AcceptedTerms(portal: "demo", version: decomposed))
            let refused = await #expect(throws: UniToolError.self) { try await bench.run("grades", on: demo) }
            #expect(refused?.kind == .termsNotAccepted)

            _ = try await bench.withService(on: demo) { _, connection in
                try await connection.acceptTerms(version: "2026-\u{E9}t\u{E9}", store: bench.acceptedTerms, staleHint: stale)
            }
            let grades = try await bench.run("grades", on: demo)
            #expect(!grades.records.isEmpty)
        }
    }
}
