// swift-tools-version:6.1
// The libFuzzer runner: a package of its own so that the normal build never compiles it.
// Build and run it with Scripts/fuzz.sh, which passes --sanitize=fuzzer.
import PackageDescription

let package = Package(
    name: "unitool-fuzz",
    dependencies: [.package(name: "unitool", path: "..")],
    targets: [
        .executableTarget(
            name: "FuzzUniTool",
            dependencies: [.product(name: "UniToolFuzzTargets", package: "unitool")])
    ]
)
