//! The deep check: the project's own type checkers (`grammars/checkers.toml`: tsc,
//! `go vet`, `cargo check`, pyright, ty or mypy) run on the projects of the files checked, their output
//! read into sextant's one diagnostic shape and merged with sextant's own diagnostics.
//!
//! Invariant: nothing runs unless the caller asks for a deep check (`--deep`, MCP
//! `depth: "deep"`, or `[typecheck] deep = true`), and a read-only server never runs a
//! checker that may execute the project's code or a program `sextant.toml` names. A run
//! happens here, never in a query, and holds no snapshot: [`plan`] reads a snapshot, then
//! [`DeepPlan::run`] runs each checker through [`super::process`] (own process group,
//! killed whole at its exit, deadline or cancellation; output bounded), at most one run
//! per project at a time, with its build output in a directory of sextant's own. A result
//! is memoized by the project's inputs (its files' texts and its configuration files), so
//! an unchanged project's deep check is a lookup. A position is converted from the tool's
//! unit exactly; a path outside the root, or of a file the workspace does not index, is
//! dropped and counted.

mod explain;
mod parse;

pub use explain::{ExplainError, ToolCode, explain_tool_code};

use std::{
    collections::{BTreeMap, HashMap},
    ffi::OsString,
    os::unix::fs::PermissionsExt,
    path::{Path, PathBuf},
    sync::{Arc, LazyLock, Mutex, TryLockError},
    time::{Duration, Instant},
};

use serde::{Deserialize, Serialize};

use self::parse::{Finding, Place};
use super::{
    cache::CacheSetting,
    process::{self, Finished, Spawn},
};
use crate::ide::{
    self, Analysis, CheckResult, DiagnosticInfo, LineIndex, ProjectInfo, Span, TextRange,
};

/// How long a checker may run on one project unless `[typecheck] timeout_ms` says otherwise.
const DEFAULT_TIMEOUT_MS: u64 = 300_000;
const MAX_TIMEOUT_MS: u64 = 3_600_000;
/// What is kept of a checker's output stream; past it the rest is read and dropped.
const MAX_OUTPUT: usize = 32 * 1024 * 1024;
/// A configuration file larger than this keys the memo by its size only.
const MAX_INPUT_FILE: u64 = 4 * 1024 * 1024;
/// Results kept in memory (each a project's findings).
const MEMO_ENTRIES: usize = 64;

/// One checker of the registry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckerSpec {
    pub tool: String,
    languages: Vec<String>,
    projects: Vec<String>,
    program: String,
    #[serde(default)]
    search: Vec<String>,
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    output: parse::Format,
    stream: Stream,
    #[serde(default)]
    inputs: Vec<String>,
    /// Running it may run the project's code (build scripts, plugins).
    pub executes_code: bool,
    /// Its codes (namespaced) that mean what a sextant code does.
    #[serde(default)]
    same: BTreeMap<String, String>,
    /// Checkers sharing it answer the same question: one of them runs on a project.
    #[serde(default)]
    alternatives: Option<String>,
    /// Files (`file`, or `file#table.name` for a TOML table) saying a project uses it.
    #[serde(default)]
    configured_by: Vec<String>,
    /// The prefix of its codes (`rustc` in `rustc:E0308`).
    namespace: Option<String>,
    /// [pattern, program, args…]: the command explaining the codes the pattern matches.
    #[serde(default)]
    explain: Vec<Vec<String>>,
    /// [pattern, address]: the documentation of the codes the pattern matches.
    #[serde(default)]
    docs: Vec<Vec<String>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
enum Stream {
    Stdout,
    Stderr,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistryFile {
    checker: Vec<CheckerSpec>,
}

/// The checkers sextant knows, from `grammars/checkers.toml`.
pub fn checkers() -> &'static [CheckerSpec] {
    static REGISTRY: LazyLock<Vec<CheckerSpec>> = LazyLock::new(|| {
        let file: RegistryFile = toml::from_str(include_str!("../../../grammars/checkers.toml"))
            .expect("grammars/checkers.toml is valid (a unit test reads it)");
        file.checker
    });
    &REGISTRY
}

/// `[typecheck]` in `sextant.toml`.
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields, default)]
pub struct TypecheckConfig {
    /// `sextant check` and MCP `typecheck` run the checkers unless asked for lint depth.
    pub deep: bool,
    /// The tools that may run (default: every one the registry knows).
    pub checkers: Option<Vec<String>>,
    /// How long one checker may run on one project, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// A tool's program instead of the one found: a path relative to the root, or a name
    /// looked up as the registry's program is.
    pub programs: BTreeMap<String, String>,
}

