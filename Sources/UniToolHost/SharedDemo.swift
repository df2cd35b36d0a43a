import DemoUniversity
import Foundation
import UniToolKit

/// The user's served demo: `unitool demo serve` writes a rendezvous file (`DemoRendezvous`), and
/// `--portal demo` commands of the same user and state directory find it there and use it (its
/// state, its links) instead of a demo of their own that ends with them. No well-known port:
/// another user's or another HOME's demo is never found.
package enum SharedDemo {
    /// The demo's memory, shared by the demo each command starts, `demo serve`, and
    /// `demo post-grade` and its kin: `$XDG_STATE_HOME/unitool/demo.json`.
    package static var stateFile: URL { Locations.current.demoStateFile }

    /// The address of this user's `demo serve` for `stateFile`, proven, or nil; `note` hears why
    /// a rendezvous file was not used.
    package static func running(note: (String) -> Void = { _ in }) -> URL? {
        switch DemoRendezvous.find(stateFile: stateFile) {
        case .found(let url): return url
        case .none: return nil
        case .ignored(let reason, let removed):
            note(removed ? "removed a stale demo rendezvous file: \(reason)" : "ignored a demo rendezvous file: \(reason)")
            return nil
        }
    }
}
