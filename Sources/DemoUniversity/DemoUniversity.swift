import Foundation
import HTTPTypes
import Hummingbird
import Logging
import MessageDigest
import NIOCore
import ServiceLifecycle
import Synchronization
import WebEncoding

/// The bundled demo university: a Shibboleth-style IdP and a campus portal (the SP) that trust
/// each other through SAML 2.0, served on 127.0.0.1 on a port the system picks.
///
/// It starts inside the unitool process for `--portal demo`, and inside the tests, so that
/// everything unitool does can be seen and tested with no account anywhere.
public final class DemoUniversity: Sendable {
    /// Where the portal is: `http://127.0.0.1:PORT`. The IdP is under `/idp`.
    public let baseURL: URL
    /// The same university on further loopback addresses (`127.0.0.2`), by host: its services
    /// on origins of their own, whose cookies the browser keeps apart, behind the one IdP.
    public let serviceHosts: [String: URL]
    private let task: Task<Void, any Error>
    private let serviceTasks: [Task<Void, any Error>]
    /// The servers' service groups, asked to shut down gracefully on `stop()`: a server whose
    /// task is cancelled drops the connections it accepted but had not begun, and NIO traps on
    /// such a connection's writer ("Deinited NIOAsyncWriter without calling finish()"), which
    /// once ended the whole test process.
    private let groups: [ServiceGroup]
    private let state: DemoState

    /// The SP's audience, as an IdP would know it from the SP's metadata.
    static let audience = "https://demo.unitool.invalid/sp"
    /// The SP signs its session cookie with a fixed key, so that a saved session stays valid
    /// across runs even though each run starts a new demo server.
    static var cookieKey: [UInt8] { Array("unitool demo university session key".utf8) }
    public static let sessionCookie = "demo_sp_session"
    /// The IdP's SAML entity ID, the value its entry has in the discovery service's list.
    public static let idpEntityID = "https://demo.unitool.invalid/idp"
    static let sessionLifetime: TimeInterval = 30 * 60

    private init(
        baseURL: URL, task: Task<Void, any Error>, state: DemoState, serviceHosts: [String: URL] = [:],
        serviceTasks: [Task<Void, any Error>] = [], groups: [ServiceGroup] = []
    ) {
        self.groups = groups
        self.baseURL = baseURL
        self.task = task
        self.state = state
        self.serviceHosts = serviceHosts
        self.serviceTasks = serviceTasks
    }

    /// Starts the demo and returns once it accepts connections.
    ///
    /// - Parameter stopOnSignals: stop gracefully on SIGINT and SIGTERM, for `unitool demo serve`.
    /// Runs `body` with a demo university, and stops it, awaited, whatever `body` does: the
    /// scoped form (as async-http-client's `withHTTPClient`), so that no test leaves one running.
    public static func withRunning<T: Sendable>(
        faults: DemoFaults = DemoFaults(), now: @escaping @Sendable () -> Date = { Date() }, serviceHosts: [String] = [],
        _ body: (DemoUniversity) async throws -> T
    ) async throws -> T {
        let demo = try await start(faults: faults, now: now, serviceHosts: serviceHosts)
        do {
            let result = try await body(demo)
            await demo.stop()
            return result
        } catch {
            await demo.stop()
            throw error
        }
    }