impl TypecheckConfig {
    fn timeout(&self) -> Duration {
        Duration::from_millis(self.timeout_ms.unwrap_or(DEFAULT_TIMEOUT_MS))
    }

    fn enabled(&self, tool: &str) -> bool {
        self.checkers
            .as_ref()
            .is_none_or(|tools| tools.iter().any(|t| t == tool))
    }
}

/// Checks `[typecheck]` as `sextant.toml` is loaded.
pub(super) fn validate(config: &TypecheckConfig) -> Result<(), String> {
    let known: Vec<&str> = checkers().iter().map(|c| c.tool.as_str()).collect();
    let named = config
        .checkers
        .iter()
        .flatten()
        .chain(config.programs.keys());
    for tool in named {
        if !known.contains(&tool.as_str()) {
            return Err(format!(
                "[typecheck]: unknown checker {tool:?} (known: {})",
                known.join(", ")
            ));
        }
    }
    if let Some((tool, _)) = config.programs.iter().find(|(_, p)| p.is_empty()) {
        return Err(format!("[typecheck.programs]: {tool} names no program"));
    }
    if config
        .timeout_ms
        .is_some_and(|ms| !(1..=MAX_TIMEOUT_MS).contains(&ms))
    {
        return Err(format!(
            "[typecheck]: timeout_ms must be between 1 and {MAX_TIMEOUT_MS}"
        ));
    }
    Ok(())
}

/// Where the deep check keeps its memo and the tools' private build directories: beside
/// the persistent cache (`None` when it is off: the memo is then kept in memory only).
pub fn state_dir(setting: &CacheSetting, root: &Path) -> Option<PathBuf> {
    setting.root_dir(Some("typecheck"), root)
}

/// How one checker's run on one project ended (plain comments on the variants: a
/// documented variant would turn the schema's `enum` into a `oneOf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum CheckerStatus {
    // It ran and its diagnostics are listed.
    Ran,
    // The project's inputs are those of an earlier run: its diagnostics, not run again.
    Cached,
    // The program is not installed (neither in the project nor on PATH).
    Missing,
    // It could not be started, or ended without output sextant can read.
    Failed,
    // Still running at the time limit; its process group was killed.
    TimedOut,
    // The request was cancelled; its process group was killed.
    Cancelled,
    // A read-only server runs no checker that executes the project's code.
    NotAllowed,
}

impl CheckerStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            CheckerStatus::Ran => "ran",
            CheckerStatus::Cached => "cached",
            CheckerStatus::Missing => "missing",
            CheckerStatus::Failed => "failed",
            CheckerStatus::TimedOut => "timed_out",
            CheckerStatus::Cancelled => "cancelled",
            CheckerStatus::NotAllowed => "not_allowed",
        }
    }
}

/// One checker's run on one project.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct CheckerRun {
    pub tool: String,
    /// The project's directory, workspace-relative (`.` for the root).
    pub project: String,
    pub status: CheckerStatus,
    pub duration_ms: u64,
    /// Diagnostics it reported in the workspace's files.
    pub diagnostics: usize,
    /// Diagnostics dropped: in files outside the root, or that the workspace does not index.
    #[serde(skip_serializing_if = "is_zero")]
    pub dropped: usize,
    /// Why it failed, or what it printed that has no place in a file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// What the deep check may use beyond the analysis.
pub struct DeepOptions<'a> {
    pub root: &'a Path,
    pub config: &'a TypecheckConfig,
    /// From [`state_dir`].
    pub state_dir: Option<PathBuf>,
    pub read_only: bool,
}

/// The runs a deep check needs, decided on a snapshot; running them needs none.
pub struct DeepPlan {
    root: PathBuf,
    timeout: Duration,
    jobs: Vec<Job>,
    /// Every workspace file's text, for converting positions (pointers, not copies).
    texts: HashMap<String, Arc<str>>,
    state_base: PathBuf,
    persist: bool,
}

struct Job {
    spec: &'static CheckerSpec,
    project: String,
    dir: PathBuf,
    /// Or why it does not run.
    program: Result<PathBuf, (CheckerStatus, String)>,
    key: blake3::Hash,
}

/// The checkers' diagnostics and how each run went.
#[derive(Debug, Default)]
pub struct DeepOutcome {
    pub diagnostics: Vec<DiagnosticInfo>,
    pub checkers: Vec<CheckerRun>,
}

