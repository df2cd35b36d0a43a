import Foundation
import LibXML
import UniToolKit

/// The Swift side of `Scripts/bench.sh`: page generation, extraction timing and a JSON-RPC load
/// client. Each subcommand prints one JSON object; Benchmarks/run.py compares them with the peers.
///
///     bench-unitool generate DIR
///     bench-unitool extract FILE [RUNS]
///     bench-unitool rpc UNITOOL REQUESTS CONCURRENCY [recipes.run|session.fetch]
///     bench-unitool cookie PORTAL USER URL
///     bench-unitool watch DEMO_URL CYCLES DIR
///     bench-unitool history DIR RUNS
///     bench-unitool diff RECORDS RUNS
///     bench-unitool search ITEMS RUNS
///     bench-unitool recipe-load FIELDS RUNS
@main
struct UniToolBench {
    static func main() async throws {
        let arguments = Array(CommandLine.arguments.dropFirst())
        switch arguments.first {
        case "generate": try generate(into: URL(fileURLWithPath: arguments[1]))
        case "extract": try extract(file: arguments[1], runs: arguments.count > 2 ? Int(arguments[2])! : 5)
        case "rpc":
            try rpc(
                unitool: arguments[1], requests: Int(arguments[2])!, concurrency: Int(arguments[3])!,
                method: arguments.count > 4 ? arguments[4] : "recipes.run")
        case "cookie": cookie(portal: arguments[1], user: arguments[2], url: URL(string: arguments[3])!)
        case "watch":
            try await watch(demo: URL(string: arguments[1])!, cycles: Int(arguments[2])!, directory: URL(fileURLWithPath: arguments[3]))
        case "history": try history(directory: URL(fileURLWithPath: arguments[1]), runs: Int(arguments[2])!)
        case "diff": diff(records: Int(arguments[1])!, runs: Int(arguments[2])!)
        case "search": search(items: Int(arguments[1])!, runs: Int(arguments[2])!)
        case "recipe-load": try recipeLoad(fields: Int(arguments[1])!, runs: Int(arguments[2])!)
        default:
            FileHandle.standardError.write(Data("usage: bench-unitool generate DIR | extract FILE [RUNS] | rpc UNITOOL N C\n".utf8))
            exit(64)
        }
    }

    // MARK: Pages

