//! The command-line front end: argument parsing and human/JSON rendering only; every answer
//! comes from `ide`.
//!
//! Exit codes: 0 ok, 1 findings (syntax errors for `parse`, no match for `symbols`, cycles
//! for `graph --cycles`, diagnostics for `check`), 2 usage or I/O error.

mod apply;
mod calls;
mod changes;
mod edit;
mod explore;
mod fix;
mod format;
mod github;
mod impact;
mod implementations;
mod policy;
mod progress;
mod read;
mod rename;
mod render;
mod repo_map;
mod sarif;
mod scip;
mod search;
mod skeleton;

use crate::ide::Failure as _;
use std::{
    io::Write,
    path::{Path, PathBuf},
    process::ExitCode,
};

use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::{
    ide::{self, Analysis, FileId, Language, SymbolKind, registry},
    workspace::{self, Host, LoadOptions, typecheck},
};

/// The arguments. The texts that list languages and symbol kinds are filled in by
/// [`command`] from the registry and [`SymbolKind::ALL`].
#[derive(Parser, Debug)]
#[command(
    name = "sextant",
    version,
    after_help = "Exit codes: 0 ok, 1 findings (syntax errors, no symbol matched, import cycles with graph --cycles, diagnostics from check, files that would change with format --check or --diff), 2 usage or I/O error (or a file format could not format)."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Args, Debug, Clone)]