/// Decides which checkers run on which projects for the files under `paths` (all when
/// empty), each keyed by its inputs.
pub fn plan(
    analysis: &Analysis,
    paths: &[String],
    options: &DeepOptions,
) -> ide::Cancellable<DeepPlan> {
    let projects = analysis.projects()?;
    let mut texts = HashMap::new();
    let mut files: Vec<(String, &'static str, blake3::Hash)> = Vec::new();
    for file in analysis.files() {
        let path = analysis.file_path(file).to_string();
        let text = analysis.file_text(file);
        let lang = analysis.file_language(file).id.as_str();
        files.push((path.clone(), lang, blake3::hash(text.as_bytes())));
        texts.insert(path, text);
    }
    let selected = |path: &str| {
        paths.is_empty()
            || paths.iter().any(|p| {
                let p = p.trim_matches('/');
                p.is_empty() || p == "." || path == p || under(path, p)
            })
    };
    let mut jobs = Vec::new();
    for spec in checkers() {
        if !options.config.enabled(&spec.tool) {
            continue;
        }
        let mut roots: Vec<&ProjectInfo> = projects
            .iter()
            .filter(|p| spec.projects.iter().any(|k| k == p.kind.as_str()))
            .filter(|p| {
                files.iter().any(|(path, lang, _)| {
                    spec.languages.iter().any(|l| l == lang)
                        && under(path, &p.root)
                        && selected(path)
                })
            })
            .collect();
        roots.sort_by(|a, b| a.root.cmp(&b.root));
        roots.dedup_by(|a, b| a.root == b.root);
        // A project inside another one of this checker is checked by the outer run.
        let outer: Vec<&ProjectInfo> = roots
            .iter()
            .filter(|p| {
                !roots
                    .iter()
                    .any(|o| o.root != p.root && under(&p.root, &o.root))
            })
            .copied()
            .collect();
        for project in outer {
            let dir = if project.root == "." {
                options.root.to_path_buf()
            } else {
                options.root.join(&project.root)
            };
            let program = find_program(spec, options, &dir);
            let key = input_key(spec, &dir, &program, &files, &project.root);
            jobs.push(Job {
                spec,
                project: project.root.clone(),
                dir,
                program,
                key,
            });
        }
    }
    let jobs = one_of_each_alternatives(jobs);
    let state_base = options.state_dir.clone().unwrap_or_else(|| {
        let name = blake3::hash(options.root.as_os_str().as_encoded_bytes()).to_hex();
        shared_temp_base().join(&name.as_str()[..16])
    });
    Ok(DeepPlan {
        root: options.root.to_path_buf(),
        timeout: options.config.timeout(),
        jobs,
        texts,
        persist: options.state_dir.is_some(),
        state_base,
    })
}

/// Of the jobs on one project whose checkers are alternatives (pyright, ty, mypy), the one that
/// runs: the first that can (found and allowed), those the project configures before the
/// others, then in the registry's order. When none can, every one stays, its status saying
/// why; otherwise the others are left out, not listed as skipped.
fn one_of_each_alternatives(jobs: Vec<Job>) -> Vec<Job> {
    let rank = |job: &Job| (job.program.is_err(), !configured(job.spec, &job.dir));
    // Per group and project: the best job's index (registry order breaks ties, as jobs
    // come in it).
    let mut best: HashMap<(&str, &Path), usize> = HashMap::new();
    for (i, job) in jobs.iter().enumerate() {
        if let Some(group) = &job.spec.alternatives {
            let slot = best.entry((group.as_str(), job.dir.as_path())).or_insert(i);
            if rank(job) < rank(&jobs[*slot]) {
                *slot = i;
            }
        }
    }
    let keep: Vec<bool> = jobs
        .iter()
        .enumerate()
        .map(|(i, job)| match &job.spec.alternatives {
            None => true,
            Some(group) => {
                let winner = best[&(group.as_str(), job.dir.as_path())];
                i == winner || jobs[winner].program.is_err()
            }
        })
        .collect();
    jobs.into_iter()
        .zip(keep)
        .filter_map(|(job, keep)| keep.then_some(job))
        .collect()
}

/// The project in `dir` says it uses `spec`'s checker (`configured_by`).
fn configured(spec: &CheckerSpec, dir: &Path) -> bool {
    spec.configured_by.iter().any(|marker| {
        let (file, table) = match marker.split_once('#') {
            Some((file, table)) => (file, Some(table)),
            None => (marker.as_str(), None),
        };
        let path = dir.join(file);
        let Some(table) = table else {
            return path.is_file();
        };
        let small = std::fs::metadata(&path).is_ok_and(|m| m.len() <= MAX_INPUT_FILE);
        let Some(text) = small.then(|| std::fs::read_to_string(&path).ok()).flatten() else {
            return false;
        };
        // setup.cfg is INI: its `[mypy]` section is looked for as a header line.
        if !file.ends_with(".toml") {
            return text.lines().any(|l| l.trim() == format!("[{table}]"));
        }
        let Ok(value) = toml::from_str::<toml::Value>(&text) else {
            return false;
        };
        table
            .split('.')
            .try_fold(&value, |v, key| v.get(key))
            .is_some_and(toml::Value::is_table)
    })
}

/// With no cache directory, the tools' directories go under the shared temporary
/// directory, in one of this user's own (see [`owned_temp_base`]).
fn shared_temp_base() -> PathBuf {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    std::env::temp_dir().join(format!("sextant-typecheck-{uid}"))
}

/// Creates the shared temporary base (mode 0700) or checks that the one there is a
/// directory of this user's that no one else may enter: another user could have made it
/// first, to read or plant a build's output.
fn owned_temp_base(base: &Path) -> Result<(), String> {
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    let _ = std::fs::DirBuilder::new().mode(0o700).create(base);
    let meta = std::fs::symlink_metadata(base).map_err(|e| format!("{}: {e}", base.display()))?;
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() };
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o077 != 0 {
        return Err(format!(
            "{} is not a private directory of this user's; pass --cache-dir",
            base.display()
        ));
    }
    Ok(())
}

