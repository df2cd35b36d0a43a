import Foundation
import Testing
import UniToolTestSupport

@testable import UniToolKit

/// Where unitool keeps things, decided in one place (`Locations`): pure.
@Suite("Locations: the XDG rules, and a test's own folders")
struct LocationsTests {
    @Test("each XDG_*_HOME when absolute; a relative one, or none, falls back under HOME")
    func xdgRules() {
        let locations = Locations.xdg([
            "HOME": "/home/ana", "XDG_CONFIG_HOME": "/etc/ana", "XDG_STATE_HOME": "relative/state", "XDG_CACHE_HOME": "/var/cache/ana",
        ])
        #expect(locations.config.path == "/etc/ana/unitool")
        #expect(locations.state.path == "/home/ana/.local/state/unitool", "a relative path is ignored, as the specification says")
        #expect(locations.data.path == "/home/ana/.local/share/unitool")
        #expect(locations.cache.path == "/var/cache/ana/unitool")
        #expect(locations.sessions.path == "/home/ana/.local/state/unitool/sessions")
        #expect(locations.historyFile.path == "/home/ana/.local/share/unitool/history.sqlite")
    }

    @Test("a sandbox's locations are the files its environment gives the binary")
    func sandboxMatchesTheEnvironment() throws {
        let sandbox = try Sandbox()
        defer { sandbox.remove() }
        #expect(sandbox.locations == Locations.xdg(sandbox.environment))
        for folder in [sandbox.locations.config, sandbox.locations.state, sandbox.locations.data, sandbox.locations.cache] {
            #expect(folder.path.hasPrefix(sandbox.root.path + "/"), "\(folder.path)")
        }
    }
}
