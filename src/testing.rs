//! What tests reach into sextant with: helpers the test suites share, and the hooks that
//! integration tests set through the environment of the binary they start.
//!
//! Invariant: this is the only module that reads a `SEXTANT_TEST_*` variable (a tidy test
//! holds it), each hook is read once per process, and every hook is inert unless its
//! variable is set: production paths ask [`hooks`] and get `None`.

use std::{sync::OnceLock, time::Duration};

/// Cases each fuzz harness (`fuzz_*` property tests) runs: `SEXTANT_FUZZ_CASES`, else 256 so
/// the default suite stays quick; `scripts/fuzz` raises it.
pub fn fuzz_cases() -> u32 {
    std::env::var("SEXTANT_FUZZ_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(256)
}

/// The hooks the integration tests set; `docs/testing.md` lists them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TestHooks {
    /// `SEXTANT_TEST_PANIC=<tool>`: that MCP tool panics, to test that a panic is an
    /// `INTERNAL` error and the server lives on.
    pub panic_in_tool: Option<String>,
    /// `SEXTANT_TEST_DELAY_MS=<method>:<ms>`: every LSP request of that method first spends
    /// `<ms>` in a query, in steps that check for cancellation.
    pub lsp_delay: Option<(String, Duration)>,
    /// `SEXTANT_TEST_LSP_POOL=<workers>:<queue>`: the LSP worker pool's size, so that a test
    /// can fill a small pool deterministically.
    pub lsp_pool: Option<(usize, usize)>,
    /// `SEXTANT_TEST_APPLY_STEP_PAUSE_MS=<ms>`: a pause before every step of writing a
    /// change, so that a test can kill the writer between any two steps.
    pub apply_step_pause: Option<Duration>,
    /// `SEXTANT_TEST_CACHE_DISK_FULL=1`: saving the persistent cache fails as a full disk
    /// does, after its first 4 KiB are written.
    pub cache_disk_full: bool,
    /// `SEXTANT_TEST_INDEX_SHARD_PAUSE_MS=N`: the first index looks N ms slower per shard
    /// of the symbol index (each told built N ms after the one before, the load ending with
    /// the last), so that answers while indexing can be seen.
    pub index_shard_pause: Option<Duration>,
    /// `SEXTANT_TEST_CHECK_BATCH=N`: the background check steps aside every N files (for
    /// the writer to drop memoized answers) instead of every 2,048, so that a test sees it
    /// do so on a small workspace.
    pub check_batch: Option<u32>,
    /// `SEXTANT_TEST_CHECK_TABLE_BYTES=N`: the background check steps aside once the name
    /// tables it computed hold N bytes more than when it started, instead of 32 MiB (or a
    /// sixteenth of `--max-memory`), so that a test sees it do so on a small workspace.
    pub check_table_bytes: Option<usize>,
    /// `SEXTANT_TEST_CACHE_SAVE_PAUSE_MS=N`: every save of the persistent cache waits N ms
    /// before it writes, as on a slow disk, so that a test sees what does not wait for it.
    pub cache_save_pause: Option<Duration>,
    /// `SEXTANT_TEST_LOAD_PAUSE_MS=<dir>:<ms>`: the first index of a root whose directory
    /// is named `<dir>` stops for `<ms>` once it has built its symbol index's first shard
    /// (readers see that shard alone built), so that a test sees a server of several roots
    /// answer while one of them is still indexing.
    pub load_pause: Option<(String, Duration)>,
    /// `SEXTANT_TEST_PART_DELAY_MS=<dir>:<ms>`: every question over the whole workspace
    /// (an LSP question of every folder, an MCP question of every root) first spends `<ms>`
    /// in a query in the part of the folder or root whose directory is named `<dir>`, in
    /// steps that check the part's cancellation, so that a test sees what stops that part.
    pub part_delay: Option<(String, Duration)>,
    /// `SEXTANT_TEST_PART_FAIL=<dir>`: the part of every LSP question over the whole
    /// workspace asked of the folder whose directory is named `<dir>` fails (an internal
    /// error), so that a test sees what a folder's failure does to the other parts.
    pub part_fail: Option<String>,
    /// `SEXTANT_TEST_CHECKER_PANIC=<tool>`: the first run of that deep checker in the
    /// process panics while it holds its project's turn, so that a test sees what a panic
    /// caught there leaves to the next run.
    pub checker_panic: Option<String>,
}

