import Foundation
import Testing

@testable import UniToolCLI

/// `PluginSafety.decide`, the pure rule of which plugins may run.
@Suite("Plugin safety: who could have changed a plugin")
struct PluginSafetyTests {
    typealias Entry = PluginSafety.Entry
    let user: uid_t = 1000

    func file(owner: uid_t = 1000, mode: mode_t = 0o755) -> Entry { Entry(path: "/p/unitool-x", owner: owner, mode: mode) }
    func folder(owner: uid_t = 1000, mode: mode_t = 0o755) -> Entry { Entry(path: "/p", owner: owner, mode: mode) }

    @Test("the user's own plugin, and root's, in a folder of the user's or root's, may run")
    func safe() {
        #expect(PluginSafety.decide(file: file(), folders: [folder()], user: user) == .safe)
        #expect(PluginSafety.decide(file: file(owner: 0), folders: [folder(owner: 0)], user: user) == .safe)
        #expect(PluginSafety.decide(file: file(mode: 0o700), folders: [folder(mode: 0o700)], user: user) == .safe)
    }

    @Test("a file writable by its group or by others is refused, whoever owns it")
    func writableFile() {
        for mode: mode_t in [0o777, 0o775, 0o757, 0o4775] {
            #expect(PluginSafety.decide(file: file(mode: mode), folders: [folder()], user: user) == .fileWritableByOthers(file(mode: mode)))
        }
    }

    @Test("a file owned by another user is refused, even with a safe mode")
    func foreignFile() {
        #expect(
            PluginSafety.decide(file: file(owner: 65534), folders: [folder()], user: user) == .fileOwnedByAnotherUser(file(owner: 65534)))
    }

    @Test("a folder others may write, or another user owns, is refused; a sticky one (such as /tmp) is not")
    func folders() {
        #expect(
            PluginSafety.decide(file: file(), folders: [folder(mode: 0o777)], user: user) == .folderWritableByOthers(folder(mode: 0o777)))
        #expect(
            PluginSafety.decide(file: file(), folders: [folder(), folder(mode: 0o775)], user: user)
                == .folderWritableByOthers(folder(mode: 0o775)))
        #expect(
            PluginSafety.decide(file: file(), folders: [folder(owner: 1001)], user: user) == .folderOwnedByAnotherUser(folder(owner: 1001)))
        #expect(PluginSafety.decide(file: file(), folders: [folder(owner: 0, mode: 0o1777)], user: user) == .safe)
    }

    @Test("a path in a hint is one the shell reads back whole")
    func shellQuoting() {
        #expect(PluginSafety.shellQuoted("/home/jo/.config/unitool/plugins/unitool-x") == "/home/jo/.config/unitool/plugins/unitool-x")
        #expect(PluginSafety.shellQuoted("/home/jo/my bin/unitool-x") == "'/home/jo/my bin/unitool-x'")
        #expect(PluginSafety.shellQuoted("/tmp/it's") == "'/tmp/it'\\''s'")
    }
}
