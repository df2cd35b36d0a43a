import Foundation

/// What the demo's IdP and SP remember between requests.
actor DemoState {
    struct PendingRequest {
        let target: String
        let created: Date
    }

    enum LoginStep { case localStorage, userID, password, combined, oneTimeCode, consent }

    struct LoginFlow {
        var request: SAML.AuthnRequest
        var relayState: String
        var csrf: String
        var step: LoginStep
        var username: String?
    }

    /// AuthnRequest IDs the SP sent and has not yet seen answered, with where to go afterwards.
    private var pendingRequests: [String: PendingRequest] = [:]
    /// RelayState tokens to the SP page that started the login.
    private var relayStates: [String: String] = [:]
    /// IdP login conversations, by their `execution` key.
    private var flows: [String: LoginFlow] = [:]
    private var nextExecution = 1
    /// Count of requests served, for tests and benchmarks.
    private(set) var requestCount = 0
    /// Requests a test asked the demo to hold on arrival (`DemoUniversity.hold`).
    nonisolated let holds = DemoHolds()
    /// The version of the terms of use now in force; a test can bump it while the demo runs.
    var termsVersion: String

    typealias Remembered = DemoMemory.Remembered

    /// What the demo remembers across its runs (renewals, posted grades, purchase requests,
    /// absences): in `demo.json` when it has a file (the CLI's demo and `demo serve` do; a test's
    /// does not), else here only.
    private let memory: DemoMemory?
    private var remembered = Remembered()
    /// The file's identity when `remembered` was read from it: another process's write (a
    /// command's own demo, `demo post-grade`) renames a new file in, and is seen at the next request.
    private var readSignature: DemoMemory.Signature?
    /// Set when the file could not be written: from then on this demo keeps its memory here, as
    /// a demo without a file does, rather than lose its own changes by reading the file again.
    private var detached = false

    init(termsVersion: String, stateFile: URL? = nil) {
        self.termsVersion = termsVersion
        self.memory = stateFile.map(DemoMemory.init)
    }

    /// What is remembered now: the file read again if another process changed it since.
    private func current() -> Remembered {
        guard let memory, !detached else { return remembered }
        let signature = memory.signature()
        if signature != readSignature || signature == nil {
            remembered = memory.load()
            readSignature = signature
        }
        return remembered
    }

    /// Changes what is remembered: with a file, under its lock, on what the file holds now, so
    /// that a change another process made meanwhile is kept, not overwritten.
    private func change<T>(_ body: (inout Remembered) -> T) -> T {
        guard let memory, !detached else { return body(&remembered) }
        let (result, now, written) = memory.update(body)
        remembered = now
        readSignature = memory.signature()
        detached = !written
        return result
    }

    /// Whether the grades page has its changed layout now (`DemoUniversity.changeLayout`).
    var layoutChangedNow = false

    func post(grade: String, points: Double?, date: String, user: String, term: String, code: String) {
        change { $0.postedGrades["\(user)/\(term)/\(code)"] = .init(grade: grade, points: points, date: date) }
    }

    func setLayoutChanged(_ changed: Bool) { layoutChangedNow = changed }

    func purchaseRequests(user: String) -> [DemoPurchaseRequest] { current().purchaseRequests?[user] ?? [] }

    /// Files a request and numbers it: `R2026-0042`, counting every user's requests.
    func addPurchaseRequest(user: String, title: String, author: String, isbn: String, reason: String, date: String) -> DemoPurchaseRequest
    {
        change { remembered in
            var all = remembered.purchaseRequests ?? [:]
            let count = all.values.reduce(0) { $0 + $1.count }
            let request = DemoPurchaseRequest(
                number: "R\(date.prefix(4))-\(String(format: "%04d", 42 + count))", date: date, title: title, author: author, isbn: isbn,
                reason: reason, status: "受付 Received")
            all[user, default: []].append(request)
            remembered.purchaseRequests = all
            return request
        }
    }

    /// Absences recorded while the demo runs (`DemoUniversity.recordAbsence`): days since 1970.
    func absences(user: String, code: String) -> [Int] { current().absences?["\(user)/\(code)"] ?? [] }

    func recordAbsence(user: String, code: String, day: Int) {
        change { $0.absences = DemoMemory.adding(day: day, to: $0.absences, key: "\(user)/\(code)") }
    }

    /// The user with the grades posted since the demo started.
    func withPostedGrades(_ user: DemoUser) -> DemoUser {
        let posted = current().postedGrades
        return DemoMemory.applying(posted, to: user)
    }

    /// Sessions issued before this time (microseconds since 1970) are no longer valid.
    private var revokedBefore: Int64?
    /// Whether the `page-expired` variant has shown its page yet (once per demo).
    private var showedPageExpired = false
    func firstExpiry() -> Bool {
        defer { showedPageExpired = true }
        return !showedPageExpired
    }

    /// One-time codes already accepted, as `user/time step`: an IdP refuses a code twice.
    private var usedCodes: Set<String> = []
    /// How many codes were refused because they had been used before.
    private(set) var reusedCodes = 0

    /// How many passwords the IdP was sent, and how many one-time codes it accepted: what a
    /// single sign-on across services must keep at one each.
    /// Apereo CAS logins in progress (by `execution`), and service tickets not yet validated.
    var casFlows: [String: (service: String, awaitingCodeFor: String?)] = [:]
    var casTickets: [String: (user: String, service: String)] = [:]
    func setCASFlow(_ execution: String, _ flow: (service: String, awaitingCodeFor: String?)?) { casFlows[execution] = flow }
    func issueTicket(user: String, service: String) -> String {
        let ticket = "ST-\(UInt64.random(in: 0...UInt64.max))-demo"
        casTickets[ticket] = (user, service)
        return ticket
    }
    /// A ticket is good once, for the service it was issued to.
    func validateTicket(_ ticket: String, service: String) -> String? {
        guard let issued = casTickets.removeValue(forKey: ticket), issued.service == service else { return nil }
        return issued.user
    }

    private(set) var tricklesFinished = 0
    func finishedTrickle() { tricklesFinished += 1 }

    private(set) var passwordsReceived = 0
    private(set) var codesAccepted = 0
    func receivedPassword() { passwordsReceived += 1 }

    /// Accepts a code's time step once per user.
    func useCode(user: String, step: Int64) -> Bool {
        if usedCodes.insert("\(user)/\(step)").inserted {
            codesAccepted += 1
            return true
        }
        reusedCodes += 1
        return false
    }

    /// The `session-timeout` fault: session cookies the portal has timed out, and whether it
    /// has timed one out yet.
    private var timedOutSessions: Set<String> = []
    private var timedOutOne = false

    /// Whether this session cookie gets the time-out page: the first valid one to arrive does,
    /// and from then on it always does, as a portal that remembers a dead session id.
    func timesOut(_ session: String) -> Bool {
        if timedOutSessions.contains(session) { return true }
        guard !timedOutOne else { return false }
        timedOutOne = true
        timedOutSessions.insert(session)
        return true
    }
    private var sessionsChecked = 0

    /// The `expire-after` fault: the first `limit` requests with a valid session pass; the next
    /// one revokes every session issued so far, and is itself refused, as are later ones that
    /// still carry an old session.
    func admitSession(issuedAt issued: Int64, expireAfter limit: Int, now: Int64) -> Bool {
        sessionsChecked += 1
        if sessionsChecked == limit + 1 { revokedBefore = now }
        guard let revokedBefore else { return true }
        return issued >= revokedBefore
    }

    func setTermsVersion(_ version: String) { termsVersion = version }

    /// Paths that have already answered "busy" once.
    private var busyPaths: Set<String> = []

    /// True the first time a path is seen, for the busy-once fault.
    func firstTimeBusy(_ path: String) -> Bool { busyPaths.insert(path).inserted }

    /// Every request served, in order, for tests that must know exactly what reached the server.
    private(set) var requests: [DemoRequest] = []

    func record(_ request: DemoRequest) {
        requestCount += 1
        requests.append(request)
    }

    func rememberRequest(id: String, target: String) -> String {
        pendingRequests[id] = PendingRequest(target: target, created: Date())
        let relay = "rs-" + SAML.newID().dropFirst().prefix(16)
        relayStates[relay] = target
        return relay
    }

    /// Answers whether the SP sent this request, and forgets it: a response is accepted once.
    func consumeRequest(id: String) -> PendingRequest? {
        pendingRequests.removeValue(forKey: id)
    }

    func target(forRelayState relay: String) -> String? { relayStates.removeValue(forKey: relay) }

    func startFlow(request: SAML.AuthnRequest, relayState: String, step: LoginStep) -> (execution: String, flow: LoginFlow) {
        let execution = "e\(nextExecution)s1"
        nextExecution += 1
        let flow = LoginFlow(request: request, relayState: relayState, csrf: SAML.newID(), step: step)
        flows[execution] = flow
        return (execution, flow)
    }

    func flow(_ execution: String) -> LoginFlow? { flows[execution] }

    func update(_ execution: String, _ change: (inout LoginFlow) -> Void) -> LoginFlow? {
        guard var flow = flows[execution] else { return nil }
        change(&flow)
        flow.csrf = SAML.newID()
        flows[execution] = flow
        return flow
    }

    func finish(_ execution: String) { flows.removeValue(forKey: execution) }

    /// Renewals done, per `user/barcode`: each adds 14 days.
    func renewalsDone(user: String, barcode: String) -> Int { current().renewals["\(user)/\(barcode)"] ?? 0 }

    func renew(user: String, barcode: String) {
        change { $0.renewals["\(user)/\(barcode)", default: 0] += 1 }
    }
}
