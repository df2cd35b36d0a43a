import Foundation
import Testing
import UniToolTestSupport

/// Scripts/install-deps.sh: the quick start installs what running unitool needs, and the suite's
/// peers only when asked. It runs the script (with `--list`, which installs nothing), not unitool.
@Suite("install-deps.sh: runtime packages, and the test peers apart")
struct InstallDepsTests {
    @Test("install-deps.sh installs only what running unitool needs; --tests adds the test peers")
    func dependenciesSplit() throws {
        let script = Fixtures.root.appendingPathComponent("Scripts/install-deps.sh").path
        let bash = URL(fileURLWithPath: "/bin/bash")
        let runtime = try UniToolProcess.run(bash, [script, "--list"])
        let tests = try UniToolProcess.run(bash, [script, "--tests", "--list"])
        #expect(runtime.exitCode == 0 && tests.exitCode == 0, "\(runtime) \(tests)")
        let runtimePackages = Set(runtime.stdout.split(whereSeparator: \.isWhitespace).map(String.init))
        let testPackages = Set(tests.stdout.split(whereSeparator: \.isWhitespace).map(String.init))
        #expect(runtimePackages.isSuperset(of: ["libxml2-dev", "libsecret-1-dev", "gnome-keyring"]), "\(runtimePackages)")
        for peer in ["php-cli", "zsh", "fish", "wrk", "python3-icalendar", "khal", "tmux", "libapache2-mod-shib", "chromium"] {
            #expect(!runtimePackages.contains(peer), "the quick start installs \(peer)")
            #expect(testPackages.contains(peer), "the tests need \(peer)")
        }
        #expect(testPackages.isSuperset(of: runtimePackages))
    }
}
