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

    /// What the demo remembers across its runs when it has a file to keep it in (the CLI's
    /// demo and `demo serve` do; a test's does not): renewals and posted grades, so that a
    /// loan renewed by one command is still renewed for the next.
    struct Remembered: Codable, Equatable {
        struct PostedGrade: Codable, Equatable {
            var grade: String
            var points: Double?
            var date: String
        }
        var renewals: [String: Int] = [:]
        var postedGrades: [String: PostedGrade] = [:]
        /// Optional, so that a file from before them still reads.
        var purchaseRequests: [String: [DemoPurchaseRequest]]? = nil
        var absences: [String: [Int]]? = nil
    }

    /// Where `Remembered` is kept, or nil.
    private let stateFile: URL?

    init(termsVersion: String, stateFile: URL? = nil) {
        self.termsVersion = termsVersion
        self.stateFile = stateFile
        // A file that cannot be read is a fresh demo, not a failure: it is only the demo's memory.
        if let stateFile, let data = try? Data(contentsOf: stateFile),
            let remembered = try? JSONDecoder().decode(Remembered.self, from: data)
        {
            renewals = remembered.renewals
            postedGrades = remembered.postedGrades.mapValues { ($0.grade, $0.points, $0.date) }
            purchaseRequests = remembered.purchaseRequests ?? [:]
            absences = remembered.absences ?? [:]
        }
    }

    /// Writes what is remembered, atomically (a temporary file renamed over the old one), so that
    /// two commands ending at once leave one whole file.
    private func save() {
        guard let stateFile else { return }
        let remembered = Remembered(
            renewals: renewals, postedGrades: postedGrades.mapValues { .init(grade: $0.grade, points: $0.points, date: $0.date) },
            purchaseRequests: purchaseRequests, absences: absences)
        guard let data = try? JSONEncoder().encode(remembered) else { return }
        let folder = stateFile.deletingLastPathComponent()
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = folder.appendingPathComponent(".\(stateFile.lastPathComponent).\(getpid()).tmp")
        guard FileManager.default.createFile(atPath: temporary.path, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary.path, stateFile.path) != 0 { try? FileManager.default.removeItem(at: temporary) }
    }

    /// Grades posted while the demo runs (`DemoUniversity.postGrade`), by `user/term/code`.
    private var postedGrades: [String: (grade: String, points: Double?, date: String)] = [:]
    /// Whether the grades page has its changed layout now (`DemoUniversity.changeLayout`).
    var layoutChangedNow = false

    func post(grade: String, points: Double?, date: String, user: String, term: String, code: String) {
        postedGrades["\(user)/\(term)/\(code)"] = (grade, points, date)
        save()
    }

    func setLayoutChanged(_ changed: Bool) { layoutChangedNow = changed }

    /// Purchase requests the library received, per user, in the order they came.
    private var purchaseRequests: [String: [DemoPurchaseRequest]] = [:]
    /// Absences recorded while the demo runs (`DemoUniversity.recordAbsence`): days, by `user/code`.
    private var absences: [String: [Int]] = [:]

    func purchaseRequests(user: String) -> [DemoPurchaseRequest] { purchaseRequests[user] ?? [] }

    /// Files a request and numbers it: `R2026-0042`, counting every user's requests.
    func addPurchaseRequest(user: String, title: String, author: String, isbn: String, reason: String, date: String) -> DemoPurchaseRequest
    {
        let count = purchaseRequests.values.reduce(0) { $0 + $1.count }
        let request = DemoPurchaseRequest(
            number: "R\(date.prefix(4))-\(String(format: "%04d", 42 + count))", date: date, title: title, author: author, isbn: isbn,
            reason: reason, status: "受付 Received")
        purchaseRequests[user, default: []].append(request)
        save()
        return request
    }

    func absences(user: String, code: String) -> [Int] { absences["\(user)/\(code)"] ?? [] }

    func recordAbsence(user: String, code: String, day: Int) {
        absences["\(user)/\(code)", default: []].append(day)
        save()
    }

    /// The user with the grades posted since the demo started.
    func withPostedGrades(_ user: DemoUser) -> DemoUser {
        var user = user
        for (term, grades) in user.grades {
            user.grades[term] = grades.map { grade in
                guard let posted = postedGrades["\(user.username)/\(term)/\(grade.code)"] else { return grade }
                var changed = grade
                changed.grade = posted.grade
                changed.points = posted.points
                changed.date = posted.date
                return changed
            }
        }
        return user
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
    private var renewals: [String: Int] = [:]

    func renewalsDone(user: String, barcode: String) -> Int { renewals["\(user)/\(barcode)"] ?? 0 }

    func renew(user: String, barcode: String) {
        renewals["\(user)/\(barcode)", default: 0] += 1
        save()
    }
}