    /// - Parameter stateFile: where the demo keeps renewals and posted grades across its runs
    ///   (`stateFile(in:)`); nil, as in the tests, starts from the same state every time.
    /// - Parameter rendezvous: for `unitool demo serve`: the key whose proof the demo gives to
    ///   commands that found it by its rendezvous file (see `DemoRendezvous`).
    public static func start(
        faults: DemoFaults = DemoFaults(), port: Int = 0, stopOnSignals: Bool = false, logger: Logger? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, serviceHosts: [String] = [], stateFile: URL? = nil,
        rendezvous: DemoRendezvous? = nil
    ) async throws
        -> DemoUniversity
    {
        var faults = faults
        // Services signing on at one IdP need the IdP's own session, as every real IdP keeps one.
        if !serviceHosts.isEmpty { faults.loginVariants.insert(.idpSession) }
        let (state, prepared, idpOrigin) = prepare(faults: faults, now: now, stateFile: stateFile)
        var routes = prepared
        routes.rendezvous = rendezvous
        var quiet = logger ?? Logger(label: "demo-university")
        if logger == nil { quiet.logLevel = .critical }
        let idp = await serve(
            routes, faults: faults, state: state, host: "127.0.0.1", port: port, stopOnSignals: stopOnSignals,
            logger: quiet)
        guard let boundPort = idp.port else {
            idp.task.cancel()
            throw DemoError.couldNotStart("the server did not start listening on 127.0.0.1")
        }
        let task = idp.task
        var groups = [idp.group]
        let base = URL(string: "http://127.0.0.1:\(boundPort)")!
        if !serviceHosts.isEmpty { idpOrigin.set(base.absoluteString) }
        // The services: the same routes and state on other loopback addresses, signing on at the
        // IdP above, as a university's LMS and library sign on at its one IdP.
        var hosts: [String: URL] = [:]
        var serviceTasks: [Task<Void, any Error>] = []
        for host in serviceHosts {
            let service = await serve(routes, faults: faults, state: state, host: host, port: 0, stopOnSignals: false, logger: quiet)
            groups.append(service.group)
            serviceTasks.append(service.task)
            guard let hostPort = service.port else {
                task.cancel()
                for started in serviceTasks { started.cancel() }
                throw DemoError.couldNotStart("the server did not start listening on \(host)")
            }
            hosts[host] = URL(string: "http://\(host):\(hostPort)")!
        }
        return DemoUniversity(baseURL: base, task: task, state: state, serviceHosts: hosts, serviceTasks: serviceTasks, groups: groups)
    }

    /// The demo's state and routes for `faults`: a new SAML key and boot id, and the state kept
    /// in `stateFile` if one is given.
    static func prepare(faults: DemoFaults, now: @escaping @Sendable () -> Date, stateFile: URL? = nil) -> (
        DemoState, DemoRoutes, DemoIdPOrigin
    ) {
        let state = DemoState(termsVersion: faults.termsVersion ?? initialTermsVersion, stateFile: stateFile)
        let samlKey = Data((0..<32).map { _ in UInt8.random(in: 0...255) })
        let idpOrigin = DemoIdPOrigin()
        let routes = DemoRoutes(
            state: state, samlKeyBytes: samlKey, faults: faults, bootID: String(UInt64.random(in: 0...UInt64.max), radix: 36), now: now,
            idpOrigin: idpOrigin)
        return (state, routes, idpOrigin)
    }

    /// Every route of the demo behind its fault middleware: what each of its servers serves.
    static func router(_ routes: DemoRoutes, faults: DemoFaults, state: DemoState) -> Router<BasicRequestContext> {
        let router = Router()
        router.middlewares.add(FaultMiddleware(faults: faults, state: state))
        routes.register(on: router)
        return router
    }

    /// The demo as an application that is never bound to a port, for Hummingbird's `app.test`:
    /// its routes tested request by request, in process.
    static func application(faults: DemoFaults = DemoFaults(), now: @escaping @Sendable () -> Date = { Date() }) -> some ApplicationProtocol
    {
        let (state, routes, _) = prepare(faults: faults, now: now)
        return Application(router: router(routes, faults: faults, state: state))
    }