    /// Grade pages of about 100 KB, 1 MB and 10 MB, in the demo portal's own markup, so that the
    /// bundled grades recipe reads them unchanged.
    static func generate(into directory: URL) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let courses = [
            ("Linear Algebra I", "MATH-101"), ("日本語初級 I (Japanese for Beginners I)", "JPN-101"),
            ("Adatszerkezetek és algoritmusok", "CS-210"), ("Operating Systems", "CS-340"), ("Számítógépes hálózatok", "CS-230"),
        ]
        let grades = [("A", "4"), ("A-", "3,7"), ("B+", "3,3"), ("B", "3")]
        for (name, target) in [("grades-100k.html", 100_000), ("grades-1m.html", 1_000_000), ("grades-10m.html", 10_000_000)] {
            var rows = ""
            var index = 0
            while rows.utf8.count < target - 2000 {
                let course = courses[index % courses.count]
                let grade = grades[index % grades.count]
                rows += """
                          <tr>
                            <td class="course">\(course.0) \(index)</td>
                            <td class="code">\(course.1)-\(index)</td>
                            <td class="credits">\(index % 8 + 1)</td>
                            <td class="grade">\(grade.0)</td>
                            <td class="points">\(grade.1)</td>
                            <td class="date">\(String(format: "%02d", index % 28 + 1)).07.2026</td>
                          </tr>

                    """
                index += 1
            }
            let page = """
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>Grades – Demo University</title></head>
                <body><main><h1>Grades</h1>
                <form id="term-form" method="get" action="/grades"><select id="term" name="term">
                <option value="2026-spring" selected>Spring 2026</option></select></form>
                <table id="grades" class="data"><thead><tr><th>Course</th><th>Code</th><th>Credits</th><th>Grade</th><th>Points</th><th>Date</th></tr></thead>
                <tbody>
                \(rows)</tbody></table></main></body></html>

                """
            try Data(page.utf8).write(to: directory.appendingPathComponent(name))
        }
    }

    // MARK: Extraction

    static func extract(file: String, runs: Int) throws {
        let catalog = try RecipeCatalog(directories: [RecipeCatalog.bundledDirectory()])
        var recipe = try catalog.recipe(portal: "demo", command: "grades")
        // The generated pages hold up to some 100,000 grades, far past the 10,000 a recipe
        // allows by default (max_records); the benchmark measures the extraction, not the cap.
        recipe.maxRecords = DataRecipe.maxRecordsRange.upperBound
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        let extractor = RecordExtractor(recipe: recipe)
        var times: [Double] = []
        var parseTimes: [Double] = []
        var count = 0
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            let document = try extractor.parse(bytes, url: URL(string: "https://portal.example.edu/grades?term=2026-spring")!, charset: nil)
            let parsed = DispatchTime.now().uptimeNanoseconds
            let records = try extractor.extract(from: document)
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            parseTimes.append(Double(parsed - start) / 1e9)
            count = records.records.count
        }
        var usage = rusage()
        getrusage(Int32(RUSAGE_SELF.rawValue), &usage)
        print(
            #"{"median_s": \#(median(times)), "parse_median_s": \#(median(parseTimes)), "records": \#(count), "bytes": \#(bytes.count), "peak_rss_kb": \#(usage.ru_maxrss)}"#
        )
    }

    // MARK: Recipe loading

    /// Loads the demo's grades recipe grown to `fields` fields, `runs` times, and prints the best
    /// time: run.py compares 1,500 fields with 12,000, where a linear loader takes about eight
    /// times as long and the old quadratic one took sixty-four.
    static func recipeLoad(fields: Int, runs: Int) throws {
        let head = try String(contentsOf: RecipeCatalog.bundledDirectory().appendingPathComponent("demo/grades.yaml"), encoding: .utf8)
            .components(separatedBy: "fields:\n")[0]
        var text = head + "fields:\n"
        for index in 0..<fields { text += "  f\(index): { xpath: \"td[@class='c\(index)']\", regex: \"^[0-9]+$\" }\n" }
        var best = Double.infinity
        for _ in 0..<runs {
            let start = DispatchTime.now().uptimeNanoseconds
            _ = try DataRecipe.load(file: "big.yaml", text: text, portal: "demo")
            best = min(best, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        print(#"{"best_s": \#(best), "bytes": \#(text.utf8.count)}"#)
    }

    // MARK: JSON-RPC load

    /// The `Cookie` header the saved session sends to `url`: for `wrk`, which measures what the
    /// demo itself can serve on the same session.
    static func cookie(portal: String, user: String, url: URL) {
        let jar = SessionStore(directory: Locations.current.sessions).load(portal: portal, user: user)
        print(jar.cookies(for: url).map { "\($0.name)=\($0.value)" }.joined(separator: "; "))
    }

    /// Starts `unitool rpc`, warms the session up, then keeps `concurrency` requests of
    /// `method` (`recipes.run` of the grades, or `session.fetch` of the same page) in flight
    /// until `requests` have been answered.
    static func rpc(unitool: String, requests: Int, concurrency: Int, method: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: unitool)
        process.arguments = ["rpc"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let reader = LineReader(handle: output.fileHandleForReading)
        let params =
            method == "session.fetch"
            ? #"{"portal":"demo","url":"/grades?term=2026-spring"}"#
            : #"{"portal":"demo","recipe":"grades","options":{"term":"2026-spring"}}"#
        func send(_ id: Int) {
            let line = #"{"jsonrpc":"2.0","id":\#(id),"method":"\#(method)","params":\#(params)}"# + "\n"
            input.fileHandleForWriting.write(Data(line.utf8))
        }
        // Warm-up: the login, the terms check and the first page.
        send(0)
        guard let first = reader.next(), first.contains("\"result\"") else {
            FileHandle.standardError.write(Data("unitool rpc did not answer the warm-up request\n".utf8))
            exit(1)
        }
        var sentAt: [Int: UInt64] = [:]
        var latencies: [Double] = []
        var next = 1
        let start = DispatchTime.now().uptimeNanoseconds
        while next <= min(concurrency, requests) {
            sentAt[next] = DispatchTime.now().uptimeNanoseconds
            send(next)
            next += 1
        }
        while latencies.count < requests, let line = reader.next() {
            guard let range = line.range(of: #""id":"#), let id = Int(line[range.upperBound...].prefix { $0.isNumber }),
                let sent = sentAt.removeValue(forKey: id)
            else { continue }
            if !line.contains("\"result\"") {
                FileHandle.standardError.write(Data("error answer: \(line)\n".utf8))
                exit(1)
            }
            latencies.append(Double(DispatchTime.now().uptimeNanoseconds - sent) / 1e6)
            if next <= requests {
                sentAt[next] = DispatchTime.now().uptimeNanoseconds
                send(next)
                next += 1
            }
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        // unitool rpc's own CPU, warm-up included: where the time of a request goes.
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        let cpu = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        latencies.sort()
        let p50 = latencies[latencies.count / 2]
        let p99 = latencies[min(latencies.count - 1, Int(Double(latencies.count) * 0.99))]
        print(
            #"{"requests": \#(latencies.count), "seconds": \#(seconds), "rps": \#(Double(latencies.count) / seconds), "p50_ms": \#(p50), "p99_ms": \#(p99), "server_cpu_us_per_request": \#(cpu * 1e6 / Double(latencies.count))}"#
        )
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}

/// Lines from a pipe, read in large chunks.
final class LineReader {
    let handle: FileHandle
    var buffer = Data()

    init(handle: FileHandle) { self.handle = handle }

    func next() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self)
                buffer.removeSubrange(buffer.startIndex...newline)
                return line
            }
            let chunk = handle.availableData
            if chunk.isEmpty { return nil }
            buffer += chunk
        }
    }
}