/// `path` is `dir` or below it (workspace-relative, `.` the root).
fn under(path: &str, dir: &str) -> bool {
    dir == "."
        || dir.is_empty()
        || path == dir
        || path.strip_prefix(dir).is_some_and(|r| r.starts_with('/'))
}

/// The program to run: `[typecheck.programs]`'s, else the registry's found in the
/// project's `search` directories (nearest first, up to the root), else on PATH. A
/// read-only server takes it from PATH only: a program inside the repository
/// (`node_modules/.bin/tsc`) is the repository's code.
fn find_program(
    spec: &CheckerSpec,
    options: &DeepOptions,
    dir: &Path,
) -> Result<PathBuf, (CheckerStatus, String)> {
    let configured = options.config.programs.get(&spec.tool);
    if options.read_only && spec.executes_code {
        let why = "a read-only server runs no checker that executes the project's code";
        return Err((CheckerStatus::NotAllowed, why.into()));
    }
    if options.read_only && configured.is_some() {
        let why = "a read-only server runs no program sextant.toml names";
        return Err((CheckerStatus::NotAllowed, why.into()));
    }
    let name = configured.unwrap_or(&spec.program);
    if name.contains('/') {
        let path = options.root.join(name);
        return if executable(&path) {
            Ok(path)
        } else {
            let why = format!("{name} (from [typecheck.programs]) is not an executable file");
            Err((CheckerStatus::Missing, why))
        };
    }
    let mut at = Some(dir).filter(|_| !options.read_only);
    while let Some(d) = at {
        for search in &spec.search {
            let candidate = d.join(search).join(name);
            if executable(&candidate) {
                return Ok(candidate);
            }
        }
        if d == options.root {
            break;
        }
        at = d.parent();
    }
    std::env::var_os("PATH")
        .iter()
        .flat_map(std::env::split_paths)
        .map(|p| p.join(name))
        .find(|p| executable(p))
        .ok_or_else(|| {
            let why = if spec.search.is_empty() || options.read_only {
                format!("{name} is not on PATH")
            } else {
                format!(
                    "{name} is in neither {} (from the project up to the root) nor PATH",
                    spec.search.join(", ")
                )
            };
            (CheckerStatus::Missing, why)
        })
}

fn executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

/// What a checker's answer on a project depends on: the tool and how it runs, the texts
/// of the workspace's files under the project, and its configuration files on disk.
fn input_key(
    spec: &CheckerSpec,
    dir: &Path,
    program: &Result<PathBuf, (CheckerStatus, String)>,
    files: &[(String, &str, blake3::Hash)],
    project: &str,
) -> blake3::Hash {
    let mut hasher = blake3::Hasher::new();
    let mut field = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(spec.tool.as_bytes());
    field(dir.as_os_str().as_encoded_bytes());
    for arg in &spec.args {
        field(arg.as_bytes());
    }
    if let Ok(program) = program {
        field(program.as_os_str().as_encoded_bytes());
        // A reinstalled tool may answer differently.
        if let Ok(meta) = std::fs::metadata(program) {
            let modified = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok());
            field(&meta.len().to_le_bytes());
            field(&modified.unwrap_or_default().as_nanos().to_le_bytes());
        }
    }
    for (path, _, hash) in files.iter().filter(|(path, ..)| under(path, project)) {
        field(path.as_bytes());
        field(hash.as_bytes());
    }
    for input in &spec.inputs {
        field(input.as_bytes());
        let path = dir.join(input);
        match std::fs::metadata(&path) {
            Ok(meta) if meta.len() <= MAX_INPUT_FILE => {
                field(&std::fs::read(&path).unwrap_or_default());
            }
            Ok(meta) => field(&meta.len().to_le_bytes()),
            Err(_) => field(b"absent"),
        }
    }
    hasher.finalize()
}

