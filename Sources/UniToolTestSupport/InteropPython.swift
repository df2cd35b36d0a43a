import Foundation

/// The Python of the interop peers (Scripts/interop-venv.sh: the official MCP client,
/// python-lsp-jsonrpc), for the tests that drive unitool with them.
///
/// Outside Scripts/test.sh it may be missing. With `UNITOOL_SKIP_INTEROP=1` those tests are
/// skipped, and say so (`.enabled(if: InteropPython.isAvailableOrRequired, ...)`); without it a
/// missing venv is a failure that says how to make it, never a quiet pass.
public enum InteropPython {
    /// Its path: `UNITOOL_INTEROP_PYTHON` (Scripts/test.sh sets it), else the venv in .build.
    public static var path: String {
        ProcessInfo.processInfo.environment["UNITOOL_INTEROP_PYTHON"]
            ?? Fixtures.root.appendingPathComponent(".build/interop-venv/bin/python").path
    }

    /// The Python of the second venv beside it, with the official MCP SDK's 2.x (its 1.x and 2.x
    /// cannot share one venv).
    public static var mcp2Path: String { sibling("mcp2") }

    /// The Python of the venv with fastmcp's client (which brings its own pinned SDK).
    public static var fastmcpPath: String { sibling("fastmcp") }

    /// `<venv>-suffix/bin/python` beside the main venv.
    static func sibling(_ suffix: String) -> String {
        let venv = URL(fileURLWithPath: path).deletingLastPathComponent().deletingLastPathComponent()
        return venv.deletingLastPathComponent().appendingPathComponent(venv.lastPathComponent + "-\(suffix)/bin/python").path
    }

    public static var isInstalled: Bool {
        [path, mcp2Path, fastmcpPath].allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// False only when it is missing and the run asked to skip interop tests.
    public static var isAvailableOrRequired: Bool {
        isInstalled || ProcessInfo.processInfo.environment["UNITOOL_SKIP_INTEROP"] != "1"
    }

    /// What a test records when the venv is missing and the run did not ask to skip.
    public static var missing: String {
        "no Python with the interop packages at \(path): run Scripts/interop-venv.sh (or set UNITOOL_SKIP_INTEROP=1)"
    }
}
