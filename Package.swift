// swift-tools-version:6.1
import PackageDescription

/// The package's folder, for the linker's symbol ordering file (Linker/README.md).
let packageRoot = String(#filePath.dropLast("Package.swift".count))

/// How unitool and the bench's copy of its code are linked: by lld (the toolchain's own) instead
/// of gold, for a smaller binary that is still position-independent (BENCHMARKS.md, "binary"):
/// - no dynamic symbol table: nothing loads unitool as a library or looks its symbols up, and
///   the 47,000 exported names cost 5 MB;
/// - relative relocations packed (DT_RELR, glibc 2.36+): 3.4 MB of them become 27 KB;
/// - identical functions folded where no code compares their addresses (--icf=safe);
/// - the functions that commands run laid out together, first (Linker/hot-functions.order):
///   a command then touches a few hundred kilobytes of code pages instead of pages all over
///   34 MB of text, each of which costs a page fault and stays resident.
let releaseLinking: [LinkerSetting] = [
    .unsafeFlags([
        "-use-ld=lld", "-Xlinker", "--no-export-dynamic", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker",
        "--icf=safe", "-Xlinker", "--symbol-ordering-file=\(packageRoot)Linker/hot-functions.order", "-Xlinker",
        "--no-warn-symbol-ordering",
    ])
]

let package = Package(
    name: "unitool",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "unitool", targets: ["UniToolCLI"]),
        .library(name: "UniToolKit", targets: ["UniToolKit"]),
        .library(name: "DemoUniversity", targets: ["DemoUniversity"]),
        // Not named unitool-*: that would make it a plugin if it were ever on PATH.
        .executable(name: "bench-unitool", targets: ["UniToolBench"]),
        // Used by the libFuzzer runner in Fuzz/ (a package of its own, built with --sanitize=fuzzer).
        .library(name: "UniToolFuzzTargets", targets: ["UniToolFuzzTargets"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
    ],
    targets: [
        // C libraries, each behind a module map. Only the Swift wrappers below import them.
        .systemLibrary(
            name: "CLibXML2", pkgConfig: "libxml-2.0",
            providers: [.apt(["libxml2-dev"])]),
        // libsecret's headers, for the test that holds CLibSecret's own declarations to them.
        .systemLibrary(
            name: "CLibSecretHeaders", pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]),
        .systemLibrary(
            name: "CZlib", pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(
            name: "CLibPSL", pkgConfig: "libpsl",
            providers: [.apt(["libpsl-dev", "publicsuffix"])]),
        .systemLibrary(
            name: "CLibGcrypt", pkgConfig: "libgcrypt",
            providers: [.apt(["libgcrypt20-dev"])]),

        // libsecret, loaded with dlopen when the keyring is first needed rather than linked
        // (Sources/CLibSecret/secret.c says why). Its headers are read only for the version.
        .target(name: "CLibSecret"),
        .target(name: "CLibSecretABICheck", dependencies: ["CLibSecret", "CLibSecretHeaders"]),

        // prctl(2), which is variadic in C and so out of Swift's reach.
        .target(name: "CProcessHardening"),

        // Messages in the person's language: gettext catalogs (po/, compiled by msgfmt) read in
        // Swift, chosen by LANGUAGE, LC_ALL, LC_MESSAGES and LANG (Sources/Localization).
        .target(name: "Localization"),

        // Swift wrappers: the only code that touches a C pointer.
        .target(name: "LibXML", dependencies: ["CLibXML2", "WebEncoding", "Localization"]),
        // The WHATWG Encoding Standard's labels and browser sniffing, decoding through glibc's iconv.
        .target(name: "WebEncoding", dependencies: ["Localization"]),
        .target(name: "Keyring", dependencies: ["CLibSecret", "Localization"]),
        .target(name: "PublicSuffix", dependencies: ["CLibPSL"]),
        // SHA hashes and HMACs by libgcrypt, a small library every Debian system has.
        .target(name: "MessageDigest", dependencies: ["CLibGcrypt"]),

        // Chromium driven over the DevTools protocol on --remote-debugging-pipe: the browser login
        // and `recipes new --record` (no Swift package for the protocol exists; this is a small
        // client of the documented protocol).
        .target(name: "BrowserDriver", dependencies: ["CProcessHardening", "Localization"]),

        // RFC 6238 one-time codes, shared by unitool (which answers) and the demo (which checks).
        .target(name: "OneTimeCode", dependencies: ["MessageDigest"]),

        // The core library: recipes, session, login, extraction, output.
        .target(
            name: "UniToolKit",
            dependencies: [
                "LibXML", "Keyring", "OneTimeCode", "WebEncoding", "PublicSuffix", "MessageDigest", "Localization",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Yams", package: "Yams"),
                // The history (UniToolKit/History): SQLite through GRDB.
                .product(name: "GRDB", package: "GRDB.swift"),
            ]),

        // JSON-RPC 2.0: a front end of its own over the service (unitool rpc, the plugin channel).
        .target(
            name: "UniToolRPC",
            dependencies: ["UniToolKit", .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio")]),

        // The Model Context Protocol front end (`unitool mcp`), on the project's own JSON-RPC core.
        .target(name: "UniToolMCP", dependencies: ["UniToolKit", "UniToolRPC"]),

        // The bundled demo university: an IdP and an SP on 127.0.0.1.
        .target(
            name: "DemoUniversity",
            dependencies: [
                "LibXML", "WebEncoding", "CZlib", "OneTimeCode", "MessageDigest",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // What every front end run from a shell shares: the global options, the recipe catalog
        // from the user's folders, settings, credentials (keyring, password command, prompt),
        // the demo, the status line and the JSON-RPC host over all of them.
        .target(
            name: "UniToolHost",
            dependencies: [
                "UniToolKit", "UniToolRPC", "LibXML", "DemoUniversity", "OneTimeCode", "CProcessHardening", "BrowserDriver",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]),

        // The command-line front end, a thin layer over UniToolKit.
        .executableTarget(
            name: "UniToolCLI",
            dependencies: [
                "UniToolHost", "UniToolKit", "UniToolRPC", "UniToolMCP", "LibXML", "DemoUniversity", "OneTimeCode", "CProcessHardening",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            linkerSettings: releaseLinking),

        // The Swift side of Scripts/bench.sh (Benchmarks/run.py drives it).
        .executableTarget(
            name: "UniToolBench", dependencies: ["UniToolKit", "LibXML"], path: "Benchmarks/UniToolBench", linkerSettings: releaseLinking),

        // The parsers of untrusted input as fuzz targets: run by libFuzzer (Scripts/fuzz.sh) and,
        // over the committed corpus and past findings, by the test suite.
        .target(name: "UniToolFuzzTargets", dependencies: ["UniToolKit", "UniToolRPC", "LibXML"]),

        // Fixtures, sandboxes and a runner for the real executable, shared by the test targets.
        .target(
            name: "UniToolTestSupport",
            dependencies: ["UniToolKit", "UniToolRPC", "UniToolHost", "DemoUniversity", .product(name: "Logging", package: "swift-log")],
            path: "Sources/UniToolTestSupport"),

        .testTarget(name: "LibXMLTests", dependencies: ["LibXML", "UniToolTestSupport"]),
        .testTarget(name: "WebEncodingTests", dependencies: ["WebEncoding"]),
        .testTarget(name: "LocalizationTests", dependencies: ["Localization", "UniToolTestSupport"]),
        .testTarget(
            name: "UniToolCLITests", dependencies: ["UniToolCLI", "UniToolHost", "UniToolKit", "DemoUniversity", "UniToolTestSupport"]),
        .testTarget(
            name: "UniToolRPCTests",
            dependencies: ["UniToolRPC", "UniToolMCP", "UniToolKit", "UniToolHost", "DemoUniversity", "UniToolTestSupport"]),
        .testTarget(name: "KeyringTests", dependencies: ["Keyring", "CLibSecret", "CLibSecretABICheck", "UniToolTestSupport"]),
        .testTarget(name: "OneTimeCodeTests", dependencies: ["OneTimeCode"]),
        .testTarget(name: "BrowserDriverTests", dependencies: ["BrowserDriver", "UniToolKit", "UniToolTestSupport", "DemoUniversity"]),
        .testTarget(name: "UniToolMCPTests", dependencies: ["UniToolMCP", "UniToolKit", "UniToolRPC", "UniToolTestSupport"]),
        .testTarget(
            name: "UniToolKitTests",
            dependencies: [
                "UniToolKit", "LibXML", "PublicSuffix", "DemoUniversity", "UniToolTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"), .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOHTTPCompression", package: "swift-nio-extras"),
            ]),
        .testTarget(name: "UniToolFuzzTargetsTests", dependencies: ["UniToolFuzzTargets", "UniToolTestSupport"]),
        // The demo's routes request by request through Hummingbird's `app.test`, with no socket.
        .testTarget(
            name: "DemoUniversityTests",
            dependencies: ["DemoUniversity", .product(name: "HummingbirdTesting", package: "hummingbird")]),
        .testTarget(
            name: "EndToEndTests", dependencies: ["UniToolCLI", "UniToolKit", "UniToolRPC", "DemoUniversity", "UniToolTestSupport"],
            // The interop client is Python, run by RPCTests; not a source of the target.
            exclude: ["Interop"]),
    ]
)
