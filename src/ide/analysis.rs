//! `AnalysisHost` (the writer's handle on the database) and `Analysis` (a reader's snapshot).
//!
//! Invariant: front ends reach the database only through these two types. The host is
//! changed only by [`AnalysisHost::apply_change`]; an [`Analysis`] is an immutable view of
//! one revision whose every operation returns plain data or `Err(Cancelled)` when a newer
//! revision (or the request's own cancellation) interrupts it. Cancellation is caught in
//! [`Analysis::with`], nowhere else.

use std::{collections::HashMap, panic::AssertUnwindSafe, path::PathBuf, sync::Arc};

use rayon::prelude::*;

use super::{
    Fold, Outline, ParseOptions, ParseOutput, ProjectInfo, Span, SymbolQuery, SymbolSearch,
    WorkspaceStats, outline, parse_tree, stats, structure, symbol_search,
};
pub use crate::engine::change::{Change, ChangeSummary, FileContent};
use crate::{
    db::{Db, ManifestKind, RootDatabase, SourceFile, Workspace},
    engine::change::Inputs,
    lang::{LangId, Language},
    semantic::{
        index::{shard_count, shard_files, symbol_index, symbol_shard},
        names::identifiers::{
            file_identifiers, identifier_index, identifier_shard, words_read_in_passing,
        },
        symbols::symbol_summaries,
    },
    syntax::{LineIndex, SyntaxError},
};

/// Why a query stopped without an answer: its request was cancelled, or a write is waiting
/// for every reader. Front ends name it (and [`CancellationToken`]) through `ide`, never
/// through salsa: the database engine stays an implementation detail of the layers below.
pub type Cancelled = salsa::Cancelled;
/// Cancels the queries of one database handle (see [`Analysis::cancellation_token`]).
pub type CancellationToken = salsa::CancellationToken;
pub type Cancellable<T> = Result<T, Cancelled>;

/// Compiles, on all cores at once, the queries that indexing `files` (and, with
/// `diagnostics`, checking them) will run. Each compile of a language's query takes tens of
/// milliseconds and the first file needing it would otherwise wait for it while the other
/// cores wait on the same compile.
fn compile_queries(db: &dyn Db, files: &[SourceFile], diagnostics: bool) {
    let mut langs: Vec<LangId> = files.iter().map(|f| f.lang(db)).collect();
    langs.sort_unstable();
    langs.dedup();
    let mut kinds = vec![crate::lang::QueryKind::PerFile];
    if diagnostics {
        kinds.push(crate::lang::QueryKind::Locals);
    }
    let wanted: Vec<(LangId, crate::lang::QueryKind)> = langs
        .iter()
        .flat_map(|&lang| kinds.iter().map(move |&kind| (lang, kind)))
        .collect();
    wanted.par_iter().for_each(|&(lang, kind)| {
        lang.info().query(kind);
    });
}

/// A file this large or larger is checked before the others (see `prime_caches_by_shard`).
pub const LARGE_FILE_BYTES: usize = 256 << 10;

/// Whether `file` is checked before the others: [`LARGE_FILE_BYTES`] or more.
fn is_large(db: &dyn Db, file: SourceFile) -> bool {
    file.text_len(db) >= LARGE_FILE_BYTES
}

/// The workspace's [large](is_large) files, the largest first.
fn largest_first(db: &dyn Db, files: &[SourceFile]) -> Vec<SourceFile> {
    let mut large: Vec<(usize, SourceFile)> = files
        .iter()
        .filter(|&&file| is_large(db, file))
        .map(|&file| (file.text_len(db), file))
        .collect();
    large.sort_by_key(|&(len, _)| std::cmp::Reverse(len));
    large.into_iter().map(|(_, file)| file).collect()
}

/// What [`Analysis::prime_caches_with`] computes beyond every file's symbols and the
/// workspace symbol index. Loading primes neither: a command that needs more computes it
/// on demand, and a server's background check primes both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Priming {
    /// Every file's identifiers and the identifier index, which reference searches read.
    pub identifiers: bool,
    /// Every file's diagnostics, each computed right after the file's symbols while its
    /// tree is cached: a cold `check` then parses each file once (about twice otherwise:
    /// once to index, once to check).
    pub diagnostics: bool,
}

/// A file of the analysed workspace (or of a standalone analysis). Valid for the host that
/// made it and every snapshot of that host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FileId(pub(crate) SourceFile);

/// Owns the database; held by the single writer.
pub struct AnalysisHost {
    inputs: Inputs,
    /// `sextant.toml`'s `[check]` table, shared with snapshots.
    check_settings: Arc<super::CheckSettings>,
    /// Texts are kept compressed once indexed when the workspace's texts total more than
    /// this (see [`crate::db::StoredText`]).
    compress_texts_over: usize,
}

impl AnalysisHost {
    pub fn new(root: PathBuf) -> AnalysisHost {
        AnalysisHost::with_database(RootDatabase::default(), root)
    }

    /// A host over a caller-made database (tests pass one that logs salsa events).
    pub fn with_database(db: RootDatabase, root: PathBuf) -> AnalysisHost {
        crate::semantic::names::budget_name_tables(&db, None);
        AnalysisHost {
            inputs: Inputs::new(db, root),
            check_settings: Arc::default(),
            compress_texts_over: crate::db::COMPRESS_TEXTS_OVER,
        }
    }

