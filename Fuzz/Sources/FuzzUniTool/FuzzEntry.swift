import Foundation
import UniToolFuzzTargets

/// The target this process fuzzes, from `UNITOOL_FUZZ_TARGET` (Scripts/fuzz.sh sets it).
let selectedTarget: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["UNITOOL_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget(rawValue: name) else {
        let names = FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")
        FileHandle.standardError.write(Data("set UNITOOL_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(64)
    }
    return target
}()

/// libFuzzer's entry point. A broken invariant is a crash, so that libFuzzer saves the input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    let bytes = start.map { Array(UnsafeRawBufferPointer(start: $0, count: count)) } ?? []
    do {
        try selectedTarget.run(bytes)
    } catch {
        fatalError("\(selectedTarget.rawValue): \(error)")
    }
    return 0
}
