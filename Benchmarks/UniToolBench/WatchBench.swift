import Foundation
import Logging
import UniToolKit

extension UniToolBench {
    /// `watch`: the loop of `unitool watch --every`, in process, against a demo on loopback: one
    /// connection for every cycle (as the CLI's loop keeps it), `Watcher.run`, the history.
    /// Reports the resident memory after a warm-up and at the end, and CPU and wall time per cycle.
    static func watch(demo: URL, cycles: Int, directory: URL) async throws {
        let catalog = try RecipeCatalog(directories: [RecipeCatalog.bundledDirectory()])
        let portal = try catalog.portal("demo").relocated(to: demo)
        let recipe = try catalog.recipe(portal: "demo", command: "grades")
        var logger = Logger(label: "bench")
        logger.logLevel = .critical
        let workspace = Workspace(locations: .sandbox(directory), history: .kept(retentionDays: 365), logger: logger)
        try workspace.acceptedTerms.save(AcceptedTerms(portal: "demo", version: "2026-09"))
        let spec = WatchSpec(recipe: recipe, options: ["term": "2026-fall"])
        let warmUp = min(100, cycles / 10)
        var rssAfterWarmUp = 0
        var cpuAtWarmUp = 0.0
        var events = 0
        let started = ContinuousClock.now
        var warmStarted = started
        let connection = workspace.connection(
            to: portal, as: "alice", credentials: { Credentials(username: "alice", password: Secret("wonderland")) })
        for cycle in 0..<cycles {
            if cycle == warmUp {
                rssAfterWarmUp = residentKilobytes()
                cpuAtWarmUp = cpuSeconds()
                warmStarted = ContinuousClock.now
            }
            let outcome = try await connection.settlingSession { try await Watcher.run(spec, on: $0) }
            if let failure = outcome.failure { throw failure }
            events += outcome.events.count
        }
        await connection.close()
        let measured = Double(cycles - warmUp)
        let wall = ContinuousClock.now - warmStarted
        let counts = try workspace.history?.counts() ?? (runs: 0, snapshots: 0)
        print(
            """
            {"cycles": \(cycles), "warm_up": \(warmUp), "events": \(events), "rss_after_warm_up_kb": \(rssAfterWarmUp), \
            "rss_end_kb": \(residentKilobytes()), "cpu_ms_per_cycle": \((cpuSeconds() - cpuAtWarmUp) / measured * 1000), \
            "wall_ms_per_cycle": \(Double(wall.components.attoseconds) / 1e15 / measured + Double(wall.components.seconds) * 1000 / measured), \
            "history_runs": \(counts.runs), "history_snapshots": \(counts.snapshots)}
            """)
    }

    /// `history`: RUNS hourly runs of a 12-record grades answer in which one grade changes every
    /// hundred runs; reports the database's size on disk and the time per recorded run.
    static func history(directory: URL, runs: Int) throws {
        try? FileManager.default.removeItem(at: directory)
        let file = directory.appendingPathComponent("history.sqlite")
        let (elapsed, counts) = try record(into: file, runs: runs)
        // Measured once the store is closed, as between two watch runs: SQLite has then folded the
        // write-ahead log into the file.
        let bytes = ["", "-wal", "-shm"].compactMap { try? FileManager.default.attributesOfItem(atPath: file.path + $0)[.size] as? Int }
            .reduce(0, +)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        print(
            "{\"runs\": \(counts.runs), \"snapshots\": \(counts.snapshots), \"bytes\": \(bytes), \"ms_per_run\": \(seconds / Double(runs) * 1000)}"
        )
    }

    private static func record(into file: URL, runs: Int) throws -> (Duration, (runs: Int, snapshots: Int)) {
        let store = try HistoryStore(file: file, retentionDays: 36_500)
        let columns = ["term", "course", "code", "credits", "grade", "points", "date"]
        func answer(_ version: Int) -> RecordSet {
            RecordSet(
                columns: columns,
                records: (0..<12).map { index in
                    Record(fields: [
                        ("term", .string("2026-fall")), ("course", .string("Course number \(index) of the term")),
                        ("code", .string("CS-\(100 + index)")), ("credits", .number(6)),
                        ("grade", index == version % 12 ? .string("A-") : .string("B+")), ("points", .number(3.3)),
                        ("date", .date("2026-11-13")),
                    ])
                })
        }
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        let clock = ContinuousClock.now
        for run in 0..<runs {
            try store.record(
                portal: "demo", user: "alice", recipe: "grades", options: "term=current", records: answer(run / 100),
                at: start.addingTimeInterval(Double(run) * 3600))
        }
        return (ContinuousClock.now - clock, try store.counts())
    }

    /// `diff`: `RecordChanges` between two answers of RECORDS records, one in a hundred changed.
    static func diff(records: Int, runs: Int) {
        func set(_ changed: Bool) -> RecordSet {
            RecordSet(
                columns: ["term", "code", "grade", "points"],
                records: (0..<records).map { index in
                    Record(fields: [
                        ("term", .string("2026-fall")), ("code", .string("C-\(index)")),
                        ("grade", .string(changed && index % 100 == 0 ? "A" : "B")), ("points", .number(3.0)),
                    ])
                })
        }
        let old = set(false)
        let new = set(true)
        var times: [Double] = []
        var changes = 0
        for _ in 0..<runs {
            let clock = ContinuousClock.now
            changes = RecordChanges(from: old, to: new, keys: ["term", "code"]).changes.count
            let elapsed = ContinuousClock.now - clock
            times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        times.sort()
        print("{\"records\": \(records), \"changes\": \(changes), \"median_s\": \(times[times.count / 2])}")
    }

    /// The process's resident set now, from /proc (getrusage only gives the peak).
    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") })
        else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }
}

extension UniToolBench {
    /// `search`: a typo-tolerant query ("infromation theroy") over ITEMS records in the demo's
    /// languages, as a front end would run it on every keystroke, on an index built once; the
    /// median time of RUNS.
    static func search(items count: Int, runs: Int) {
        let titles = [
            "情報理論 (Information Theory)", "Probability Theory", "Magyar irodalom a XX. században", "Operating Systems",
            "Tanévnyitó ünnepség és nyílt nap középiskolásoknak", "留学生向け説明会のお知らせ", "Library fines waived during exam weeks",
            "Semana cultural hispánica", "Adatszerkezetek és algoritmusok", "Analysis II",
        ]
        let items = (0..<count).map { index in
            Search.Item(
                kind: "record", command: ["courses", "grades", "news", "loans"][index % 4],
                text: "\(titles[index % titles.count]) · CS-\(index) · 2026-fall · room B-\(index % 300)", key: "k\(index)")
        }
        let index = Search.Index(items)
        var times: [Double] = []
        var hits = 0
        for _ in 0..<runs {
            for query in ["infromation theroy", "kozepiskola", "情報"] {
                let clock = ContinuousClock.now
                hits = Search.search(query, in: index).count
                let elapsed = ContinuousClock.now - clock
                times.append(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
        }
        times.sort()
        // Every match of each query, not only the shown ones: what run.py compares with the peer.
        let matches = ["infromation theroy", "kozepiskola", "情報"].map { Search.search($0, in: index, limit: .max).count }
        print(
            "{\"items\": \(count), \"hits\": \(hits), \"matches\": \(matches), \"median_s\": \(times[times.count / 2]), \"max_s\": \(times.last!)}"
        )
    }
}
