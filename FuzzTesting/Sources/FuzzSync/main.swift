import FuzzDriver
import GlowFuzzing

/// libFuzzer's entry point: one input through the `sync` harness.
@_cdecl("LLVMFuzzerTestOneInput")
public func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt {
    FuzzTarget.sync.run(UnsafeRawBufferPointer(start: start, count: count))
    return 0
}

/// The process's entry point (see FuzzDriver).
@_cdecl("FuzzSync_main")
public func entry(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    drive(argc, argv)
}