impl TestHooks {
    /// The hooks `variable` (a lookup such as `std::env::var`) sets; a malformed value is no
    /// hook, as if unset.
    pub fn from_lookup(variable: impl Fn(&str) -> Option<String>) -> TestHooks {
        let pair = |name: &str| {
            let value = variable(name)?;
            let (left, right) = value.rsplit_once(':')?;
            Some((left.to_string(), right.parse::<u64>().ok()?))
        };
        TestHooks {
            panic_in_tool: variable("SEXTANT_TEST_PANIC"),
            lsp_delay: pair("SEXTANT_TEST_DELAY_MS")
                .map(|(method, ms)| (method, Duration::from_millis(ms))),
            lsp_pool: pair("SEXTANT_TEST_LSP_POOL")
                .and_then(|(workers, queue)| Some((workers.parse().ok()?, queue as usize))),
            apply_step_pause: variable("SEXTANT_TEST_APPLY_STEP_PAUSE_MS")
                .and_then(|ms| ms.parse().ok())
                .map(Duration::from_millis),
            cache_disk_full: variable("SEXTANT_TEST_CACHE_DISK_FULL").is_some_and(|v| v == "1"),
            index_shard_pause: variable("SEXTANT_TEST_INDEX_SHARD_PAUSE_MS")
                .and_then(|ms| ms.parse().ok())
                .map(Duration::from_millis),
            check_batch: variable("SEXTANT_TEST_CHECK_BATCH")
                .and_then(|n| n.parse().ok())
                .filter(|&n| n > 0),
            check_table_bytes: variable("SEXTANT_TEST_CHECK_TABLE_BYTES")
                .and_then(|n| n.parse().ok())
                .filter(|&n| n > 0),
            cache_save_pause: variable("SEXTANT_TEST_CACHE_SAVE_PAUSE_MS")
                .and_then(|ms| ms.parse().ok())
                .map(Duration::from_millis),
            load_pause: pair("SEXTANT_TEST_LOAD_PAUSE_MS")
                .map(|(dir, ms)| (dir, Duration::from_millis(ms))),
            part_delay: pair("SEXTANT_TEST_PART_DELAY_MS")
                .map(|(dir, ms)| (dir, Duration::from_millis(ms))),
            part_fail: variable("SEXTANT_TEST_PART_FAIL"),
            checker_panic: variable("SEXTANT_TEST_CHECKER_PANIC"),
        }
    }
}

/// Whether `root` is the directory a hook names by its directory name (`<dir>`).
pub fn named(root: &std::path::Path, dir: &str) -> bool {
    root.file_name() == Some(std::ffi::OsStr::new(dir))
}

/// Whether this run of the deep checker `tool` is to panic
/// ([`TestHooks::checker_panic`]): its first run in the process only.
pub fn checker_run_panics(tool: &str) -> bool {
    static PANICKED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
    hooks().checker_panic.as_deref() == Some(tool)
        && !PANICKED.swap(true, std::sync::atomic::Ordering::Relaxed)
}

/// This process's hooks, read from its environment the first time they are asked for.
pub fn hooks() -> &'static TestHooks {
    static HOOKS: OnceLock<TestHooks> = OnceLock::new();
    HOOKS.get_or_init(|| TestHooks::from_lookup(|name| std::env::var(name).ok()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hooks_are_inert_unless_set_and_malformed_ones_are_ignored() {
        assert_eq!(TestHooks::from_lookup(|_| None), TestHooks::default());
        let set = |name: &str| {
            let value = match name {
                "SEXTANT_TEST_PANIC" => "outline",
                "SEXTANT_TEST_DELAY_MS" => "workspace/symbol:60000",
                "SEXTANT_TEST_LSP_POOL" => "1:8",
                "SEXTANT_TEST_APPLY_STEP_PAUSE_MS" => "150",
                "SEXTANT_TEST_INDEX_SHARD_PAUSE_MS" => "40",
                "SEXTANT_TEST_CHECK_BATCH" => "2",
                "SEXTANT_TEST_CHECK_TABLE_BYTES" => "65536",
                "SEXTANT_TEST_CACHE_SAVE_PAUSE_MS" => "3000",
                "SEXTANT_TEST_LOAD_PAUSE_MS" => "slow:60000",
                "SEXTANT_TEST_PART_DELAY_MS" => "slow:60000",
                "SEXTANT_TEST_PART_FAIL" => "broken",
                "SEXTANT_TEST_CHECKER_PANIC" => "tsc",
                _ => return None,
            };
            Some(value.to_string())
        };
        assert_eq!(
            TestHooks::from_lookup(set),
            TestHooks {
                panic_in_tool: Some("outline".to_string()),
                lsp_delay: Some((
                    "workspace/symbol".to_string(),
                    Duration::from_millis(60_000)
                )),
                lsp_pool: Some((1, 8)),
                apply_step_pause: Some(Duration::from_millis(150)),
                cache_disk_full: false,
                index_shard_pause: Some(Duration::from_millis(40)),
                check_batch: Some(2),
                check_table_bytes: Some(65536),
                cache_save_pause: Some(Duration::from_millis(3000)),
                load_pause: Some(("slow".to_string(), Duration::from_millis(60_000))),
                part_delay: Some(("slow".to_string(), Duration::from_millis(60_000))),
                part_fail: Some("broken".to_string()),
                checker_panic: Some("tsc".to_string()),
            }
        );
        let malformed = |name: &str| {
            let value = match name {
                "SEXTANT_TEST_DELAY_MS" => "workspace/symbol",
                "SEXTANT_TEST_LSP_POOL" => "x:8",
                "SEXTANT_TEST_APPLY_STEP_PAUSE_MS" => "soon",
                "SEXTANT_TEST_CHECK_BATCH" => "0",
                "SEXTANT_TEST_CHECK_TABLE_BYTES" => "many",
                "SEXTANT_TEST_PART_DELAY_MS" => "slow",
                _ => return None,
            };
            Some(value.to_string())
        };
        assert_eq!(TestHooks::from_lookup(malformed), TestHooks::default());
    }
}