    /// One server of the demo: `routes` behind the fault middleware on `host:port` (0 for any
    /// free port), run in a service group of its own (stopped gracefully by SIGINT and SIGTERM
    /// with `stopOnSignals`, for `unitool demo serve`). Returns once it listens, with the port it
    /// bound; nil for the port when it did not start within 15 seconds.
    private static func serve(
        _ routes: DemoRoutes, faults: DemoFaults, state: DemoState, host: String, port: Int, stopOnSignals: Bool,
        logger: Logger
    ) async -> (group: ServiceGroup, task: Task<Void, any Error>, port: Int?) {
        let (ports, continuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router(routes, faults: faults, state: state),
            configuration: .init(address: .hostname(host, port: port), serverName: "DemoUniversity"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        let group = ServiceGroup(
            configuration: .init(
                services: [app], gracefulShutdownSignals: stopOnSignals ? [.sigint, .sigterm, .sighup] : [], logger: logger))
        // Unstructured by necessity: the server outlives this call, until `stop()`.
        let task = Task {
            // A server that cannot bind (the port is taken) ends at once: so does the wait below.
            defer { continuation.finish() }
            try await group.run()
        }
        let bound = await withTaskGroup(of: Int?.self) { startup in
            startup.addTask { await ports.first { _ in true } }
            startup.addTask {
                try? await Task.sleep(for: .seconds(15))
                return nil
            }
            let first = await startup.next() ?? nil
            startup.cancelAll()
            return first
        }
        return (group, task, bound.flatMap { $0 > 0 ? $0 : nil })
    }

    /// Stops the server and waits until it has.
    ///
    /// Gracefully: the servers stop accepting and finish what they accepted. A server still busy
    /// after 5 seconds (a client that keeps a request open) is cancelled.
    public func stop() async {
        for group in groups { await group.triggerGracefulShutdown() }
        let tasks = [task] + serviceTasks
        await withTaskGroup(of: Void.self) { stopping in
            stopping.addTask {
                for task in tasks { _ = await task.result }
            }
            stopping.addTask {
                // Cut short when the servers ended first (cancelling a finished task does
                // nothing), and at once for a caller that is itself cancelled.
                try? await Task.sleep(for: .seconds(5))
                for task in tasks { task.cancel() }
            }
            // Whichever ends first; the wait for the servers is always the last to end.
            await stopping.next()
            stopping.cancelAll()
        }
    }

    /// Waits until the server stops, for example on a signal.
    public func waitUntilStopped() async {
        _ = await task.result
    }

    /// Where `/lab/signed` redirects: escapes that must reach the server as they are (`%2B` is not
    /// `+`, `%2F` is not `/`), as in a signed URL whose signature breaks if it is re-encoded.
    public static let signedRedirectLocation = "/lab/echo?sig=ab%2Bc%2Fd%3D%3D&note=a+b&x=%7E"

    /// The version of the terms of use the demo starts with.
    public static let initialTermsVersion = "2026-09"

    /// Publishes a new version of the terms of use, as a portal does when its lawyers change
    /// them: clients that accepted the old one must ask their user again.
    public func publishTerms(version: String) async {
        await state.setTermsVersion(version)
    }

    /// Posts a grade while the demo runs, as a lecturer does in a real portal: the course (by its
    /// code, in a term) gets this grade on the grades page from now on. For watch tests.
    public func postGrade(user: String, term: String, code: String, grade: String, points: Double?, date: String) async {
        await state.post(grade: grade, points: points, date: date, user: user, term: term, code: code)
    }

    /// Records an absence from a course today, as a lecturer's roll call does: the attendance page
    /// shows one more class missed and one absence fewer left. For watch and `today` tests.
    public func recordAbsence(user: String, code: String, on date: Date = Date()) async {
        await state.recordAbsence(user: user, code: code, day: DemoTermCalendar(around: date).today)
    }

    /// Gives the grades page a changed layout (or the usual one back), as a portal's redesign
    /// does: a recipe then finds nothing it knows.
    public func changeLayout(_ changed: Bool) async {
        await state.setLayoutChanged(changed)
    }

    /// Holds the next request with this method and path once it has arrived, before its route
    /// runs, until the test calls `release()` on the hold: a request in flight, for as long as
    /// the test needs, with no sleep.
    public func hold(_ method: String, _ path: String) -> DemoHold {
        let hold = DemoHold(method: method, path: path)
        state.holds.add(hold)
        return hold
    }

    /// How many HTTP requests the demo has served: a benchmark counts them.
    public var requestCount: Int { get async { await state.requestCount } }

    /// Every request the demo has served, in order.
    public var requests: [DemoRequest] { get async { await state.requests } }
    /// How many one-time codes the IdP refused because they had been used already.
    public var reusedCodes: Int { get async { await state.reusedCodes } }
    /// How many `trickle` bodies were sent to their end: a client bounded by a deadline over the
    /// whole request leaves long before one is.
    public var tricklesFinished: Int { get async { await state.tricklesFinished } }
    /// Passwords the IdP was sent, and one-time codes it accepted, since the demo started.
    public var passwordsReceived: Int { get async { await state.passwordsReceived } }
    public var codesAccepted: Int { get async { await state.codesAccepted } }
}

/// Delays, errors and request counting, applied before any route.
struct FaultMiddleware<Context: RequestContext>: RouterMiddleware {
    let faults: DemoFaults
    let state: DemoState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        await state.record(DemoRequest(method: request.method.rawValue, host: request.head.authority ?? "", path: request.uri.path))
        if let hold = state.holds.claim(method: request.method.rawValue, path: request.uri.path) { await hold.arrive() }
        if faults.latencyMilliseconds > 0 {
            try await Task.sleep(for: .milliseconds(faults.latencyMilliseconds))
        }
        let path = request.uri.path
        // As LemonLDAP::NG's portal does (Lemonldap::NG::Common::PSGI::Request::wantJSON, 2.x): an
        // `Accept` that names JSON is an AJAX call, answered 401 with a JSON error instead of the
        // login page. Every login through the demo passes here, so a client that loads pages as no
        // browser does cannot sign in.
        if path.hasPrefix("/idp"), let accept = request.headers[.accept],
            accept.range(of: "(application|text)/json", options: [.regularExpression, .caseInsensitive]) != nil
        {
            return DemoRoutes.json(#"{"result":0,"error":"9"}"#, status: .unauthorized)
        }
        if path.hasPrefix("/idp"), faults.idpDown {
            return DemoRoutes.html(
                HTML.page(title: "Service Unavailable", body: "<h1>503 Service Unavailable</h1><p>The login service is down.</p>"),
                status: .serviceUnavailable)
        }
        let isDataPage = !["/idp", "/Shibboleth", "/api/terms", "/api/demo", "/lab", "/static"].contains { path.hasPrefix($0) }
        guard isDataPage else { return try await next(request, context) }
        if faults.hang {
            // Held until the client gives up (or the demo stops).
            try await Task.sleep(for: .seconds(3600))
        }
        if faults.requestTooLarge {
            return DemoRoutes.html(
                HTML.page(title: "Request Header Fields Too Large", body: "<h1>431 Request Header Fields Too Large</h1>"),
                status: HTTPResponse.Status(code: 431))
        }
        if faults.foreignRedirect, request.head.authority?.hasPrefix("127.0.0.1") == true {
            // The foreign origin answers with a page of its own (here a 404), not a login.
            let port = request.head.authority?.split(separator: ":").last.map(String.init) ?? "80"
            return DemoRoutes.redirect(to: "http://localhost:\(port)/moved-elsewhere", status: .found)
        }
        if faults.trickle {
            var headers = HTTPFields()
            headers[.contentType] = "text/html; charset=utf-8"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    for _ in 0..<60 {
                        try await writer.write(ByteBuffer(string: " "))
                        try await Task.sleep(for: .seconds(2))
                    }
                    try await writer.finish(nil)
                    await state.finishedTrickle()
                })
        }
        if faults.redirectLoop {
            return DemoRoutes.redirect(to: request.uri.description, status: .found)
        }
        if let status = faults.busyOnce, await state.firstTimeBusy(request.uri.description) {
            var response = DemoRoutes.html(
                HTML.page(title: "Busy", body: "<h1>The portal is busy</h1><p>Please try again in a moment.</p>"),
                status: HTTPResponse.Status(code: status))
            if status == 429 { response.headers[.retryAfter] = "1" }
            return response
        }
        if faults.serverError {
            let status = HTTPResponse.Status(code: faults.serverErrorStatus)
            return DemoRoutes.html(
                HTML.page(title: "Server error", body: "<h1>\(status.code) \(status.reasonPhrase)</h1>"), status: status)
        }
        if let size = faults.hugePageBytes {
            return Self.hugePage(bytes: size)
        }
        let response = try await next(request, context)
        guard response.status == .ok, faults.resetMidBody || faults.truncatedBody || faults.invalidUTF8 || faults.legacyCharset else {
            return response
        }
        return try await Self.damage(response, faults: faults)
    }