    /// Drops the memoized values of bounded queries beyond their bounds, least recently used
    /// first (their dependencies stay, so a later read re-verifies instead of re-running
    /// what depends on them). salsa applies the bounds at every change; this applies them
    /// without one. A write: it waits for every snapshot to be dropped.
    pub fn evict_unused(&mut self) {
        crate::semantic::names::fit_name_tables(&mut self.inputs.db);
        salsa::Database::trigger_lru_eviction(&mut self.inputs.db);
        self.inputs.compact_texts(self.compress_texts_over);
    }

    /// Keeps `records` as the persistent cache every later snapshot reads (and records
    /// into). Not a change: a record is what its query computes.
    pub fn set_records(&mut self, records: Option<Arc<super::RecordStore>>) {
        self.inputs.db.set_records(records);
    }

    /// Applies a batch of changes. Setting a file to the content it has is not a change, so
    /// nothing that depends on it is invalidated.
    pub fn apply_change(&mut self, change: Change) -> ChangeSummary {
        let summary = self.inputs.apply_change(change);
        if summary.added + summary.changed + summary.removed > 0
            && let Some(records) = self.inputs.db.records()
        {
            records.leave_start();
        }
        summary
    }

    /// Every project file held: path, kind and text, in no particular order.
    pub fn manifests(&self) -> impl Iterator<Item = (&str, ManifestKind, &Arc<str>)> {
        self.inputs.manifests.iter().map(|(path, file)| {
            (
                path.as_str(),
                file.kind(&self.inputs.db),
                file.text(&self.inputs.db),
            )
        })
    }

    pub fn has_manifest(&self, path: &str) -> bool {
        self.inputs.manifests.contains_key(path)
    }

    /// Under a memory limit (`--max-memory`) every text worth it is kept compressed once
    /// indexed, whatever the workspace's size, and fewer name tables are kept between
    /// questions (docs/memory.md).
    pub fn set_memory_limit(&mut self, limit: Option<u64>) {
        self.compress_texts_over = match limit {
            Some(_) => 0,
            None => crate::db::COMPRESS_TEXTS_OVER,
        };
        crate::semantic::names::budget_name_tables(&self.inputs.db, limit);
    }

    /// Sets which codes `check` and `diagnostics` report, and at what severity (not an
    /// input of the database: filtering is done on each answer, so no query re-runs).
    pub fn set_check_settings(&mut self, settings: super::CheckSettings) {
        if *self.check_settings != settings {
            self.check_settings = Arc::new(settings);
        }
    }

    /// A snapshot of the current revision for readers. The host's next change waits until
    /// every snapshot is dropped, after cancelling the queries running on them.
    pub fn analysis(&self) -> Analysis {
        Analysis {
            db: self.inputs.db.clone(),
            workspace: self.inputs.workspace,
            files: self.inputs.files.clone(),
            check_settings: self.check_settings.clone(),
            compress_texts_over: self.compress_texts_over,
        }
    }

    pub fn file(&self, path: &str) -> Option<FileId> {
        self.inputs.files.get(path).copied().map(FileId)
    }

    pub fn contains(&self, path: &str) -> bool {
        self.inputs.files.contains_key(path)
    }

    pub fn file_count(&self) -> usize {
        self.inputs.files.len()
    }

    /// Workspace-relative paths of every file, in no particular order.
    pub fn paths(&self) -> impl Iterator<Item = &str> {
        self.inputs.files.keys().map(String::as_str)
    }

    pub fn file_language(&self, file: FileId) -> LangId {
        file.0.lang(&self.inputs.db)
    }

    /// The database itself, for tests and benchmarks that count or drive queries directly.
    #[doc(hidden)]
    pub fn raw_database(&self) -> &RootDatabase {
        &self.inputs.db
    }

    #[doc(hidden)]
    pub fn raw_workspace(&self) -> Workspace {
        self.inputs.workspace
    }

    #[doc(hidden)]
    pub fn raw_file(file: FileId) -> SourceFile {
        file.0
    }
}

/// A reader's view of one revision. Cheap to clone; every operation can be cancelled.
#[derive(Clone)]
pub struct Analysis {
    db: RootDatabase,
    workspace: Workspace,
    files: Arc<HashMap<String, SourceFile>>,
    check_settings: Arc<super::CheckSettings>,
    compress_texts_over: usize,
}

/// How many files' SCIP documents are built at once (and held until written).
const SCIP_FILES_AT_ONCE: usize = 256;

impl Analysis {
    /// Runs a computation on the database, turning salsa's cancellation unwind into a value.
    /// The one place cancellation is caught.
    fn with<T>(&self, f: impl FnOnce(&dyn Db) -> T) -> Cancellable<T> {
        salsa::Cancelled::catch(AssertUnwindSafe(|| f(&self.db)))
    }

    /// Cancelling this token stops every operation running on this snapshot.
    /// The database's recent trees (see [`crate::syntax::TreeCache`]): what a memory watch
    /// drops first.
    pub fn tree_cache(&self) -> Arc<crate::syntax::TreeCache> {
        self.db.shared_tree_cache()
    }

    /// What the database's live name tables hold (see [`crate::db::Tally`]).
    pub fn name_tables(&self) -> Arc<crate::db::Tally> {
        Db::name_tables(&self.db).clone()
    }