pub struct GlobalArgs {
    /// Workspace root [default: the current directory; for `lsp`, the client's workspace
    /// folder]. `mcp` takes it repeated, to serve several roots.
    #[arg(long = "root", global = true, value_name = "DIR")]
    pub root_arg: Vec<PathBuf>,
    /// Print machine-readable JSON instead of text.
    #[arg(long, global = true)]
    pub json: bool,
    /// Skip files larger than this many bytes [default: sextant.toml's max_file_size, else 2097152].
    #[arg(long, global = true, value_name = "BYTES")]
    pub max_file_size: Option<u64>,
    /// Leave out files matching this gitignore-style glob (repeatable), on top of
    /// .gitignore, .ignore and sextant.toml.
    #[arg(long, global = true, value_name = "GLOB")]
    pub exclude: Vec<String>,
    /// Keep the persistent cache of per-file results under DIR [default:
    /// $XDG_CACHE_HOME/sextant, else ~/.cache/sextant], in a directory named after the root.
    #[arg(long, global = true, value_name = "DIR", conflicts_with = "no_cache")]
    pub cache_dir: Option<PathBuf>,
    /// Neither read nor write the persistent cache: analyse every file afresh.
    #[arg(long, global = true)]
    pub no_cache: bool,
    /// Keep resident memory under SIZE (`400M`, `2G`) [default: sextant.toml's max_memory,
    /// else none]: a server pauses its background check above it; a command warns when its
    /// peak went over (docs/memory.md).
    #[arg(long, global = true, value_name = "SIZE", value_parser = crate::ide::memory::parse_size)]
    pub max_memory: Option<u64>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Show a file's syntax tree (an indented s-expression with line:column spans) and its
    /// syntax errors.
    Parse(ParseArgs),
    /// Show the symbols a file defines, as a tree.
    Outline(FileArgs),
    /// List a file's imports and where each leads: a workspace file (and the definition
    /// named), external (the standard library, a Node built-in or a declared dependency), or
    /// unresolved.
    Imports(WorkspaceFileArgs),
    /// Go to the definition of a name: at FILE:LINE:COLUMN (1-based, columns in
    /// characters), or by NAME (`join`, `posixpath.join`, `Class.method`). Imports are
    /// followed to what they bring in. Python, JavaScript, TypeScript, Go and Rust today.
    Def(NavigationArgs),
    /// Find every use of a name (definitions, imports, calls, reads, writes, types), at
    /// FILE:LINE:COLUMN or by NAME. Each is `exact` (resolved through scopes and imports)
    /// or `heuristic` (a member on a receiver of unknown type). Exits 1 when none is found.
    /// Python, JavaScript, TypeScript, Go and Rust today.
    Refs(RefsArgs),
    /// Show who calls a function, method or class and what it calls (at FILE:LINE:COLUMN
    /// or by NAME), to --depth steps, as a tree with each call's line:column; constructor
    /// calls count, a function passed by name (a callback) is a `reference`, and calls
    /// matched by name alone are marked heuristic (--exact leaves them out). --incoming or
    /// --outgoing walk one way only; --format dot prints Graphviz, --format mermaid a
    /// flowchart, --json the graph.
    Calls(calls::CallsArgs),
    /// Show what depends on a definition (NAME or FILE:LINE:COLUMN), lines
    /// (FILE:START-END) or files (FILE or a directory), transitively: the definitions
    /// whose code uses it, then theirs, nearest first, each with what it uses, and the
    /// files importing a whole file; tests (by each language's conventions) are marked
    /// `[test]`, and --tests lists only them: the tests a change can reach.
    Impact(impact::ImpactArgs),
    /// Show what the working tree changed against HEAD (or REV, or what OLD..NEW or A...B
    /// changed): the changed files and, in each, the definitions added, removed, or
    /// changed in their signature or body, with how much depends on each; then the tests
    /// that can reach them and their impact, nearest first. Read from the repository; git
    /// is never run.
    Changes(changes::ChangesArgs),
    /// Answer a question about the code from the TERMs it names (identifiers, definitions'
    /// names, files) in one read under --max-tokens (default 8000): the definitions' source
    /// grouped by file (a name of several: its 3 most used), the call paths between them,
    /// then what depends on them, nearest first. The token count, and what reading the
    /// files whole would cost, go to stderr. Exits 1 when no term names anything.
    Explore(explore::ExploreArgs),
    /// The subclasses, interface implementations, trait impls and overriding methods of the
    /// type or method at FILE:LINE:COLUMN or called NAME, at every level (--supertypes:
    /// what it derives from, implements and overrides). Each is `exact` (its bases resolved
    /// through scopes and imports) or `heuristic` (matched by name; Go's implicit interface
    /// satisfaction). Exits 1 when none is found.
    Implementations(implementations::ImplementationsArgs),
    /// Rename a symbol, at FILE:LINE:COLUMN or by NAME, to NEW across the workspace
    /// (imports, aliases, re-exports, `__all__`). A dry run lists the edits (--diff shows
    /// them); --write applies them, every file or none. Refused, naming each place, when the
    /// new name would change what a name means (exit 1), or when NEW is not a valid name
    /// (exit 2). Python, JavaScript, TypeScript, Go and Rust.
    Rename(rename::RenameArgs),
    /// Apply a patch (`git diff` output, a `*** Begin Patch` envelope or search/replace
    /// blocks) from PATCH or standard input, checked whole against the files as they are:
    /// a dry run lists the files and the diagnostics the patch would introduce (--diff
    /// shows the change); --write writes every file or none. Exits 2 when the patch does not
    /// apply, 1 when --check refuse found new errors.
    Apply(apply::ApplyArgs),
    /// Edit a definition, named as `read` names it (`Class.method`) or at FILE:LINE:COLUMN:
    /// replace-body, replace-definition, insert-before, insert-after or delete, the new
    /// text (--text FILE, - for standard input) re-indented to its place. A dry run unless
    /// --write, shown and checked as `apply` shows a patch. `delete` is refused while
    /// references remain (listed) unless --force.
    Edit(edit::EditArgs),
    /// Show the import graph: what FILE imports, transitively, as an indented tree (or what
    /// imports it, with --reverse), each entry with the line of its import statement in the
    /// importing file; without FILE, every import between workspace files. Import cycles are
    /// listed after. Files of languages whose imports resolve (see `imports`) make edges.
    /// --format dot prints Graphviz (render it with
    /// `sextant graph --format dot | dot -Tsvg > graph.svg`), --format mermaid a `graph LR`
    /// block.
    Graph(GraphArgs),
    /// Search the text of the files the workspace indexes for PATTERN (a regular expression
    /// in ripgrep's syntax, or with -F a literal text), printed as `rg -n --heading --sort
    /// path` does, with the definition each match is in. Exits 1 when nothing matched.
    Search(search::SearchArgs),
    /// Search the workspace's symbols (fuzzy, ranked: exact, prefix, word starts, substring,
    /// subsequence).
    Symbols(SymbolsArgs),
    /// List the supported languages, their file extensions and capabilities.
    Languages,
    /// Serve the workspace to coding agents over MCP (stdio by default, or streamable HTTP
    /// with --http). The index follows file changes on disk.
    Mcp(McpArgs),
    /// Serve editors over the Language Server Protocol on stdio. The root is --root if given,
    /// else the client's first workspace folder. Exits 0 after `shutdown` then `exit`, 1 if
    /// the client exits or disconnects without `shutdown` or breaks the message framing.
    Lsp(LspArgs),
    /// List the files sextant indexes (after ignore rules, globs and limits), with their
    /// language.
    Files(FilesArgs),
    /// Index the workspace and report files, bytes, lines and symbols per language, skipped
    /// files and the index time.
    Stats(StatsArgs),
    /// Check PATHS (files or directories; default: the whole workspace) and print one
    /// `path:line:column: CODE message` line per diagnostic, then a summary. Exits 1 when
    /// anything is reported. `sextant explain` lists every code with the languages it is
    /// checked in; `sextant explain CODE` tells what one means.
    Check(CheckArgs),
    /// Explain a diagnostic code (`SX005` or `undefined-name`): what it means, an example
    /// that triggers it and its fix; a checker's code (`rustc:E0308`): the tool's own
    /// explanation where it has one offline, and its documentation's address. Without
    /// CODE, list every code.
    Explain(ExplainArgs),
    /// Fix the layout of PATHS (files or directories; default: the whole workspace): line
    /// endings, trailing whitespace, the final newline, runs of blank lines and
    /// indentation, never inside strings or other multi-line tokens; only whitespace
    /// between tokens changes, or the file is refused. A language with an external
    /// formatter in sextant.toml (`[format.python] command = [...]`) uses it instead.
    /// Prints the diffs by default; --check lists the files that would change, --diff
    /// prints them (both exit 1 if any would), --write writes them.
    Format(format::FormatArgs),
    // The help's `FILE:LINE[:COLUMN]` is not a link.
    #[allow(rustdoc::broken_intra_doc_links)]
    /// Read code under a token budget: definitions by NAME (with their docs, decorators and
    /// attributes), the definition at FILE:LINE[:COLUMN], lines FILE:START-END, or a whole
    /// FILE (--outline: its definitions with their token costs). Targets go in, in the order
    /// given, until one does not fit; the rest are listed with a --cursor to continue. A
    /// name that names several definitions lists them (never a guess); one that names none
    /// is an error (NOT_FOUND). Prints the text; the token count goes to stderr.
    Read(read::ReadArgs),
    /// Count the exact tokens of files (o200k_base by default, or cl100k_base), as a model's
    /// tokenizer does.
    Tokens(read::TokensArgs),
    /// What a new agent session needs to know, in one answer under a token budget: languages
    /// and sizes, projects, the instruction files to read first (AGENTS.md, CLAUDE.md,
    /// CONTRIBUTING.md, README), the commands the manifests and Makefile declare, entry
    /// points, the top-level layout, the most imported files and the git state: branch,
    /// commit, and the files changed or untracked (read from the repository; git is not run).
    Bootstrap(read::BootstrapArgs),
    /// Pack what a task needs into one answer under one token budget: required ENTRYs
    /// (files or definitions' names) in full, --skeleton ones with bodies elided, and
    /// --optional ones by priority, in full when they fit, else as skeletons, else left out
    /// (listed on stderr). --style markdown (default), xml, json or plain.
    Pack(read::PackArgs),
    /// Show PATHS (files or directories; default: the whole workspace) with every function
    /// and method body elided: signatures, doc comments, imports, types and class, impl
    /// and trait shapes kept, each elided body marked with its lines
    /// (`{ /* …12-30 */ }`, Python `def f(x): ...  # lines 12-30`). The token count goes to
    /// stderr; --max-tokens cuts the output and says where to continue.
    Skeleton(skeleton::SkeletonArgs),
    /// Map the workspace (or the files under PATH) as its most-used definitions'
    /// signature lines, ranked by how much the rest of the code uses them (PageRank over
    /// resolved references, toward --focus files or names), grouped by file and cut to
    /// --max-tokens (default 4000). The token count goes to stderr.
    RepoMap(repo_map::RepoMapArgs),
    /// Export the workspace (or the files under PATHS) as a SCIP index for code search
    /// (`src code-intel upload -file=index.scip`) or Glean: every definition and every
    /// exactly resolved reference as occurrences, with symbols' kinds, first doc lines and
    /// what they implement. Written to --output (default index.scip) atomically, or to
    /// standard output with `-o -`; a summary goes to stderr.
    Scip(scip::ScipArgs),
}