/// A run's findings in workspace terms, as the memo keeps them.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Memo {
    findings: Vec<Finding>,
    dropped: usize,
    detail: Option<String>,
}

/// A memo on disk, with the inputs it answers for.
#[derive(Serialize, Deserialize)]
struct StoredMemo {
    key: String,
    memo: Memo,
}

static MEMO: LazyLock<Mutex<HashMap<blake3::Hash, Arc<Memo>>>> = LazyLock::new(Default::default);
/// One lock per project's private directory: never two runs of a project at once.
static RUNNING: LazyLock<Mutex<HashMap<PathBuf, Arc<Mutex<()>>>>> = LazyLock::new(Default::default);

impl DeepPlan {
    /// Runs (or looks up) every job, in order; `stop` says the request was cancelled.
    pub fn run(self, stop: &dyn Fn() -> bool) -> DeepOutcome {
        let mut outcome = DeepOutcome::default();
        for job in &self.jobs {
            let started = Instant::now();
            let (status, memo) = if stop() {
                (CheckerStatus::Cancelled, None)
            } else {
                self.run_job(job, stop)
            };
            let mut run = CheckerRun {
                tool: job.spec.tool.clone(),
                project: job.project.clone(),
                status,
                duration_ms: started.elapsed().as_millis() as u64,
                diagnostics: 0,
                dropped: 0,
                detail: None,
            };
            if let Some(memo) = memo {
                run.dropped = memo.dropped;
                run.detail = memo.detail.clone();
                for finding in &memo.findings {
                    if let Some(d) = self.diagnostic(finding) {
                        outcome.diagnostics.push(d);
                        run.diagnostics += 1;
                    } else {
                        run.dropped += 1;
                    }
                }
            }
            outcome.checkers.push(run);
        }
        outcome
    }

    fn private_dir(&self, job: &Job) -> PathBuf {
        let name = blake3::hash(job.dir.as_os_str().as_encoded_bytes()).to_hex();
        self.state_base
            .join(format!("{}-{}", job.spec.tool, &name.as_str()[..16]))
    }

    /// One memo file per checker and project, holding its latest inputs' key: the disk
    /// keeps as many memos as there are projects, however often they change.
    fn memo_path(&self, job: &Job) -> PathBuf {
        self.private_dir(job).join("memo.json")
    }

    fn lookup(&self, job: &Job) -> Option<Arc<Memo>> {
        if let Some(memo) = MEMO.lock().unwrap().get(&job.key) {
            return Some(memo.clone());
        }
        if !self.persist {
            return None;
        }
        let bytes = std::fs::read(self.memo_path(job)).ok()?;
        let stored: StoredMemo = serde_json::from_slice(&bytes).ok()?;
        if stored.key != job.key.to_hex().as_str() {
            return None;
        }
        let memo = Arc::new(stored.memo);
        remember(job.key, memo.clone());
        Some(memo)
    }

    fn store(&self, job: &Job, memo: Arc<Memo>) {
        remember(job.key, memo.clone());
        if self.persist {
            let path = self.memo_path(job);
            let tmp = path.with_extension(format!("tmp{}", std::process::id()));
            let written = path
                .parent()
                .map(std::fs::create_dir_all)
                .unwrap_or(Ok(()))
                .and_then(|()| {
                    let stored = StoredMemo {
                        key: job.key.to_hex().to_string(),
                        memo: (*memo).clone(),
                    };
                    std::fs::write(&tmp, serde_json::to_vec(&stored).unwrap_or_default())
                })
                .and_then(|()| std::fs::rename(&tmp, &path));
            if written.is_err() {
                // A memo not written is a run repeated next time, nothing worse.
                let _ = std::fs::remove_file(&tmp);
            }
        }
    }