    pub fn cancellation_token(&self) -> salsa::CancellationToken {
        salsa::Database::cancellation_token(&self.db)
    }

    /// Whether work holding this snapshot should stop: its request was cancelled, or a write
    /// waits for every snapshot to be dropped. For work that is not a query (an external
    /// program) and must poll.
    pub fn is_cancelled(&self) -> bool {
        self.cancellation_token().is_cancelled()
            || self.with(|db| db.unwind_if_revision_cancelled()).is_err()
    }

    pub fn file(&self, path: &str) -> Option<FileId> {
        self.files.get(path).copied().map(FileId)
    }

    /// Every file, sorted by path.
    pub fn files(&self) -> impl Iterator<Item = FileId> + '_ {
        self.workspace.files(&self.db).iter().copied().map(FileId)
    }

    pub fn file_count(&self) -> usize {
        self.files.len()
    }

    pub fn file_path(&self, file: FileId) -> &str {
        file.0.path(&self.db)
    }

    pub fn file_text(&self, file: FileId) -> Arc<str> {
        file.0.text(&self.db).clone()
    }

    pub fn file_language(&self, file: FileId) -> &'static Language {
        file.0.lang(&self.db).info()
    }

    /// The file was not valid UTF-8: its text is a lossy decoding, never to be written back.
    pub fn file_is_lossy(&self, file: FileId) -> bool {
        file.0.lossy_utf8(&self.db)
    }

    /// The file's line table, for converting positions (the LSP's negotiated encoding).
    pub fn line_index(&self, file: FileId) -> Cancellable<Arc<LineIndex>> {
        self.with(|db| crate::semantic::line_index(db, file.0))
    }

    pub fn parse_tree(&self, file: FileId, options: ParseOptions) -> Cancellable<ParseOutput> {
        self.with(|db| parse_tree::parse_tree(db, file.0, options))
    }

    pub fn syntax_errors(&self, file: FileId) -> Cancellable<Arc<[SyntaxError]>> {
        self.with(|db| crate::semantic::syntax_errors(db, file.0))
    }

    pub fn outline(&self, file: FileId, limit: usize) -> Cancellable<Outline> {
        self.with(|db| outline::outline_page(db, file.0, 0, limit))
    }

    /// Up to `limit` symbols from the `offset`-th (in outline order).
    pub fn outline_page(&self, file: FileId, offset: usize, limit: usize) -> Cancellable<Outline> {
        self.with(|db| outline::outline_page(db, file.0, offset, limit))
    }

    pub fn symbol_search(&self, query: &SymbolQuery) -> Cancellable<SymbolSearch> {
        self.with(|db| symbol_search::symbol_search(db, self.workspace, query))
    }

    /// [`Analysis::symbol_search`] over the files of the symbol index's first `shards`
    /// shards: while the first index runs, what it has indexed so far (see
    /// [`Analysis::prime_caches_by_shard`]).
    pub fn symbol_search_in_shards(
        &self,
        query: &SymbolQuery,
        shards: u32,
    ) -> Cancellable<SymbolSearch> {
        self.with(|db| symbol_search::symbol_search_in_shards(db, self.workspace, query, shards))
    }

    /// How many files the symbol index's first `shards` shards cover.
    pub fn files_in_shards(&self, shards: u32) -> usize {
        (shards as usize * crate::semantic::index::SHARD_FILES).min(self.file_count())
    }

    pub fn workspace_stats(&self) -> Cancellable<WorkspaceStats> {
        self.with(|db| stats::workspace_stats(db, self.workspace))
    }

    /// The projects the workspace's manifests describe, sorted by root, then kind.
    pub fn projects(&self) -> Cancellable<Vec<ProjectInfo>> {
        self.with(|db| crate::semantic::projects::projects(db, self.workspace).to_vec())
    }

    /// The file's imports in document order, each with where it leads.
    pub fn imports(&self, file: FileId) -> Cancellable<Vec<super::ImportInfo>> {
        self.with(|db| super::imports::imports(db, self.workspace, file.0))
    }

    /// Where the name at `offset` is defined (imports followed).
    pub fn definition(&self, file: FileId, offset: usize) -> Cancellable<Vec<super::Definition>> {
        self.with(|db| super::navigation::definition(db, self.workspace, file.0, offset))
    }

    /// The entries of one or more tasks packed under one budget.
    pub fn pack(
        &self,
        request: &super::PackRequest,
    ) -> Cancellable<Result<super::PackAnswer, super::PackError>> {
        self.with(|db| super::pack::pack(db, self.workspace, request))
    }

    /// What a new session needs to know of the workspace, from the index.
    pub fn bootstrap_facts(&self) -> Cancellable<super::BootstrapFacts> {
        self.with(|db| super::bootstrap::bootstrap_facts(db, self.workspace))
    }

    /// The exact tokens of a file's text (memoized per file and encoding).
    pub fn file_tokens(&self, file: FileId, encoding: super::Encoding) -> Cancellable<u32> {
        self.with(|db| crate::engine::tokens::file_tokens(db, file.0, encoding))
    }

    /// Definitions, lines, files or a file's definitions, under a token budget.
    pub fn read(
        &self,
        request: &super::ReadRequest,
    ) -> Cancellable<Result<super::ReadAnswer, super::ReadError>> {
        self.with(|db| super::read::read(db, self.workspace, request))
    }

    /// `target`, the target `index` of a read across several workspaces
    /// (`ide::read_across`), as this one reads it under `options` (whose `targets` are not
    /// looked at).
    pub fn read_part(
        &self,
        options: &super::ReadRequest,
        index: usize,
        target: &super::ReadTarget,
    ) -> Cancellable<super::TargetPart> {
        self.with(|db| super::read::part(db, self.workspace, options, index, target))
    }

    /// The definitions called `name` (`join`, `posixpath.join`, `Class.method`).
    pub fn definition_by_name(
        &self,
        name: &str,
        path_prefix: Option<&str>,
    ) -> Cancellable<Vec<super::Definition>> {
        self.definition_by_name_in(name, path_prefix, super::NameScope::Workspace)
    }

    /// [`Analysis::definition_by_name`] in the files `scope` says (while the first index
    /// runs, those of the symbol index's shards built so far).
    pub fn definition_by_name_in(
        &self,
        name: &str,
        path_prefix: Option<&str>,
        scope: super::NameScope,
    ) -> Cancellable<Vec<super::Definition>> {
        self.with(|db| {
            super::navigation::definition_by_name(db, self.workspace, name, path_prefix, scope)
        })
    }

    /// The definitions `name` names, as the candidates a read, an edit or an impact of the
    /// name chooses among (one: that definition; several: ambiguous).
    pub fn definitions_named(
        &self,
        name: &str,
        path_prefix: Option<&str>,
    ) -> Cancellable<Vec<super::Candidate>> {
        self.with(|db| {
            let sites =
                super::read::pieces::definition_sites(db, self.workspace, name, path_prefix);
            super::read::pieces::ambiguity(db, name, &sites).candidates
        })
    }

    /// The function or method named (or called) at `offset`, for a call hierarchy.
    pub fn call_hierarchy_item(
        &self,
        file: FileId,
        offset: usize,
    ) -> Cancellable<Option<super::CallItem>> {
        self.with(|db| super::call_graph::prepare(db, self.workspace, file.0, offset))
    }

    /// Who calls the function or method named at `offset`, by caller.
    pub fn incoming_calls(&self, file: FileId, offset: usize) -> Cancellable<Vec<super::Call>> {
        self.with(|db| super::call_graph::incoming(db, self.workspace, file.0, offset))
    }

    /// What the function or method named at `offset` calls, by callee.
    pub fn outgoing_calls(&self, file: FileId, offset: usize) -> Cancellable<Vec<super::Call>> {
        self.with(|db| super::call_graph::outgoing(db, self.workspace, file.0, offset))
    }

    /// The call graph `query` asks for: callers and callees to a depth, with their sites.
    pub fn call_graph(
        &self,
        query: &super::CallGraphQuery,
    ) -> Cancellable<Result<super::CallGraph, super::CallGraphError>> {
        self.with(|db| super::call_graph::call_graph(db, self.workspace, query))
    }

    /// What depends on the seeds `query` names, transitively, nearest first, tests marked.
    pub fn impact(
        &self,
        query: &super::ImpactQuery,
    ) -> Cancellable<Result<super::Impact, super::ImpactError>> {
        self.with(|db| super::impact::impact(db, self.workspace, query))
    }

    /// The changed definitions of changed files, with their impact and affected tests.
    pub fn changes(
        &self,
        query: &super::ChangesQuery,
    ) -> Cancellable<Result<super::Changes, super::ChangesError>> {
        self.with(|db| super::changes::changes(db, self.workspace, query))
    }

    /// What a question's terms name: the definitions' source, the call paths between
    /// them and their dependents, under one budget.
    pub fn explore(&self, query: &super::ExploreQuery) -> Cancellable<super::ExploreAnswer> {
        self.with(|db| super::explore::explore(db, self.workspace, query))
    }

    /// [`Analysis::explore`] while the first index runs, from the files of the symbol
    /// index's first `shards` shards: `None` unless every term is a file or a name they
    /// define; call paths and dependents not searched (unless the terms name files alone:
    /// the whole answer then).
    pub fn explore_in_shards(
        &self,
        query: &super::ExploreQuery,
        shards: u32,
    ) -> Cancellable<Option<super::ExploreAnswer>> {
        self.with(|db| super::explore::explore_in_shards(db, self.workspace, query, shards))
    }

    /// The subtypes and overriding methods (or the supertypes and overridden methods) of
    /// the type or method named at `offset`, at every level.
    pub fn implementations(
        &self,
        file: FileId,
        offset: usize,
        direction: super::HierarchyDirection,
        limit: usize,
    ) -> Cancellable<Result<super::Implementations, super::ImplementationsError>> {
        self.with(|db| {
            super::implementations::implementations_at(
                db,
                self.workspace,
                file.0,
                offset,
                direction,
                limit,
            )
        })
    }

    /// [`Analysis::implementations`] of the type or method called `name`.
    pub fn implementations_by_name(
        &self,
        name: &str,
        direction: super::HierarchyDirection,
        limit: usize,
    ) -> Cancellable<Result<super::Implementations, super::ImplementationsError>> {
        self.with(|db| {
            super::implementations::implementations_by_name(
                db,
                self.workspace,
                name,
                direction,
                limit,
            )
        })
    }

    /// The type named (or used) at `offset`, for a type hierarchy.
    pub fn type_hierarchy_item(
        &self,
        file: FileId,
        offset: usize,
    ) -> Cancellable<Option<super::HierarchyItem>> {
        self.with(|db| super::implementations::type_at(db, self.workspace, file.0, offset))
    }

    /// The definition of the name at `offset` with its signature and documentation.
    pub fn hover(&self, file: FileId, offset: usize) -> Cancellable<Option<super::HoverInfo>> {
        self.with(|db| super::hover::hover(db, self.workspace, file.0, offset))
    }

    /// Every use of what the name at `offset` refers to.
    pub fn references(
        &self,
        file: FileId,
        offset: usize,
        query: &super::ReferenceQuery,
    ) -> Cancellable<super::References> {
        self.with(|db| super::navigation::references(db, self.workspace, file.0, offset, query))
    }

    /// Every use of the definitions called `name`.
    pub fn references_by_name(
        &self,
        name: &str,
        query: &super::ReferenceQuery,
    ) -> Cancellable<super::References> {
        self.with(|db| super::navigation::references_by_name(db, self.workspace, name, query))
    }

    /// Renames what the name at `offset` refers to: the edits, checked in a scratch
    /// database (conflicts are errors; new diagnostics are listed unless
    /// `options.check_diagnostics` is off). Memoized: asking again on an unchanged
    /// workspace is a lookup.
    pub fn rename(
        &self,
        file: FileId,
        offset: usize,
        new_name: &str,
        options: super::RenameOptions,
    ) -> Cancellable<Result<super::Rename, super::RenameError>> {
        let subject = super::rename::RenameSubject::At {
            file: file.0,
            offset: offset as u32,
        };
        self.rename_subject(subject, new_name, options)
    }

    /// Renames `name` as bound in `file`'s module scope (`scope` absent or `module`) or in
    /// the function called `scope`: for a snippet, which has no positions to point at.
    pub fn rename_in_scope(
        &self,
        file: FileId,
        name: &str,
        scope: Option<&str>,
        new_name: &str,
        options: super::RenameOptions,
    ) -> Cancellable<Result<super::Rename, super::RenameError>> {
        let subject = super::rename::RenameSubject::InScope {
            file: file.0,
            name: name.to_string(),
            scope: scope.map(str::to_string),
        };
        self.rename_subject(subject, new_name, options)
    }

    fn rename_subject(
        &self,
        subject: super::rename::RenameSubject,
        new_name: &str,
        options: super::RenameOptions,
    ) -> Cancellable<Result<super::Rename, super::RenameError>> {
        self.with(|db| {
            let outcome = super::rename::rename(
                db,
                self.workspace,
                subject,
                new_name,
                options,
                self.check_settings.clone(),
            );
            (*outcome).clone()
        })
    }

    /// The name a rename at `offset` would rename, or why there is none (before asking for
    /// a new name).
    pub fn prepare_rename(
        &self,
        file: FileId,
        offset: usize,
    ) -> Cancellable<Result<Span, super::RenameError>> {
        self.with(|db| super::rename::prepare(db, self.workspace, file.0, offset))
    }

    /// Renames the definitions called `name` (`f`, `module.f`, `Class.method`).
    pub fn rename_by_name(
        &self,
        name: &str,
        new_name: &str,
        options: super::RenameOptions,
    ) -> Cancellable<Result<super::Rename, super::RenameError>> {
        let subject = super::rename::RenameSubject::Named(name.to_string());
        self.rename_subject(subject, new_name, options)
    }

    /// A symbol-level edit of the definition `target` names, as a patch to preview and
    /// write like any other.
    pub fn edit_symbol(
        &self,
        target: &super::SymbolEditTarget,
        kind: super::SymbolEditKind,
        text: &str,
        force: bool,
    ) -> Cancellable<Result<super::SymbolEdit, super::SymbolEditError>> {
        self.with(|db| {
            super::edit_symbol::edit_symbol(db, self.workspace, target, kind, text, force)
        })
    }

    /// `patch` applied to `texts` (the current text of each file it names; a missing file
    /// is absent) and, unless `check` is off, the diagnostics it would introduce.
    pub fn preview_patch(
        &self,
        patch: &super::Patch,
        texts: &std::collections::BTreeMap<String, super::FileText>,
        options: &super::PatchOptions,
        check: super::CheckPolicy,
    ) -> Cancellable<Result<super::PatchPreview, super::PatchError>> {
        let settings = &*self.check_settings;
        self.with(|db| {
            super::patch::preview(db, self.workspace, settings, patch, texts, options, check)
        })
    }

    /// The diagnostics workspace files would have with the new `texts` (by path) that they
    /// do not have now, as an edit's check ([`super::CheckPolicy`]) finds them.
    pub fn new_diagnostics(
        &self,
        texts: &std::collections::BTreeMap<String, String>,
    ) -> Cancellable<Vec<super::DiagnosticInfo>> {
        let settings = &*self.check_settings;
        self.with(|db| super::patch::new_diagnostics_of_texts(db, self.workspace, settings, texts))
    }

    /// What a file imports or what imports it, transitively, or the whole workspace's
    /// import graph; with its import cycles. Files or packages (directories).
    pub fn import_graph(&self, query: &super::GraphQuery) -> Cancellable<super::ImportGraphView> {
        self.with(|db| super::import_graph::import_graph_view(db, self.workspace, query))
    }

    /// The file formatted by the built-in layout formatter (memoized per file and options).
    pub fn format(
        &self,
        file: FileId,
        options: super::FormatOptions,
    ) -> Cancellable<Result<super::FileFormat, super::FormatError>> {
        if self.file_is_lossy(file) {
            return Ok(Err(super::FormatError::NotUtf8));
        }
        self.with(|db| {
            crate::semantic::format::file_format(db, file.0, options).map(|formatted| {
                super::FileFormat::between(file.0.path(db), &file.0.text(db), formatted)
            })
        })
    }

    pub fn folding_ranges(&self, file: FileId) -> Cancellable<Vec<Fold>> {
        self.with(|db| structure::folding_ranges(db, file.0))
    }

    /// For each byte offset, the ranges enclosing it from the innermost outwards.
    pub fn selection_ranges(&self, file: FileId, offsets: &[usize]) -> Cancellable<Vec<Vec<Span>>> {
        self.with(|db| structure::selection_ranges(db, file.0, offsets))
    }

    /// The skeletons of the files `query.paths` names (every file under a directory; none:
    /// the whole workspace), in path order, cut to `query.budget` (see `skeleton.rs`).
    pub fn skeleton(&self, query: &super::SkeletonQuery) -> Cancellable<super::SkeletonAnswer> {
        let (files, unmatched) =
            super::diagnostics::files_under(&self.db, self.workspace, &query.paths);
        self.with(|db| super::skeleton::skeleton(db, &files, unmatched, query))
    }

    /// The files under `request.path_prefix` as their most-used definitions' signature
    /// lines, ranked over the reference graph and cut to `request.budget` (see
    /// `repo_map.rs`). Each file's references are resolved on all cores the first time.
    pub fn repo_map(&self, request: &super::RepoMapRequest) -> Cancellable<super::RepoMap> {
        let files = self.with(|db| self.workspace.files(db).clone())?;
        let template = std::sync::Mutex::new(self.db.worker());
        let workspace = self.workspace;
        self.with(|_| {
            files.par_iter().for_each_init(
                || template.lock().unwrap().clone(),
                |db, &file| {
                    db.relay_cancellation();
                    crate::engine::reference_graph::file_references(db, workspace, file);
                },
            );
        })?;
        self.with(|db| super::repo_map::repo_map(db, workspace, request))
    }

    /// The files under `paths` (every file when none) as the shards of a SCIP export, `by`
    /// the given split (none: one shard at the workspace root), with each file's own facts
    /// read from one parse of it, then the identifier index, on all cores; a path that
    /// selects no file is refused before anything is read.
    pub fn scip_shards(
        &self,
        paths: &[String],
        by: Option<super::ScipShardBy>,
    ) -> Cancellable<Result<Vec<super::ScipShard>, super::ScipError>> {
        let (files, unmatched_paths) =
            self.with(|db| super::scip::selected_files(db, self.workspace, paths))?;
        if let Some(path) = unmatched_paths.into_iter().next() {
            return Ok(Err(super::ScipError::Unmatched(path)));
        }
        let template = std::sync::Mutex::new(self.db.worker());
        // Each file's own facts first, so that the documents, whose resolution reads other
        // files' facts, need not parse them again. The largest files first: the pass ends
        // on one core, and a large file there, in path order, held the other idle for
        // about 0.4 s of the standard library's 5 s export.
        let docs = self.with(|db| {
            let mut order: Vec<usize> = (0..files.len()).collect();
            order.sort_by_key(|&i| std::cmp::Reverse(files[i].text_len(db)));
            let mut docs = order
                .par_iter()
                .map_init(
                    || template.lock().unwrap().clone(),
                    |db, &i| {
                        db.relay_cancellation();
                        (i, super::scip::first_doc_lines(db, files[i]))
                    },
                )
                .collect::<Vec<_>>();
            docs.sort_unstable_by_key(|&(i, _)| i);
            docs.into_iter().map(|(_, docs)| docs).collect::<Vec<_>>()
        })?;
        // The documents' type relationships ask the identifier index for the files that
        // may subclass a type: built there, on the first worker to ask, it held the other
        // cores waiting (a few percent of a standard library's export on one core).
        let workspace = self.workspace;
        self.with(|db| {
            (0..shard_count(db, workspace))
                .into_par_iter()
                .for_each_init(
                    || template.lock().unwrap().clone(),
                    |db, shard| {
                        db.relay_cancellation();
                        identifier_shard(db, workspace, shard);
                    },
                );
            identifier_index(db, workspace);
        })?;
        self.with(|db| {
            let naming = super::scip::SymbolNaming::new(db, self.workspace);
            Ok(super::scip::shards(db, naming, files, docs, by))
        })
    }

    /// `shard`'s index written to `out` as it is built: the metadata, then each file's
    /// document in path order, [`SCIP_FILES_AT_ONCE`] files at a time built and encoded on
    /// all cores. An index held whole took three times its encoded size in memory, and its
    /// bytes as much again.
    pub fn scip(
        &self,
        shard: &super::ScipShard,
        request: &super::ScipRequest,
        out: &mut dyn std::io::Write,
    ) -> Cancellable<Result<super::ScipExport, super::ScipError>> {
        let (files, docs, naming) = (shard.files(), shard.docs(), shard.naming());
        let template = std::sync::Mutex::new(self.db.worker());
        let workspace = self.workspace;
        let worker = || template.lock().unwrap().clone();
        let mut writer = super::scip::IndexWriter::new(out, request);
        for (files, docs) in files
            .chunks(SCIP_FILES_AT_ONCE)
            .zip(docs.chunks(SCIP_FILES_AT_ONCE))
        {
            let documents = self.with(|_| {
                files
                    .par_iter()
                    .zip(docs.par_iter())
                    .map_init(worker, |db, (&file, docs)| {
                        db.relay_cancellation();
                        let document =
                            super::scip::document(db, workspace, naming, file, docs, &shard.root);
                        // Encoded (and dropped) on the core that built it: done by the
                        // writer, between two batches, it kept the other cores idle.
                        super::scip::EncodedDocument::new(&document)
                    })
                    .collect::<Vec<_>>()
            })?;
            for document in &documents {
                writer.document(document);
            }
        }
        Ok(writer.finish())
    }

    /// The diagnostics of the files `query.paths` names (default: every file), checked on
    /// all cores; each file's answer is memoized, so a second check re-checks only files
    /// that changed. A diagnostic names a fix only where [`Analysis::fix`] may apply it.
    pub fn check(&self, query: &super::CheckQuery) -> Cancellable<super::CheckResult> {
        let (files, unmatched) =
            super::diagnostics::files_under(&self.db, self.workspace, &query.paths);
        let template = std::sync::Mutex::new(self.db.worker());
        let workspace = self.workspace;
        let settings = &*self.check_settings;
        self.with(|_| {
            let per_file: Vec<Vec<super::DiagnosticInfo>> = files
                .par_iter()
                .map_init(
                    || template.lock().unwrap().clone(),
                    |db, &file| {
                        db.relay_cancellation();
                        let found = super::diagnostics::file_diagnostics_info(
                            db,
                            workspace,
                            file,
                            settings,
                            &query.codes,
                        );
                        super::fix::offered_fixes(db, workspace, file, found)
                    },
                )
                .collect();
            super::diagnostics::combine(per_file, files.len(), unmatched, query)
        })
    }

    /// The fixes of the diagnostics of the files `query.paths` names, applied round after
    /// round as a change not yet written (see `fix.rs`).
    pub fn fix(&self, query: &super::FixQuery) -> Cancellable<super::FixOutcome> {
        let check = super::CheckQuery {
            paths: query.paths.clone(),
            codes: query.codes.clone(),
            min_severity: None,
            limit: usize::MAX,
        };
        let before = self.check(&check)?;
        let settings = &*self.check_settings;
        self.with(|db| super::fix::fix(db, self.workspace, settings, query, before))
    }

    /// Literal or regex search of the files' texts: a page of matching lines (from
    /// `query.offset`, at most `query.limit`) with context and enclosing definitions,
    /// rendered as text cut to `budget`. Files are searched on all cores.
    pub fn search(
        &self,
        query: &super::SearchQuery,
        budget: super::Budget,
    ) -> Cancellable<Result<super::SearchAnswer, super::SearchError>> {
        self.with(|_| super::search::search(&self.db, self.workspace, query, budget))
    }

    /// This workspace's part of a search across several (`ide::search_across`).
    pub fn search_hits(
        &self,
        query: &super::SearchQuery,
    ) -> Cancellable<Result<super::WorkspaceHits, super::SearchError>> {
        self.with(|_| super::search::workspace_hits(&self.db, self.workspace, query))
    }

    /// One file's diagnostics with the codes the configuration and then `codes` select, in
    /// document order.
    pub fn diagnostics(
        &self,
        file: FileId,
        codes: &super::CodeSelection,
    ) -> Cancellable<Vec<super::DiagnosticInfo>> {
        self.with(|db| {
            super::diagnostics::file_diagnostics_info(
                db,
                self.workspace,
                file.0,
                &self.check_settings,
                codes,
            )
        })
    }

    /// [`Analysis::diagnostics`] with each fix kept only where [`Analysis::fix`] may apply
    /// it (unsafe ones included): a Python import another file imports from this one has
    /// none. What an editor offers one fix at a time.
    pub fn diagnostics_with_offered_fixes(
        &self,
        file: FileId,
        codes: &super::CodeSelection,
    ) -> Cancellable<Vec<super::DiagnosticInfo>> {
        self.with(|db| {
            let found = super::diagnostics::file_diagnostics_info(
                db,
                self.workspace,
                file.0,
                &self.check_settings,
                codes,
            );
            super::fix::offered_fixes(db, self.workspace, file.0, found)
        })
    }

    /// `sextant.toml`'s `[check]` table this snapshot applies.
    pub fn check_settings(&self) -> &super::CheckSettings {
        &self.check_settings
    }

    /// Computes what later requests will need (every file's symbols and identifiers, then
    /// the workspace symbol index and identifier index) on all cores. `on_file` is called
    /// after each file, with its length in bytes.
    pub fn prime_caches(&self, on_file: &(dyn Fn(usize) + Sync)) -> Cancellable<()> {
        let priming = Priming {
            identifiers: true,
            diagnostics: false,
        };
        self.prime_caches_with(priming, on_file)
    }

    /// Every file's symbols and the workspace symbol index, and what `priming` adds (see
    /// [`Priming`]), on all cores.
    pub fn prime_caches_with(
        &self,
        priming: Priming,
        on_file: &(dyn Fn(usize) + Sync),
    ) -> Cancellable<()> {
        self.prime_caches_by_shard(priming, on_file, &|_| {})
    }

    /// [`Analysis::prime_caches_with`], a shard of the indexes at a time in workspace order:
    /// once `on_shard(n)` is called, the first `n` shards are computed, and a search over
    /// them ([`Analysis::symbol_search_in_shards`]) answers from memoized results while the
    /// rest is indexed.
    pub fn prime_caches_by_shard(
        &self,
        priming: Priming,
        on_file: &(dyn Fn(usize) + Sync),
        on_shard: &(dyn Fn(u32) + Sync),
    ) -> Cancellable<()> {
        let Priming {
            identifiers,
            diagnostics,
        } = priming;
        let workspace = self.workspace;
        // `RootDatabase` is `Send` but not `Sync`: each worker takes its own clone.
        let template = std::sync::Mutex::new(self.db.worker());
        self.with(|db| {
            // From a warm cache most files need no query: each compiles when first used, and
            // the indexes' shards are read whole, each from one record keyed by its files'
            // texts (which are all hashed here, on all cores).
            let warm = db
                .records()
                .is_some_and(|records| records.holds_records() && records.at_start());
            if !warm {
                compile_queries(db, workspace.files(db), diagnostics);
            }
            // Each shard is built while the next one's files are worked on; `on_shard` hears
            // how many shards from the first are complete.
            let compress =
                !warm && crate::db::compresses_texts(db, workspace, self.compress_texts_over);
            if compress {
                db.note_texts_kept_compressed();
            }
            let shards = shard_count(db, workspace);
            let complete = std::sync::Mutex::new((vec![false; shards as usize], 0u32));
            let shard_lists: Vec<&[SourceFile]> = (0..shards)
                .map(|shard| shard_files(db, workspace, shard))
                .collect();
            let prime_file = |db: &dyn Db, file: SourceFile| {
                if warm {
                    crate::semantic::persisted::text_hash(db, file);
                } else {
                    let _pin = crate::semantic::pin_tree(db, file);
                    symbol_summaries(db, file);
                    // A compressed text's words are read by its shard alone, not kept.
                    if identifiers && !words_read_in_passing(db) {
                        file_identifiers(db, file);
                    }
                }
                if diagnostics {
                    crate::checks::recorded_diagnostics(db, workspace, file);
                }
            };
            // Done with a file's text for now: keep it compressed. Not on a warm start,
            // which reads the texts only to hash them, and leaves compressing to the first
            // idle moment.
            let done_with = |db: &dyn Db, file: SourceFile| {
                if compress {
                    file.stored_text(db).compact();
                }
                on_file(file.text_len(db));
            };
            // A check's peak is what it holds plus the tree of the file being checked, and
            // what it holds grows as it goes (diagnostics, the tables kept): the largest
            // files are checked first, one at a time, while the least is held. One
            // generated file of 1.4 MB has a tree of 87 MB. Each is told done as it ends,
            // so that a memory limit is looked at before the next.
            let checked_first = |db: &dyn Db, file: SourceFile| diagnostics && is_large(db, file);
            if diagnostics {
                for file in largest_first(db, workspace.files(db)) {
                    prime_file(db, file);
                    done_with(db, file);
                }
            }
            rayon::scope(|scope| {
                for (shard, files) in (0..shards).zip(shard_lists) {
                    files.par_iter().for_each_init(
                        || template.lock().unwrap().clone(),
                        |db, &file| {
                            db.relay_cancellation();
                            if !checked_first(db, file) {
                                prime_file(db, file);
                                done_with(db, file);
                            }
                        },
                    );
                    let db = template.lock().unwrap().clone();
                    let complete = &complete;
                    scope.spawn(move |_| {
                        db.relay_cancellation();
                        symbol_shard(&db, workspace, shard);
                        if identifiers {
                            identifier_shard(&db, workspace, shard);
                        }
                        // What the shard's files freed (their trees, the parser's
                        // scratch) sits in the workers' arenas, counted as resident until
                        // given back: most of the peak's excess over what is kept.
                        crate::allocator::release_freed_memory();
                        let (done, prefix) = &mut *complete.lock().unwrap();
                        done[shard as usize] = true;
                        let before = *prefix;
                        while done.get(*prefix as usize) == Some(&true) {
                            *prefix += 1;
                        }
                        if *prefix > before {
                            on_shard(*prefix);
                        }
                    });
                }
            });
            drop(template);
            symbol_index(db, workspace);
            if identifiers {
                identifier_index(db, workspace);
            }
        })
    }

    /// Sleeps `steps` times `step` as a query would, stopping when cancelled and counting
    /// the steps done in `done`: a deterministic slow request for cancellation tests.
    #[doc(hidden)]
    pub fn slow_query_for_tests(
        &self,
        steps: u64,
        step: std::time::Duration,
        done: &std::sync::atomic::AtomicU64,
    ) -> Cancellable<()> {
        self.with(|db| {
            while done.load(std::sync::atomic::Ordering::Relaxed) < steps {
                db.unwind_if_revision_cancelled();
                std::thread::sleep(step);
                done.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        })
    }

    #[doc(hidden)]
    pub fn raw_database(&self) -> &RootDatabase {
        &self.db
    }
}
