import Foundation
import GRDB

extension HistoryStore {
    /// What a watch remembers between runs (a failure announced, loans announced as due).
    public func memory(ofWatch watch: String) throws -> WatchDecision.Memory {
        let text = try read { db in try String.fetchOne(db, sql: "SELECT memory FROM watchMemory WHERE watch = ?", arguments: [watch]) }
        guard let text, let memory = try? JSONDecoder().decode(WatchDecision.Memory.self, from: Data(text.utf8)) else {
            return WatchDecision.Memory()
        }
        return memory
    }

    public func save(memory: WatchDecision.Memory, ofWatch watch: String) throws {
        let text = String(decoding: try JSONEncoder().encode(memory), as: UTF8.self)
        try write { db in
            try db.execute(
                sql: "INSERT INTO watchMemory (watch, memory) VALUES (?, ?) ON CONFLICT(watch) DO UPDATE SET memory = excluded.memory",
                arguments: [watch, text])
        }
    }
}

extension HistoryStore {
    /// The events a watch's channels did not take, oldest first (`WatchDelivery`).
    public func pendingDeliveries(ofWatch watch: String) throws -> [PendingDelivery] {
        let text = try read { db in
            try String.fetchOne(db, sql: "SELECT deliveries FROM pendingDelivery WHERE watch = ?", arguments: [watch])
        }
        guard let text else { return [] }
        do {
            return try JSONDecoder().decode([PendingDelivery].self, from: Data(text.utf8))
        } catch {
            throw UniToolError(
                .stateCorrupt, localized("the events kept for a watch's channels cannot be read: \(error)"),
                hint: localized("move \(file.path) away to start a new history"))
        }
    }

    public func save(pendingDeliveries: [PendingDelivery], ofWatch watch: String) throws {
        guard !pendingDeliveries.isEmpty else {
            try write { db in try db.execute(sql: "DELETE FROM pendingDelivery WHERE watch = ?", arguments: [watch]) }
            return
        }
        let text = String(decoding: try JSONEncoder().encode(pendingDeliveries), as: UTF8.self)
        try write { db in
            try db.execute(
                sql:
                    "INSERT INTO pendingDelivery (watch, deliveries) VALUES (?, ?) ON CONFLICT(watch) DO UPDATE SET deliveries = excluded.deliveries",
                arguments: [watch, text])
        }
    }
}