    fn run_job(&self, job: &Job, stop: &dyn Fn() -> bool) -> (CheckerStatus, Option<Arc<Memo>>) {
        if let Some(memo) = self.lookup(job) {
            return (CheckerStatus::Cached, Some(memo));
        }
        let program = match &job.program {
            Ok(program) => program.clone(),
            Err((status, why)) => return (*status, Some(Arc::new(Memo::detail(why.clone())))),
        };
        let private = self.private_dir(job);
        if !self.persist
            && let Err(e) = owned_temp_base(&shared_temp_base())
        {
            return failed(e);
        }
        if let Err(e) = std::fs::create_dir_all(&private) {
            return failed(format!("{}: {e}", private.display()));
        }
        let lock = RUNNING
            .lock()
            .unwrap()
            .entry(private.clone())
            .or_default()
            .clone();
        let _held = loop {
            match lock.try_lock() {
                Ok(held) => break held,
                // A run that panicked holding the turn (its call answered an internal
                // error) left nothing half-done: the memo is written whole or not at all.
                Err(TryLockError::Poisoned(poisoned)) => break poisoned.into_inner(),
                Err(TryLockError::WouldBlock) => {}
            }
            if stop() {
                return (CheckerStatus::Cancelled, None);
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        // Another process on the same project: wait for it the same way.
        let _file_lock = match lock_file(&private.join("lock"), stop) {
            Ok(Some(file)) => file,
            Ok(None) => return (CheckerStatus::Cancelled, None),
            Err(e) => return failed(format!("locking {}: {e}", private.display())),
        };
        // The run just waited for may have answered this very question.
        if let Some(memo) = self.lookup(job) {
            return (CheckerStatus::Cached, Some(memo));
        }
        if crate::testing::checker_run_panics(&job.spec.tool) {
            panic!(
                "injected fault in a {} run (SEXTANT_TEST_CHECKER_PANIC)",
                job.spec.tool
            );
        }
        self.execute(job, &program, &private, stop)
    }

    /// Runs the checker (the project's lock held) and reads what it printed.
    fn execute(
        &self,
        job: &Job,
        program: &Path,
        private: &Path,
        stop: &dyn Fn() -> bool,
    ) -> (CheckerStatus, Option<Arc<Memo>>) {
        let private_text = private.to_string_lossy();
        let fill = |s: &str| s.replace("{private}", &private_text);
        let args: Vec<String> = job.spec.args.iter().map(|a| fill(a)).collect();
        let env: Vec<(String, OsString)> = job
            .spec
            .env
            .iter()
            .map(|(k, v)| (k.clone(), OsString::from(fill(v))))
            .collect();
        let spawn = Spawn {
            program: program.to_path_buf(),
            args: &args,
            cwd: &job.dir,
            env,
            stdin: None,
            max_stdout: MAX_OUTPUT,
            stop_on_large_stdout: false,
            max_stderr: MAX_OUTPUT,
        };
        let finished = match process::run(spawn, self.timeout, stop) {
            Ok(finished) => finished,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return (CheckerStatus::Missing, None);
            }
            Err(e) => return failed(format!("{}: {e}", program.display())),
        };
        let (status, out, err, cut) = match finished {
            Finished::Exited {
                status,
                out,
                err,
                cut,
            } => (status, out, err, cut),
            Finished::TimedOut => {
                let detail = format!(
                    "still running after {} ms; its processes were killed",
                    self.timeout.as_millis()
                );
                return (
                    CheckerStatus::TimedOut,
                    Some(Arc::new(Memo::detail(detail))),
                );
            }
            Finished::Cancelled => return (CheckerStatus::Cancelled, None),
            Finished::OutputTooLarge => return failed("its output is too large".into()),
            Finished::OutputNotClosed => {
                return failed("it exited but something it started kept its output open".into());
            }
        };
        let stream = match job.spec.stream {
            Stream::Stdout => &out,
            Stream::Stderr => &err,
        };
        self.interpret(job, status, stream, &err, cut)
    }

    /// A run that exited, judged: its findings memoized, or a failure when it says
    /// something is wrong and nothing it said has a place.
    fn interpret(
        &self,
        job: &Job,
        status: std::process::ExitStatus,
        stream: &[u8],
        err: &[u8],
        cut: bool,
    ) -> (CheckerStatus, Option<Arc<Memo>>) {
        let parsed = parse::parse(job.spec.output, &String::from_utf8_lossy(stream));
        if !status.success() && parsed.findings.is_empty() {
            let said = if parsed.unplaced.is_empty() {
                first_lines(&String::from_utf8_lossy(err))
            } else {
                some_of(&parsed.unplaced)
            };
            return failed(format!("{status}: {said}"));
        }
        let mut memo = self.in_workspace_terms(job, parsed.findings);
        if cut {
            memo.detail = Some(format!("its output was cut at {MAX_OUTPUT} bytes"));
        } else if !parsed.unplaced.is_empty() {
            memo.detail = Some(some_of(&parsed.unplaced));
        }
        let memo = Arc::new(memo);
        self.store(job, memo.clone());
        (CheckerStatus::Ran, Some(memo))
    }

    /// Findings with workspace-relative paths; those elsewhere dropped and counted; each
    /// once (cargo reports a file's error again for each target that compiles it).
    fn in_workspace_terms(&self, job: &Job, findings: Vec<Finding>) -> Memo {
        let mut kept = Vec::new();
        let mut dropped = 0;
        let mut seen = std::collections::HashSet::new();
        for mut finding in findings {
            if !seen.insert(finding.clone()) {
                continue;
            }
            let written = Path::new(&finding.path);
            let absolute = if written.is_absolute() {
                written.to_path_buf()
            } else {
                job.dir.join(written)
            };
            let relative = super::normalize_lexically(&absolute).and_then(|p| {
                p.strip_prefix(&self.root)
                    .ok()
                    .map(|r| r.to_string_lossy().into_owned())
            });
            match relative.filter(|r| self.texts.contains_key(r)) {
                Some(relative) => {
                    finding.path = relative;
                    kept.push(finding);
                }
                None => dropped += 1,
            }
        }
        Memo {
            findings: kept,
            dropped,
            detail: None,
        }
    }

    /// A finding as a sextant diagnostic, its place converted over the file's text.
    fn diagnostic(&self, finding: &Finding) -> Option<DiagnosticInfo> {
        let text = self.texts.get(&finding.path)?;
        let index = LineIndex::new(text);
        let offset = |place: Place| match place {
            Place::Byte(byte) => ide::floor_char_boundary(text, (byte as usize).min(text.len())),
            Place::Line { line, column, unit } => {
                index.offset(line.saturating_sub(1), column, unit.column_unit())
            }
        };
        let start = offset(finding.start);
        let end = finding.end.map_or(start, offset).max(start);
        let range = TextRange::new((start as u32).into(), (end as u32).into());
        Some(DiagnosticInfo {
            path: finding.path.clone(),
            code: finding.code.clone(),
            severity: finding.severity,
            message: finding.message.clone(),
            span: Span::new(&index, range),
            unnecessary: false,
            related: Vec::new(),
            fix: None,
            also: Vec::new(),
        })
    }
}

impl Memo {
    fn detail(detail: String) -> Memo {
        Memo {
            findings: Vec::new(),
            dropped: 0,
            detail: Some(detail),
        }
    }
}

fn failed(detail: String) -> (CheckerStatus, Option<Arc<Memo>>) {
    (CheckerStatus::Failed, Some(Arc::new(Memo::detail(detail))))
}

/// The first few of a tool's lines that name no place, for a run's detail.
fn some_of(unplaced: &[String]) -> String {
    unplaced
        .iter()
        .take(5)
        .cloned()
        .collect::<Vec<_>>()
        .join(" / ")
}

fn first_lines(text: &str) -> String {
    let lines: Vec<&str> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .take(5)
        .collect();
    lines.join(" / ").chars().take(1000).collect()
}

fn remember(key: blake3::Hash, memo: Arc<Memo>) {
    let mut memos = MEMO.lock().unwrap();
    if memos.len() >= MEMO_ENTRIES && !memos.contains_key(&key) {
        // Any entry will do: a memo dropped is a run repeated, and the disk keeps them.
        let victim = *memos.keys().next().expect("the memo is full");
        memos.remove(&victim);
    }
    memos.insert(key, memo);
}

/// An exclusive `flock` on `path`, waited for while `stop` is false (`None` when it said
/// stop).
fn lock_file(path: &Path, stop: &dyn Fn() -> bool) -> std::io::Result<Option<std::fs::File>> {
    use std::os::fd::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)?;
    loop {
        // SAFETY: flock only reads the descriptor, which `file` keeps open.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(Some(file));
        }
        let error = std::io::Error::last_os_error();
        if error.raw_os_error() != Some(libc::EWOULDBLOCK) {
            return Err(error);
        }
        if stop() {
            return Ok(None);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// `outcome`'s diagnostics added to a lint check's `result`: sorted in with the rest
/// (by path, then position), counted in its summary, at most `limit` listed. A tool's
/// finding that the registry says means what a sextant diagnostic on its line means is
/// merged into that one (its code under `also`), so no finding is listed twice.
pub fn merge(
    result: &mut CheckResult,
    outcome: &DeepOutcome,
    query: &ide::CheckQuery,
    limit: usize,
) {
    let kept = outcome.diagnostics.iter().filter(|d| {
        query.min_severity.is_none_or(|min| d.severity <= min)
            && query.codes.reports_tool_code(&d.code)
    });
    for d in kept {
        if let Some(ours) = result
            .diagnostics
            .iter_mut()
            .find(|ours| same_finding(ours, d))
        {
            if !ours.also.contains(&d.code) {
                ours.also.push(d.code.clone());
            }
            continue;
        }
        result.summary.total += 1;
        *result.summary.by_code.entry(d.code.clone()).or_default() += 1;
        *result.summary.by_file.entry(d.path.clone()).or_default() += 1;
        result.diagnostics.push(d.clone());
    }
    result.diagnostics.sort_by(|a, b| {
        (&a.path, a.span.byte_start, &a.code).cmp(&(&b.path, b.span.byte_start, &b.code))
    });
    if result.diagnostics.len() > limit {
        result.diagnostics.truncate(limit);
        result.summary.truncated = true;
    }
}

/// `tool`'s finding is `ours`: the same file and line, and a code the registry equates.
fn same_finding(ours: &DiagnosticInfo, tool: &DiagnosticInfo) -> bool {
    ours.path == tool.path
        && ours.span.start.line == tool.span.start.line
        && checkers()
            .iter()
            .any(|c| c.same.get(&tool.code).is_some_and(|id| *id == ours.code))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ide::Severity;

    #[test]
    fn the_registry_reads_and_names_known_project_kinds_and_languages() {
        let kinds = [
            "cargo",
            "cargo-workspace",
            "python",
            "npm",
            "tsconfig",
            "go-module",
            "go-work",
        ];
        let tools: Vec<&str> = checkers().iter().map(|c| c.tool.as_str()).collect();
        assert_eq!(tools, ["tsc", "go-vet", "cargo", "pyright", "ty", "mypy"]);
        for spec in checkers() {
            for kind in &spec.projects {
                assert!(kinds.contains(&kind.as_str()), "{}: {kind}", spec.tool);
            }
            for lang in &spec.languages {
                assert!(
                    ide::registry().by_id(lang).is_some(),
                    "{}: {lang}",
                    spec.tool
                );
            }
        }
    }

    #[test]
    fn config_names_only_known_checkers_and_sane_timeouts() {
        let config = |text: &str| toml::from_str::<TypecheckConfig>(text).unwrap();
        assert_eq!(
            validate(&config("deep = true\ncheckers = [\"tsc\", \"cargo\"]")),
            Ok(())
        );
        assert_eq!(
            validate(&config("checkers = [\"flow\"]")),
            Err(
                "[typecheck]: unknown checker \"flow\" (known: tsc, go-vet, cargo, pyright, ty, mypy)"
                    .into()
            )
        );
        assert!(validate(&config("timeout_ms = 0")).is_err());
        assert!(validate(&config("[programs]\ntsc = \"\"")).is_err());
    }

    #[test]
    fn a_shared_temporary_base_must_be_private() {
        let dir = tempfile::tempdir().unwrap();
        let fresh = dir.path().join("fresh");
        assert_eq!(owned_temp_base(&fresh), Ok(()));
        let open = dir.path().join("open");
        std::fs::create_dir(&open).unwrap();
        std::fs::set_permissions(&open, std::fs::Permissions::from_mode(0o777)).unwrap();
        assert!(
            owned_temp_base(&open)
                .unwrap_err()
                .contains("not a private directory")
        );
        let link = dir.path().join("link");
        std::os::unix::fs::symlink(&fresh, &link).unwrap();
        assert!(owned_temp_base(&link).is_err());
    }

    #[test]
    fn positions_convert_exactly_from_each_unit() {
        let text: Arc<str> = "const s = \"😀\"; const n: number = \"x\";\n".into();
        let plan = DeepPlan {
            root: PathBuf::from("/r"),
            timeout: Duration::from_secs(1),
            jobs: Vec::new(),
            texts: HashMap::from([("a.ts".to_string(), text)]),
            state_base: PathBuf::from("/nonexistent"),
            persist: false,
        };
        let finding = |start| Finding {
            path: "a.ts".into(),
            start,
            end: None,
            severity: Severity::Error,
            code: "tsc:TS2322".into(),
            message: String::new(),
        };
        let utf16 = Place::Line {
            line: 1,
            column: 22,
            unit: parse::Unit::Utf16,
        };
        let bytes = Place::Line {
            line: 1,
            column: 24,
            unit: parse::Unit::Utf8,
        };
        let chars = Place::Line {
            line: 1,
            column: 21,
            unit: parse::Unit::Chars,
        };
        for place in [utf16, bytes, chars, Place::Byte(24)] {
            let d = plan.diagnostic(&finding(place)).unwrap();
            assert_eq!(
                (d.span.start.line, d.span.start.column, d.span.byte_start),
                (1, 22, 24),
                "{place:?}"
            );
        }
        assert!(
            plan.diagnostic(&Finding {
                path: "b.ts".into(),
                ..finding(utf16)
            })
            .is_none()
        );
    }
}