#[derive(Args, Debug)]
pub struct CheckArgs {
    /// Files or directories of the workspace (relative to the current directory or to
    /// --root).
    pub paths: Vec<PathBuf>,
    /// Report only these codes (comma-separated ids, names, id prefixes such as SX00, or
    /// ALL; with --deep also tool codes or their prefixes, such as tsc: or rustc:E0308)
    /// instead of the default set.
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    pub select: Vec<String>,
    /// Do not report these codes (as for --select).
    #[arg(long, value_name = "CODES", value_delimiter = ',')]
    pub ignore: Vec<String>,
    /// Output format (--json is the same as --format json).
    #[arg(long, value_enum, default_value_t = CheckFormat::Text)]
    pub format: CheckFormat,
    /// Apply the safe fixes of the diagnostics found (all files or none), then report what
    /// remains.
    #[arg(long)]
    pub fix: bool,
    /// With --fix or --diff, apply the unsafe fixes too (they are right when the check is
    /// right about the program, but may change what it does).
    #[arg(long)]
    pub unsafe_fixes: bool,
    /// Print the unified diff the fixes would make and write nothing (exit 1 when there is
    /// something to fix).
    #[arg(long)]
    pub diff: bool,
    /// Also run the projects' own type checkers (tsc, go vet, cargo check, mypy; see
    /// `[typecheck]` in sextant.toml) and report their diagnostics with a status line per
    /// checker. cargo check runs build scripts and procedural macros; mypy loads plugins.
    #[arg(long, conflicts_with_all = ["fix", "diff"])]
    pub deep: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckFormat {
    /// `path:line:column: CODE message` lines, then a summary.
    Text,
    /// `{diagnostics, summary}` as JSON.
    Json,
    /// A SARIF 2.1.0 log (for code-scanning services).
    Sarif,
    /// GitHub Actions workflow commands (`::error file=…,line=…::message`), one per line.
    Github,
}

#[derive(Args, Debug)]
pub struct ExplainArgs {
    /// A code's id or name.
    pub code: Option<String>,
}

#[derive(Args, Debug)]
pub struct FileArgs {
    /// The file (relative to the current directory or to --root), or `-` for stdin.
    pub file: PathBuf,
    /// Language to parse as, instead of detecting it from the extension or shebang.
    #[arg(long, short = 'l', value_name = "LANG", visible_alias = "lang")]
    pub language: Option<String>,
}

#[derive(Args, Debug)]
pub struct WorkspaceFileArgs {
    /// A file of the workspace (relative to the current directory or to --root).
    pub file: PathBuf,
}

#[derive(Args, Debug)]
pub struct NavigationArgs {
    /// `FILE:LINE:COLUMN` (the name there), or a NAME, optionally qualified by its module
    /// or class (`posixpath.join`, `Class.method`).
    pub target: String,
    /// Only answers in files under this workspace-relative path prefix (for `def` with a
    /// NAME, the definitions; for `refs`, the references listed).
    #[arg(long, value_name = "PREFIX")]
    pub path: Option<String>,
}

#[derive(Args, Debug)]
pub struct RefsArgs {
    #[command(flatten)]
    pub target: NavigationArgs,
    /// Only exact references (leave out members matched by name alone).
    #[arg(long)]
    pub exact: bool,
    /// Leave out the definitions themselves.
    #[arg(long)]
    pub no_definitions: bool,
    /// For a method: also the references of the methods it overrides and of those that
    /// override it.
    #[arg(long)]
    pub include_family: bool,
    /// At most this many references.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 1000)]
    pub limit: usize,
}

#[derive(Args, Debug)]
pub struct GraphArgs {
    /// Start from this workspace file (relative to the current directory or to --root);
    /// without it, the whole workspace.
    pub file: Option<PathBuf>,
    /// Follow imports at most this many steps from FILE [default: no limit].
    #[arg(long, value_name = "N", requires = "file")]
    pub depth: Option<usize>,
    /// What imports FILE (its dependents), instead of what FILE imports.
    #[arg(long, requires = "file")]
    pub reverse: bool,
    /// Show only import cycles (files that import each other, directly or not): the one
    /// through FILE, or every one. Exits 1 when there is one.
    #[arg(long)]
    pub cycles: bool,
    /// Directories instead of files: a node is a directory (a Python package, a Go package, a
    /// JavaScript or Rust module directory); FILE stands for its directory.
    #[arg(long)]
    pub packages: bool,
    /// Also show the packages outside the workspace (standard library, dependencies) that
    /// listed nodes import, as leaves.
    #[arg(long)]
    pub external: bool,
    /// Output format (--json is the same as --format json).
    #[arg(long, value_enum, default_value_t = GraphFormat::Text)]
    pub format: GraphFormat,
    /// At most this many nodes (the nearest first), and this many cycles.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 1000)]
    pub limit: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum GraphFormat {
    /// An indented tree from FILE, or one line per importing file; then the cycles.
    Text,
    /// The answer as JSON: nodes (path, depth), edges (indices into nodes, import lines),
    /// cycles, totals and truncation flags.
    Json,
    /// Graphviz DOT; edges inside a cycle in red.
    Dot,
    /// A Mermaid `graph LR` block.
    Mermaid,
}

#[derive(Args, Debug)]
pub struct ParseArgs {
    #[command(flatten)]
    pub file: FileArgs,
    /// Show nodes down to this depth; deeper ones are elided as `(kind …)`.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,
    /// Show at most this many tree lines.
    #[arg(long, value_name = "N", default_value_t = 5000)]
    pub max_nodes: usize,
    /// Only list syntax errors, not the tree.
    #[arg(long)]
    pub errors_only: bool,
}

#[derive(Args, Debug)]
pub struct SymbolsArgs {
    /// What to look for; empty lists every symbol (with the filters below).
    pub query: String,
    /// Only symbols of this kind; repeatable.
    #[arg(long, short = 'k', value_name = "KIND")]
    pub kind: Vec<String>,
    /// Only symbols in files of this language.
    #[arg(long = "lang", value_name = "LANG", visible_alias = "language")]
    pub language: Option<String>,
    /// Only symbols in files under this workspace-relative path prefix.
    #[arg(long, value_name = "PREFIX")]
    pub path: Option<String>,
    /// At most this many results.
    #[arg(long, short = 'n', value_name = "N", default_value_t = 50)]
    pub limit: usize,
}

#[derive(Args, Debug)]
pub struct McpArgs {
    /// Serve streamable HTTP at this loopback address (e.g. 127.0.0.1:7311) instead of stdio.
    #[arg(long, value_name = "ADDR")]
    pub http: Option<std::net::SocketAddr>,
    /// With --http: require `Authorization: Bearer <token>`, the token read from this
    /// environment variable. Without a token the HTTP server is read-only.
    #[arg(long, value_name = "VAR", conflicts_with = "token_file")]
    pub token_env: Option<String>,
    /// With --http: require a bearer token read from this file (surrounding whitespace
    /// trimmed). Without a token the HTTP server is read-only.
    #[arg(long, value_name = "PATH")]
    pub token_file: Option<PathBuf>,
    /// Allow serving the filesystem root or the home directory itself.
    #[arg(long)]
    pub allow_broad_root: bool,
    /// Never write: tools that can write (`rename_symbol`, `format_source`) lose their
    /// writing arguments (`apply`), from the schema as from what is accepted. An HTTP server
    /// without a bearer token is read-only anyway.
    #[arg(long)]
    pub read_only: bool,
    /// Let `format_source` run the external formatters the workspace's sextant.toml names
    /// (commands from the workspace: off by default, never with --read-only).
    #[arg(long, conflicts_with = "read_only")]
    pub allow_external_formatter: bool,
    /// Tool calls running at once; more wait.
    #[arg(long, value_name = "N", default_value_t = crate::mcp::Limits::default().max_in_flight)]
    pub max_in_flight: usize,
    /// Time limit of one tool call, in milliseconds.
    #[arg(long, value_name = "MS", default_value_t = crate::mcp::Limits::default().request_timeout_ms)]
    pub request_timeout_ms: u64,
    /// Largest answer, in characters of JSON.
    #[arg(long, value_name = "N", default_value_t = crate::mcp::Limits::default().max_response_chars)]
    pub max_response_chars: usize,
    /// Largest answer of the tools that read code for a model (read_symbol, skeleton,
    /// search, read_file, pack_context), in o200k_base tokens of its text; a call's
    /// max_tokens can only lower it (a larger pack comes as resources in parts that fit).
    #[arg(long, value_name = "N", default_value_t = crate::mcp::Limits::default().max_answer_tokens)]
    pub max_answer_tokens: usize,
    /// Largest `source` accepted by parse_source, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = crate::mcp::Limits::default().max_source_bytes)]
    pub max_source_bytes: usize,
    /// Largest request (a stdio line or an HTTP body), in bytes; must hold a
    /// --max-source-bytes source escaped as JSON (6 times as long, plus 16384).
    #[arg(long, value_name = "BYTES", default_value_t = crate::mcp::Limits::default().max_request_bytes)]
    pub max_request_bytes: usize,
    /// With --http: time for a request head to arrive, in milliseconds.
    #[arg(long, value_name = "MS", requires = "http", default_value_t = crate::mcp::HttpLimits::default().header_timeout_ms)]
    pub http_header_timeout_ms: u64,
    /// With --http: time for a request body to arrive after its head, in milliseconds.
    #[arg(long, value_name = "MS", requires = "http", default_value_t = crate::mcp::HttpLimits::default().body_timeout_ms)]
    pub http_body_timeout_ms: u64,
    /// With --http: time a keep-alive connection may wait for its next request, in
    /// milliseconds.
    #[arg(long, value_name = "MS", requires = "http", default_value_t = crate::mcp::HttpLimits::default().idle_timeout_ms)]
    pub http_idle_timeout_ms: u64,
    /// With --http: connections open at once that have made a request with the token, and
    /// as many again that have not yet (the one waiting longest without a request in
    /// progress makes room for a new one); more wait to be accepted.
    #[arg(long, value_name = "N", requires = "http", default_value_t = crate::mcp::HttpLimits::default().max_connections)]
    pub http_max_connections: usize,
    #[command(flatten)]
    pub background: BackgroundCheckArgs,
}

#[derive(Args, Debug)]
pub struct BackgroundCheckArgs {
    /// Do not check every file in the background after indexing and after each change (by
    /// default the server does, on all cores, so that a whole-workspace check answers at
    /// once; without it the first such check pays for every file).
    #[arg(long)]
    pub no_background_check: bool,
}

#[derive(Args, Debug)]
pub struct LspArgs {
    /// Largest message body (its Content-Length) accepted from the client, in bytes; a
    /// larger claim ends the connection with exit code 1.
    #[arg(long, value_name = "BYTES", default_value_t = crate::lsp::DEFAULT_MAX_MESSAGE_BYTES,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_message_bytes: u64,
    /// Let formatting run the external formatters the workspace's sextant.toml names
    /// (commands from the workspace: off by default).
    #[arg(long)]
    pub allow_external_formatter: bool,
    #[command(flatten)]
    pub background: BackgroundCheckArgs,
}

#[derive(Args, Debug)]
pub struct FilesArgs {
    /// Only files of this language.
    #[arg(long = "lang", value_name = "LANG", visible_alias = "language")]
    pub language: Option<String>,
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// List every skipped file with its reason.
    #[arg(long)]
    pub skipped: bool,
}

impl GlobalArgs {
    pub fn root(&self) -> &Path {
        self.root_arg
            .first()
            .map_or(Path::new("."), PathBuf::as_path)
    }

