import Testing

/// The suites that run many glow-server processes, PostgreSQL clusters and simulated devices at
/// once, and time what they see: the fault tests (kills, restarts, a frozen database) and
/// glow-load's. They run one after the other, so the load generator's devices and attacks do not
/// take the 2 cores the fault tests' recovery targets (a write within 1 s of a restart) are timed
/// on; other suites still run beside them.
@Suite(.serialized)
enum ProcessHeavySuites {}
