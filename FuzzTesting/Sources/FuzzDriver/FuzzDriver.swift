/// Starts libFuzzer's driver from an executable built by SwiftPM.
///
/// SwiftPM links an executable with `main` aliased to `<Module>_main`. Fuzz targets are built with
/// `-parse-as-library` (their only entry is `LLVMFuzzerTestOneInput`), so nothing defines that
/// symbol; each target defines it and calls ``drive(_:_:)``, which hands over to libFuzzer.
@_silgen_name("LLVMFuzzerRunDriver")
private func runDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
    _ callback: @convention(c) (UnsafeRawPointer?, Int) -> CInt
) -> CInt

/// The target's `LLVMFuzzerTestOneInput`, defined in each executable.
@_silgen_name("LLVMFuzzerTestOneInput")
private func testOneInput(_ start: UnsafeRawPointer?, _ count: Int) -> CInt

/// Runs libFuzzer with the process's arguments.
public func drive(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    var count = argc
    var arguments = argv
    return runDriver(&count, &arguments) { start, size in testOneInput(start, size) }
}