    /// A page of `bytes` bytes, written in pieces so that the demo never holds it all.
    static func hugePage(bytes: Int) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        let head = ByteBuffer(string: "<html><head><title>Huge</title></head><body><!-- ")
        let tail = ByteBuffer(string: " --></body></html>")
        let piece = ByteBuffer(repeating: UInt8(ascii: "x"), count: 64 * 1024)
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody(contentLength: bytes) { writer in
                try await writer.write(head)
                var left = bytes - head.readableBytes - tail.readableBytes
                while left > 0 {
                    try await writer.write(piece.getSlice(at: 0, length: min(left, piece.readableBytes))!)
                    left -= piece.readableBytes
                }
                try await writer.write(tail)
                try await writer.finish(nil)
            })
    }

    struct CutConnection: Error {}

    /// Breaks a finished page the way the faults ask: bytes that are not UTF-8 in the first
    /// table cell, or the connection closed half-way through the body.
    static func damage(_ response: Response, faults: DemoFaults) async throws -> Response {
        let collector = BodyCollector()
        try await response.body.write(CollectingWriter(collector: collector))
        var bytes = collector.bytes
        if faults.invalidUTF8, let cell = bytes.firstRange(of: Array("<td".utf8)),
            let end = bytes[cell.upperBound...].firstIndex(of: UInt8(ascii: ">"))
        {
            bytes.insert(contentsOf: [0xFF, 0xFE, 0xC3, 0x28], at: end + 1)
        }
        var headers = response.headers
        headers[.contentLength] = nil
        if faults.legacyCharset, headers[.contentType]?.hasPrefix("text/html") == true {
            // The page's own <meta charset> goes; only the HTTP header names the encoding.
            let text = String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "<meta charset=\"utf-8\">", with: "")
            bytes = WebEncoding.shiftJIS.encodeForForm(text)
            headers[.contentType] = "text/html; charset=Shift_JIS"
        }
        let half = ByteBuffer(bytes: bytes.prefix(bytes.count / 2))
        if faults.truncatedBody {
            return Response(
                status: response.status, headers: headers,
                body: ResponseBody(contentLength: bytes.count) { writer in
                    try await writer.write(half)
                    throw CutConnection()
                })
        }
        if faults.resetMidBody {
            return Response(
                status: response.status, headers: headers,
                body: ResponseBody { writer in
                    try await writer.write(half)
                    try await Task.sleep(for: .milliseconds(20))
                    throw CutConnection()
                })
        }
        return Response(status: response.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

/// Reads a response body back, for the faults that break a page the routes made.
final class BodyCollector: @unchecked Sendable {
    var bytes: [UInt8] = []
}

struct CollectingWriter: ResponseBodyWriter {
    let collector: BodyCollector
    mutating func write(_ buffer: ByteBuffer) async throws { collector.bytes += Array(buffer: buffer) }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

/// One request as the demo saw it.
public struct DemoRequest: Sendable, Equatable, CustomStringConvertible {
    public let method: String
    /// The Host header: `127.0.0.1:PORT`, or a look-alike such as `localhost:PORT`.
    public let host: String
    public let path: String

    public var description: String { "\(method) \(host)\(path)" }

    /// True for the terms-of-use version API, which every data command asks once.
    public var isTermsCheck: Bool { path.hasPrefix("/api/terms") }
    /// True for requests that are part of a login (IdP, discovery, assertion consumer).
    public var isLogin: Bool { path.hasPrefix("/idp/") || path.hasPrefix("/Shibboleth.sso/") }
}

/// Where the demo's IdP is, once the main server knows its port: the services on other hosts
/// send their sign-ons there.
final class DemoIdPOrigin: Sendable {
    private let value = Mutex<String?>(nil)
    func set(_ origin: String) { value.withLock { $0 = origin } }
    var origin: String? { value.withLock { $0 } }
}