    /// Where the persistent cache is kept, as the flags say.
    pub fn cache_setting(&self) -> workspace::cache::CacheSetting {
        use workspace::cache::CacheSetting;
        match (&self.cache_dir, self.no_cache) {
            (_, true) => CacheSetting::Off,
            (Some(dir), false) => CacheSetting::In(dir.clone()),
            (None, false) => CacheSetting::UserCacheDir,
        }
    }
}

/// A failure reported as `sextant: error: …` with exit code 2.
pub struct CliError(pub String);

impl<E: std::fmt::Display> From<E> for CliError {
    fn from(e: E) -> Self {
        CliError(e.to_string())
    }
}

/// The command line with its generated texts: the about text names the registry's
/// languages, every language option lists the registry's ids, `--kind` lists the kinds.
pub fn command() -> clap::Command {
    let about = format!("Code intelligence for {} workspaces", ide::language_names());
    let long_about = format!(
        "{about}.\n\nsextant parses every source file under a root (respecting .gitignore and \
        sextant.toml), and answers questions about it: syntax trees and errors, outlines, and \
        ranked symbol search."
    );
    let languages = format!("one of: {}", registry().ids().join(", "));
    let kinds = format!(
        "one of: {}",
        SymbolKind::ALL
            .iter()
            .map(|k| k.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    );
    let mut cmd = Cli::command().about(about).long_about(long_about);
    let names: Vec<String> = cmd
        .get_subcommands()
        .map(|c| c.get_name().to_string())
        .collect();
    for name in names {
        cmd = cmd.mut_subcommand(name, |sub| {
            let mut sub = sub;
            for (arg, list) in [("language", &languages), ("kind", &kinds)] {
                if sub.get_arguments().any(|a| a.get_id() == arg) {
                    sub = sub.mut_arg(arg, |a| {
                        let help = a.get_help().map(|h| h.to_string()).unwrap_or_default();
                        let help = help.trim_end_matches('.');
                        a.help(format!("{help} ({list})."))
                    });
                }
            }
            sub
        });
    }
    cmd
}

pub fn main() -> ExitCode {
    let cli = Cli::from_arg_matches(&command().get_matches()).unwrap_or_else(|e| e.exit());
    let outcome = run(&cli);
    warn_over_memory_limit(cli.global.max_memory);
    match outcome {
        Ok((output, code)) => {
            let mut stdout = std::io::stdout().lock();
            match stdout
                .write_all(output.as_bytes())
                .and_then(|()| stdout.flush())
            {
                Ok(()) => code,
                // `sextant symbols x | head` closes the pipe early: not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code,
                Err(e) => {
                    eprintln!("sextant: error: writing output: {e}");
                    ExitCode::from(2)
                }
            }
        }
        Err(CliError(message)) => {
            eprintln!("sextant: error: {message}");
            ExitCode::from(2)
        }
    }
}

/// A command's work is not stopped part-way by `--max-memory` (its answer needs every file
/// it reads): it says afterwards when its peak went over (docs/memory.md).
fn warn_over_memory_limit(limit: Option<u64>) {
    let peak = ide::memory::resident().map(|r| r.peak_bytes);
    if let (Some(limit), Some(peak)) = (limit, peak)
        && peak > limit
    {
        eprintln!(
            "sextant: warning: peak resident memory {} MiB went over --max-memory {} MiB",
            peak >> 20,
            limit >> 20
        );
    }
}

/// Runs a command, returning its output and exit code.
pub fn run(cli: &Cli) -> Result<(String, ExitCode), CliError> {
    let g = &cli.global;
    if g.root_arg.len() > 1 && !matches!(cli.command, Command::Mcp(_)) {
        return Err(CliError(format!(
            "--root is given {} times; only `sextant mcp` serves several roots",
            g.root_arg.len()
        )));
    }
    match &cli.command {
        Command::Languages => Ok((render::languages(g.json), ExitCode::SUCCESS)),
        Command::Lsp(args) => lsp(g, args),
        Command::Mcp(args) => {
            run_mcp(g, args)?;
            Ok((String::new(), ExitCode::SUCCESS))
        }
        Command::Parse(args) => parse(g, args),
        Command::Outline(args) => {
            let (analysis, file) = single_file(g, args)?;
            let out = analysis.outline(file, usize::MAX).map_err(cancelled)?;
            Ok((render::outline(&out, g.json), ExitCode::SUCCESS))
        }
        Command::Imports(args) => {
            // One file's imports read its summary and the workspace's module names (paths).
            let host = load_workspace_unindexed(g)?;
            let file = workspace_file(g, &host, &args.file)?;
            let out = host.analysis().imports(file).map_err(cancelled)?;
            Ok((render::imports(&out, g.json), ExitCode::SUCCESS))
        }
        Command::Def(args) => definition(g, args),
        Command::Refs(args) => references(g, args),
        Command::Calls(args) => calls::run(g, args),
        Command::Impact(args) => impact::run(g, args),
        Command::Changes(args) => changes::run(g, args),
        Command::Explore(args) => explore::run(g, args),
        Command::Implementations(args) => implementations::run(g, args),
        Command::Rename(args) => rename::run(g, args),
        Command::Apply(args) => apply::run(g, args),
        Command::Edit(args) => edit::run(g, args),
        Command::Search(args) => search::run(g, args),
        Command::Graph(args) => graph(g, args),
        Command::Check(args) => check(g, args),
        Command::Format(args) => format::run(g, args),
        Command::Read(args) => read::read(g, args),
        Command::Tokens(args) => read::tokens(g, args),
        Command::Bootstrap(args) => read::bootstrap(g, args),
        Command::Pack(args) => read::pack(g, args),
        Command::Skeleton(args) => skeleton::run(g, args),
        Command::RepoMap(args) => repo_map::run(g, args),
        Command::Scip(args) => scip::run(g, args),
        Command::Explain(args) => explain(g, args),
        Command::Symbols(args) => symbols(g, args),
        Command::Files(args) => files(g, args),
        Command::Stats(args) => {
            let host = load_workspace(g)?;
            let stats = host.analysis().workspace_stats().map_err(cancelled)?;
            let projects = host.analysis().projects().map_err(cancelled)?;
            let out = render::stats(&host, &stats, &projects, g.json, args.skipped);
            Ok((out, ExitCode::SUCCESS))
        }
    }
}

/// Exit code 1 when `condition`: the command's "no" answer, nothing found or, for `parse`,
/// syntax errors found (documented per command in `docs/cli.md`).
fn one_if(condition: bool) -> ExitCode {
    if condition {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

fn lsp(g: &GlobalArgs, args: &LspArgs) -> Result<(String, ExitCode), CliError> {
    let load = LoadOptions {
        max_file_size: g.max_file_size,
        exclude: g.exclude.clone(),
        progress: None,
        check_in_background: !args.background.no_background_check,
        cache: g.cache_setting(),
        max_memory: g.max_memory,
        ..Default::default()
    };
    let trust = if args.allow_external_formatter {
        workspace::FormatterTrust::Trusted
    } else {
        workspace::FormatterTrust::Untrusted
    };
    let code = crate::lsp::run_stdio(
        g.root_arg.first().cloned(),
        load,
        args.max_message_bytes,
        trust,
    )?;
    Ok((String::new(), code))
}

fn parse(g: &GlobalArgs, args: &ParseArgs) -> Result<(String, ExitCode), CliError> {
    let (analysis, file) = single_file(g, &args.file)?;
    let mut options = ide::ParseOptions {
        max_nodes: args.max_nodes,
        ..Default::default()
    };
    if let Some(depth) = args.depth {
        options.max_depth = depth;
    }
    if args.errors_only {
        options.max_nodes = 0;
    }
    let out = analysis.parse_tree(file, options).map_err(cancelled)?;
    let code = one_if(out.error_count > 0);
    Ok((render::parse(&out, g.json, args.errors_only), code))
}

fn definition(g: &GlobalArgs, args: &NavigationArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let analysis = host.analysis();
    let definitions = match position(g, &host, &args.target)? {
        Some((file, offset)) => analysis.definition(file, offset),
        None => analysis.definition_by_name(&args.target, args.path.as_deref()),
    }
    .map_err(cancelled)?;
    let code = one_if(definitions.is_empty());
    Ok((
        render::definitions(&definitions, &args.target, g.json),
        code,
    ))
}

fn references(g: &GlobalArgs, args: &RefsArgs) -> Result<(String, ExitCode), CliError> {
    let host = load_workspace(g)?;
    let analysis = host.analysis();
    let query = ide::ReferenceQuery {
        include_family: args.include_family,
        exact_only: args.exact,
        exclude_definitions: args.no_definitions,
        path_prefix: args.target.path.clone(),
        limit: args.limit,
    };
    let references = match position(g, &host, &args.target.target)? {
        Some((file, offset)) => analysis.references(file, offset, &query),
        None => analysis.references_by_name(&args.target.target, &query),
    }
    .map_err(cancelled)?;
    let code = one_if(references.references.is_empty());
    Ok((render::references(&references, g.json), code))
}

fn explain(g: &GlobalArgs, args: &ExplainArgs) -> Result<(String, ExitCode), CliError> {
    let Some(code) = &args.code else {
        let out = render::codes(ide::diagnostic_codes(), g.json);
        return Ok((out, ExitCode::SUCCESS));
    };
    // Interrupting the CLI kills the process group, the tool's included.
    if let Some(answer) = typecheck::explain_tool_code(code, &|| false) {
        return match answer {
            Ok(explained) => Ok((render::explain_tool(&explained, g.json), ExitCode::SUCCESS)),
            Err(typecheck::ExplainError::Unknown(why)) => Err(CliError(why)),
            Err(typecheck::ExplainError::Cancelled) => Err(CliError("cancelled".into())),
        };
    }
    let explained = ide::explain(code).ok_or_else(|| {
        CliError(format!(
            "unknown diagnostic code {code:?} (`sextant explain` lists them)"
        ))
    })?;
    Ok((render::explain(explained, g.json), ExitCode::SUCCESS))
}

fn symbols(g: &GlobalArgs, args: &SymbolsArgs) -> Result<(String, ExitCode), CliError> {
    let query = ide::SymbolQuery {
        query: args.query.clone(),
        kinds: args
            .kind
            .iter()
            .map(|k| parse_kind(k))
            .collect::<Result<_, _>>()?,
        language: language_filter(args.language.as_deref())?,
        path_prefix: args.path.clone(),
        limit: args.limit,
    };
    let host = load_workspace(g)?;
    let out = host.analysis().symbol_search(&query).map_err(cancelled)?;
    Ok((
        render::symbols(&out, g.json),
        one_if(out.symbols.is_empty()),
    ))
}

fn files(g: &GlobalArgs, args: &FilesArgs) -> Result<(String, ExitCode), CliError> {
    let language = language_filter(args.language.as_deref())?;
    let host = load_files(g)?;
    let analysis = host.analysis();
    let files: Vec<(String, String)> = analysis
        .files()
        .map(|f| (analysis.file_path(f), analysis.file_language(f)))
        .filter(|(_, lang)| language.is_none_or(|l| lang.lang_id == l))
        .map(|(path, lang)| (path.to_string(), lang.id.clone()))
        .collect();
    Ok((render::files(&files, g.json), ExitCode::SUCCESS))
}

/// `--language NAME` as the registry's id, refused when no language has that name.
fn language_filter(name: Option<&str>) -> Result<Option<ide::LangId>, CliError> {
    Ok(name.map(parse_language).transpose()?.map(|l| l.lang_id))
}

fn graph(g: &GlobalArgs, args: &GraphArgs) -> Result<(String, ExitCode), CliError> {
    let format = match (g.json, args.format) {
        (false, format) => format,
        (true, GraphFormat::Text | GraphFormat::Json) => GraphFormat::Json,
        (true, format) => {
            let name = format!("{format:?}").to_lowercase();
            return Err(CliError(format!("--json and --format {name} conflict")));
        }
    };
    if args.cycles && matches!(format, GraphFormat::Dot | GraphFormat::Mermaid) {
        return Err(CliError(
            "--cycles prints text or JSON; --format dot and mermaid draw the graph, with edges \
             inside a cycle marked"
                .into(),
        ));
    }
    let host = load_workspace(g)?;
    let file = args
        .file
        .as_deref()
        .map(|path| workspace_file(g, &host, path))
        .transpose()?;
    let query = ide::GraphQuery {
        file,
        direction: if args.reverse {
            ide::Direction::Dependents
        } else {
            ide::Direction::Dependencies
        },
        depth: args.depth.unwrap_or(usize::MAX),
        granularity: if args.packages {
            ide::Granularity::Package
        } else {
            ide::Granularity::File
        },
        external: args.external,
        limit: args.limit,
    };
    let view = host.analysis().import_graph(&query).map_err(cancelled)?;
    let code = if args.cycles && !view.cycles.is_empty() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    let out = match format {
        GraphFormat::Json => render::graph_json(&view),
        GraphFormat::Dot => render::graph_dot(&view),
        GraphFormat::Mermaid => render::graph_mermaid(&view),
        GraphFormat::Text if args.cycles => render::graph_cycles(&view, file.is_some()),
        GraphFormat::Text => render::graph_text(&view, &query),
    };
    Ok((out, code))
}

fn check(g: &GlobalArgs, args: &CheckArgs) -> Result<(String, ExitCode), CliError> {
    if g.json && matches!(args.format, CheckFormat::Sarif | CheckFormat::Github) {
        let name = format!("{:?}", args.format).to_lowercase();
        return Err(CliError(format!("--json and --format {name} conflict")));
    }
    let codes = ide::CodeSelection::new(&args.select, &args.ignore).map_err(CliError)?;
    // A check of named files needs only theirs (and what they import): no point checking all.
    let host = load_workspace_with(g, args.paths.is_empty())?;
    let root = std::fs::canonicalize(g.root())?;
    let mut paths = Vec::new();
    for path in &args.paths {
        paths.push(workspace_path(g, &root, path)?);
    }
    if args.fix || args.diff {
        if !matches!(args.format, CheckFormat::Text | CheckFormat::Json) {
            return Err(CliError(
                "--fix and --diff print text or JSON (--format text|json)".into(),
            ));
        }
        let query = ide::FixQuery {
            paths,
            codes,
            unsafe_fixes: args.unsafe_fixes,
            check: ide::CheckPolicy::Refuse,
            limit: usize::MAX,
        };
        let json = g.json || args.format == CheckFormat::Json;
        return fix::run(&host, &query, args.diff, json);
    }
    if args.unsafe_fixes {
        return Err(CliError(
            "--unsafe-fixes applies with --fix or --diff".into(),
        ));
    }
    let query = ide::CheckQuery {
        paths,
        codes,
        ..Default::default()
    };
    let analysis = host.analysis();
    let mut result = analysis.check(&query).map_err(cancelled)?;
    if let Some(path) = result.unmatched_paths.first() {
        return Err(CliError(format!(
            "{path}: no file the workspace indexes is there (see `sextant files`)"
        )));
    }
    let mut checkers = None;
    if args.deep || host.config.typecheck.deep {
        let options = typecheck::DeepOptions {
            root: &root,
            config: &host.config.typecheck,
            state_dir: typecheck::state_dir(&g.cache_setting(), &root),
            read_only: false,
        };
        let plan = typecheck::plan(&analysis, &query.paths, &options).map_err(cancelled)?;
        // The checkers need no snapshot; a command's only one goes before they run.
        drop(analysis);
        let outcome = plan.run(&|| false);
        typecheck::merge(&mut result, &outcome, &query, usize::MAX);
        checkers = Some(outcome.checkers);
    }
    // A checker that did not answer leaves the code unchecked: not a passing check.
    let unanswered = checkers.iter().flatten().any(|c| {
        matches!(
            c.status,
            typecheck::CheckerStatus::Failed | typecheck::CheckerStatus::TimedOut
        )
    });
    let code = if result.summary.total > 0 || unanswered {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    };
    let checkers = checkers.as_deref();
    let out = match args.format {
        CheckFormat::Sarif => {
            eprint!("{}", render::checkers(checkers.unwrap_or_default()));
            sarif::check(&result)
        }
        CheckFormat::Github => {
            eprint!("{}", render::checkers(checkers.unwrap_or_default()));
            github::check(&result)
        }
        CheckFormat::Json => render::check_with(&result, checkers, true),
        CheckFormat::Text => render::check_with(&result, checkers, g.json),
    };
    Ok((out, code))
}

fn run_mcp(g: &GlobalArgs, args: &McpArgs) -> Result<(), CliError> {
    let roots = served_roots(g, args.allow_broad_root)?;
    let limits = crate::mcp::Limits {
        max_source_bytes: args.max_source_bytes,
        max_request_bytes: args.max_request_bytes,
        max_in_flight: args.max_in_flight,
        request_timeout_ms: args.request_timeout_ms,
        max_response_chars: args.max_response_chars,
        max_answer_tokens: args.max_answer_tokens,
        read_only: args.read_only,
        allow_external_formatter: args.allow_external_formatter,
    };
    limits.check()?;
    let token = match (&args.token_env, &args.token_file) {
        (Some(var), _) => Some(
            std::env::var(var).map_err(|_| CliError(format!("--token-env: ${var} is not set")))?,
        ),
        (None, Some(path)) => Some(
            std::fs::read_to_string(path)
                .map_err(|e| CliError(format!("--token-file {}: {e}", path.display())))?
                .trim()
                .to_string(),
        ),
        (None, None) => None,
    };
    if token.as_deref().is_some_and(str::is_empty) {
        return Err(CliError("the bearer token is empty".into()));
    }
    if token.is_some() && args.http.is_none() {
        return Err(CliError(
            "--token-env/--token-file only apply with --http".into(),
        ));
    }
    if let Some(addr) = args.http
        && !addr.ip().is_loopback()
    {
        return Err(CliError(format!(
            "refusing to listen on {addr}: loopback addresses only (127.0.0.1, ::1)"
        )));
    }
    let load = LoadOptions {
        max_file_size: g.max_file_size,
        exclude: g.exclude.clone(),
        progress: None,
        check_in_background: !args.background.no_background_check,
        read_only: args.read_only,
        cache: g.cache_setting(),
        max_memory: g.max_memory,
        ..Default::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let mut lives = Vec::with_capacity(roots.len());
        for root in &roots {
            lives.push(
                crate::mcp::start_workspace(root, load.clone())
                    .map_err(|e| format!("{}: {e}", root.display()))?,
            );
        }
        let live = std::sync::Arc::new(crate::mcp::Roots::new(lives));
        match args.http {
            Some(addr) => {
                let http_limits = crate::mcp::HttpLimits {
                    header_timeout_ms: args.http_header_timeout_ms,
                    body_timeout_ms: args.http_body_timeout_ms,
                    idle_timeout_ms: args.http_idle_timeout_ms,
                    max_connections: args.http_max_connections,
                };
                crate::mcp::serve_http(live, limits, http_limits, addr, token).await
            }
            None => crate::mcp::serve_stdio(live, limits).await,
        }
    })?;
    // Blocking reads of stdin may linger in the runtime; the work is done.
    runtime.shutdown_timeout(std::time::Duration::from_millis(100));
    Ok(())
}

/// The roots `sextant mcp` serves, canonical, each once.
fn served_roots(g: &GlobalArgs, allow_broad_root: bool) -> Result<Vec<PathBuf>, CliError> {
    let given = match g.root_arg.is_empty() {
        true => vec![PathBuf::from(".")],
        false => g.root_arg.clone(),
    };
    let mut roots: Vec<PathBuf> = Vec::with_capacity(given.len());
    for root in &given {
        let root = crate::mcp::check_root(root, allow_broad_root)?;
        if roots.contains(&root) {
            return Err(CliError(format!(
                "--root {} is given twice",
                root.display()
            )));
        }
        roots.push(root);
    }
    Ok(roots)
}

fn cancelled(_: ide::Cancelled) -> CliError {
    CliError("the analysis was cancelled".into())
}

fn parse_kind(name: &str) -> Result<SymbolKind, CliError> {
    SymbolKind::from_name(name).ok_or_else(|| {
        let known: Vec<&str> = SymbolKind::ALL.iter().map(|k| k.as_str()).collect();
        CliError(format!(
            "unknown symbol kind {name:?} (known: {})",
            known.join(", ")
        ))
    })
}

fn parse_language(name: &str) -> Result<&'static Language, CliError> {
    registry().by_id(name).ok_or_else(|| {
        CliError(format!(
            "unknown language {name:?} (known: {})",
            registry().ids().join(", ")
        ))
    })
}

fn load_workspace(g: &GlobalArgs) -> Result<Host, CliError> {
    load_workspace_with(g, false)
}

/// [`load_workspace`] without indexing, for commands that need only the file list and the
/// texts.
fn load_files(g: &GlobalArgs) -> Result<Host, CliError> {
    let options = LoadOptions {
        max_file_size: g.max_file_size,
        exclude: g.exclude.clone(),
        progress: progress::terminal_progress(),
        lazy: true,
        ..Default::default()
    };
    Ok(Host::load(g.root(), &options)?)
}

/// [`load_workspace`] without indexing while loading, with the persistent cache: for a
/// command that reads every file's facts itself right after (`scip` reads each file's
/// symbols, names and docstrings from one parse; indexing first would parse it twice).
fn load_workspace_unindexed(g: &GlobalArgs) -> Result<Host, CliError> {
    let options = LoadOptions {
        max_file_size: g.max_file_size,
        exclude: g.exclude.clone(),
        progress: progress::terminal_progress(),
        lazy: true,
        cache: g.cache_setting(),
        max_memory: g.max_memory,
        ..Default::default()
    };
    Ok(Host::load(g.root(), &options)?)
}

/// [`load_workspace`]; with `check_on_load`, every file is checked as it is indexed.
fn load_workspace_with(g: &GlobalArgs, check_on_load: bool) -> Result<Host, CliError> {
    let options = LoadOptions {
        max_file_size: g.max_file_size,
        exclude: g.exclude.clone(),
        progress: progress::terminal_progress(),
        check_on_load,
        cache: g.cache_setting(),
        max_memory: g.max_memory,
        ..Default::default()
    };
    Ok(Host::load(g.root(), &options)?)
}

/// The file a user names: relative to the current directory, else to --root.
fn locate(g: &GlobalArgs, file: &Path) -> PathBuf {
    if file.is_relative() && !file.exists() && g.root().join(file).exists() {
        g.root().join(file)
    } else {
        file.to_path_buf()
    }
}

/// A path the user names for `check` or `format` (relative to the current directory or to
/// --root) as the workspace names it; an error when it does not exist (`NOT_FOUND`) or lies
/// outside `root` (canonical).
fn workspace_path(g: &GlobalArgs, root: &Path, path: &Path) -> Result<String, CliError> {
    let located = locate(g, path);
    let Ok(canonical) = located.canonicalize() else {
        return Err(CliError(format!(
            "NOT_FOUND: {}: does not exist",
            path.display()
        )));
    };
    let rel = workspace::relative_path(root, &canonical)
        .ok_or_else(|| CliError(format!("{}: not inside the workspace", path.display())))?;
    Ok(rel)
}

/// `path` as the workspace names it (`src/lib.rs`), when it is inside the root.
fn workspace_relative(g: &GlobalArgs, path: &Path) -> Option<String> {
    let root = std::fs::canonicalize(g.root()).ok()?;
    workspace::relative_path(&root, &path.canonicalize().ok()?)
}

/// The indexed file `path` names (relative to the current directory or to --root).
fn workspace_file(g: &GlobalArgs, host: &Host, path: &Path) -> Result<FileId, CliError> {
    workspace_relative(g, &locate(g, path))
        .and_then(|rel| host.file(&rel))
        .ok_or_else(|| {
            CliError(format!(
                "{}: not a file the workspace indexes (see `sextant files`)",
                path.display()
            ))
        })
}

/// `FILE:LINE:COLUMN` as a file of the workspace and a byte offset; `None` when the
/// target is a name instead; an error when it is neither ([`ide::Target::parse`]).
fn position(
    g: &GlobalArgs,
    host: &Host,
    target: &str,
) -> Result<Option<(FileId, usize)>, CliError> {
    let (path, line, column) = match ide::Target::parse(target) {
        Ok(ide::Target::Name(_)) => return Ok(None),
        Ok(ide::Target::Position { path, line, column }) => (path, line, column),
        Err(error) => return Err(CliError(format!("{}: {error}", error.code()))),
    };
    let file = workspace_file(g, host, Path::new(&path))?;
    let index = host.analysis().line_index(file).map_err(cancelled)?;
    if line as usize > index.line_count() {
        return Err(CliError(format!(
            "{target}: past the end of the file (its last line is {})",
            index.line_count()
        )));
    }
    Ok(Some((
        file,
        index.offset(line - 1, column - 1, ide::ColumnUnit::Chars),
    )))
}

fn single_file(g: &GlobalArgs, args: &FileArgs) -> Result<(Analysis, FileId), CliError> {
    let language = args.language.as_deref().map(parse_language).transpose()?;
    let max_file_size = g.max_file_size.unwrap_or(workspace::DEFAULT_MAX_FILE_SIZE);
    if args.file == Path::new("-") {
        let language =
            language.ok_or_else(|| CliError("reading stdin (`-`) needs --language".into()))?;
        let mut bytes = Vec::new();
        // One byte past the limit is enough to know it is over.
        std::io::Read::read_to_end(
            &mut std::io::Read::take(std::io::stdin().lock(), max_file_size + 1),
            &mut bytes,
        )?;
        if bytes.len() as u64 > max_file_size {
            return Err(CliError(format!(
                "stdin: over the {max_file_size} byte limit"
            )));
        }
        return Ok(workspace::standalone_source(
            "<stdin>".into(),
            language,
            bytes,
        )?);
    }
    let path = locate(g, &args.file);
    // Inside the root, answers name the file as the workspace does (`src/lib.rs`).
    let name = workspace_relative(g, &path).unwrap_or_else(|| path.display().to_string());
    // The CLI reads what its user names, anywhere; the reader still refuses FIFOs and
    // devices and bounds the size.
    let reader = workspace::ConfinedReader::new(PathBuf::from("/"));
    Ok(workspace::standalone_file(
        &reader,
        &path,
        &name,
        language,
        max_file_size,
    )?)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words of a help text, so that wrapped lines compare as one.
    fn words(help: impl std::fmt::Display) -> String {
        help.to_string()
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The comma-separated list that follows `one of: ` in a help text.
    fn listed_after_one_of(help: &str) -> Vec<String> {
        let start = help.find("one of: ").expect("the help lists choices") + "one of: ".len();
        let end = start + help[start..].find(')').expect("the list is closed");
        help[start..end].split(", ").map(String::from).collect()
    }

    #[test]
    fn help_names_every_registered_language_and_every_kind() {
        let ids: Vec<String> = registry().ids().iter().map(|s| s.to_string()).collect();
        let mut cmd = command();
        let about = words(cmd.render_long_help());
        for language in registry().all() {
            assert!(
                about.contains(&format!("{} ", language.name))
                    || about.contains(&format!("{},", language.name)),
                "{} missing from: {about}",
                language.name
            );
        }
        for (sub, arg) in [
            ("parse", "--language"),
            ("outline", "--language"),
            ("symbols", "--lang"),
            ("files", "--lang"),
        ] {
            let help = words(cmd.find_subcommand_mut(sub).unwrap().render_long_help());
            let option = &help[help.find(&format!("{arg} <LANG>")).unwrap()..];
            assert_eq!(listed_after_one_of(option), ids, "{sub} {arg}");
        }
        let help = words(
            cmd.find_subcommand_mut("symbols")
                .unwrap()
                .render_long_help(),
        );
        let option = &help[help.find("--kind <KIND>").unwrap()..];
        let kinds: Vec<String> = SymbolKind::ALL.iter().map(|k| k.to_string()).collect();
        assert_eq!(listed_after_one_of(option), kinds);
    }
}
