import CProcessHardening
import Foundation

/// Keeps secrets out of core dumps, before any secret is read.
///
/// unitool's memory holds the password and session cookies while it runs. A crash must not
/// write them to a core file (or hand them to a crash collector such as systemd-coredump), and
/// another process of the same user must not read them through ptrace or /proc/PID/mem:
/// `PR_SET_DUMPABLE 0` forbids both, and `RLIMIT_CORE 0` stops a core file even where a
/// collector ignores the dumpable flag.
package enum ProcessHardening {
    package static func apply() {
        var limit = rlimit(rlim_cur: 0, rlim_max: 0)
        _ = setrlimit(Int32(RLIMIT_CORE.rawValue), &limit)
        _ = unitool_set_not_dumpable()
    }

    /// True when the process may not be dumped, as `apply()` left it (for `doctor`-style checks
    /// and tests).
    package static var isHardened: Bool {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_CORE.rawValue), &limit) == 0 else { return false }
        return limit.rlim_cur == 0 && unitool_is_dumpable() == 0
    }
}
