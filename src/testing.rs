//! Helpers the test suites share (unit and integration tests alike); not part of the API.

/// Cases each fuzz harness (`fuzz_*` property tests) runs: `SEXTANT_FUZZ_CASES`, else 256 so
/// the default suite stays quick; `scripts/fuzz` raises it.
pub fn fuzz_cases() -> u32 {
    std::env::var("SEXTANT_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}
