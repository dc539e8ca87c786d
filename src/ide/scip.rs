//! `scip`: the workspace as a SCIP index (the protobuf format code-search services ingest),
//! built from the database's own facts: each file's definitions (`file_symbols`, and the
//! bindings of `file_names` the tags query does not list), and every use of a name the
//! `Resolver` resolves exactly (a member matched by name alone is left out), as
//! occurrences of symbols.
//!
//! A symbol is `scip-sextant <manager> <package> <version> <descriptors>` by the SCIP
//! symbol grammar: the package from the nearest manifest of the file's language
//! (`Cargo.toml`, `package.json`, `pyproject.toml`/`setup.cfg`, `go.mod`; `.` for what is
//! not known), then the file as a namespace (its path from the package's directory,
//! `` `src/a.ts`/ ``) and the definition's path of containers: a type `#`, a function or
//! method `().`, a module `/`, a macro `!`, anything else a term `.`. Definitions inside a
//! function, parameters and other function-local bindings are `local N`, numbered per
//! document in order of first appearance. Ranges are 0-based, columns in UTF-16 code units
//! (the document says so in `position_encoding`), as editors and the reference indexers
//! count them.
//!
//! Invariant: reads only memoized queries and the `Resolver`; one document per file,
//! occurrences sorted by range then symbol, symbol information sorted by symbol, so the
//! same workspace gives the same bytes.

use std::{collections::BTreeMap, sync::Arc};

use dashmap::DashMap;
use foldhash::{HashMap, HashMapExt};

use protobuf::{EnumOrUnknown, MessageField};
use scip::types::{
    Document, Metadata, Occurrence, PositionEncoding, Relationship, SymbolInformation, SymbolRole,
    TextEncoding, ToolInfo, symbol_information::Kind,
};

use crate::{
    db::{Db, RecordKind, SourceFile, Workspace},
    engine::hierarchy::{Subject, TypeNode, direct_supertypes, methods_of, subject_of_definition},
    lang::Family,
    semantic::{
        imports::{self, ImportSummary},
        names::{
            BindingKind, FileNames, OccurrenceId, Role, ScopeId, file_names,
            resolve::{Resolver, Target, push_unique},
        },
        projects::{ProjectKind, projects},
        symbols::{FileSymbols, SymbolKind, SymbolPositions, file_symbols},
    },
    syntax::{ColumnUnit, LineIndex, TextRange, TextSize},
};

/// The scheme of every symbol sextant writes.
pub const SCHEME: &str = "scip-sextant";

/// What an index's metadata says: the tool's version and arguments, and its root's
/// `file://` URI (the workspace's, or a shard's directory).
#[derive(Clone, Debug, Default)]
pub struct ScipRequest {
    pub tool_version: String,
    pub arguments: Vec<String>,
    pub project_root: String,
}

/// How an export is split into indexes of their own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScipShardBy {
    /// One index per project a manifest describes (the packages symbols are named after),
    /// each file in its nearest project's; files in none in the workspace root's.
    Project,
    /// One index per top-level directory; files at the top in the workspace root's.
    Directory,
}

/// One index of an export: the selected files under `root`, whose documents' paths are
/// relative to it. Symbols do not depend on the shard (they are named by package), so a
/// use in one shard names a definition in another with the same string.
#[derive(Clone)]
pub struct ScipShard {
    /// The shard's directory, workspace-relative (`""`: the workspace root).
    pub root: String,
    files: Vec<SourceFile>,
    /// Each file's [`first_doc_lines`], read for every shard's files before any document
    /// is built: a document resolves names into other shards' files, and reading their
    /// docstrings only when their shard comes would parse them a second time.
    docs: Vec<DocLines>,
    naming: Arc<SymbolNaming>,
}

/// The first line of each definition's documentation in a file ([`first_doc_lines`]).
type DocLines = Vec<Option<String>>;

impl ScipShard {
    /// How many documents the shard's index holds.
    pub fn documents(&self) -> usize {
        self.files.len()
    }

    pub(crate) fn files(&self) -> &[SourceFile] {
        &self.files
    }

    pub(crate) fn docs(&self) -> &[DocLines] {
        &self.docs
    }

    pub(crate) fn naming(&self) -> &SymbolNaming {
        &self.naming
    }
}

/// `files` (in path order, with their [`first_doc_lines`]) as shards (in order of their
/// roots), `by` the given split, or one shard at the workspace root without one.
pub(crate) fn shards(
    db: &dyn Db,
    naming: SymbolNaming,
    files: Vec<SourceFile>,
    docs: Vec<DocLines>,
    by: Option<ScipShardBy>,
) -> Vec<ScipShard> {
    let mut shards: BTreeMap<String, (Vec<SourceFile>, Vec<DocLines>)> = BTreeMap::new();
    for (file, docs) in files.into_iter().zip(docs) {
        let path = file.path(db).as_str();
        let root = match by {
            None => "",
            Some(ScipShardBy::Directory) => path.split_once('/').map_or("", |(top, _)| top),
            Some(ScipShardBy::Project) => naming.packages.nearest_root(path),
        };
        let (files, shard_docs) = shards.entry(root.to_string()).or_default();
        files.push(file);
        shard_docs.push(docs);
    }
    if by.is_none() && shards.is_empty() {
        shards.insert(String::new(), Default::default());
    }
    let naming = Arc::new(naming);
    shards
        .into_iter()
        .map(|(root, (files, docs))| ScipShard {
            root,
            files,
            docs,
            naming: naming.clone(),
        })
        .collect()
}

/// What an export wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ScipExport {
    pub documents: usize,
    pub occurrences: usize,
    pub symbols: usize,
    pub bytes: u64,
}

/// Why an export wrote nothing, or stopped.
#[derive(Debug, thiserror::Error)]
pub enum ScipError {
    /// A requested path under which the workspace indexes no file (nothing was written).
    #[error("{0}: no file the workspace indexes is there")]
    Unmatched(String),
    #[error("{0}")]
    Write(#[from] std::io::Error),
}

/// The files `request` selects, in path order, and the paths that selected none.
pub(crate) fn selected_files(
    db: &dyn Db,
    workspace: Workspace,
    paths: &[String],
) -> (Vec<SourceFile>, Vec<String>) {
    let files = workspace.files(db);
    let under = |file: &str, prefix: &str| {
        prefix.is_empty()
            || prefix == "."
            || file == prefix
            || file
                .strip_prefix(prefix.trim_end_matches('/'))
                .is_some_and(|rest| rest.starts_with('/'))
    };
    let unmatched = paths
        .iter()
        .filter(|p| !files.iter().any(|f| under(f.path(db), p)))
        .cloned()
        .collect();
    let mut selected: Vec<SourceFile> = files
        .iter()
        .copied()
        .filter(|f| paths.is_empty() || paths.iter().any(|p| under(f.path(db), p)))
        .collect();
    selected.sort_by(|a, b| a.path(db).cmp(b.path(db)));
    (selected, unmatched)
}

/// The index's metadata.
pub(crate) fn metadata(request: &ScipRequest) -> Metadata {
    Metadata {
        tool_info: MessageField::some(ToolInfo {
            name: "sextant".into(),
            version: request.tool_version.clone(),
            arguments: request.arguments.clone(),
            ..Default::default()
        }),
        project_root: request.project_root.clone(),
        text_document_encoding: EnumOrUnknown::new(TextEncoding::UTF8),
        ..Default::default()
    }
}

/// Writes an [`Index`](scip::types::Index) field by field: its metadata, then its documents
/// one by one, the bytes `Index::write_to_bytes` gives for the same documents (fields go in
/// number order, and a repeated field's items one after the other), without the index in
/// memory.
pub(crate) struct IndexWriter<'a> {
    out: CountingWriter<'a>,
    written: ScipExport,
    failed: Option<std::io::Error>,
}

impl<'a> IndexWriter<'a> {
    pub fn new(out: &'a mut dyn std::io::Write, request: &ScipRequest) -> IndexWriter<'a> {
        let mut writer = IndexWriter {
            out: CountingWriter { out, bytes: 0 },
            written: ScipExport::default(),
            failed: None,
        };
        writer.field(INDEX_METADATA, &metadata(request));
        writer
    }

    pub fn document(&mut self, document: &EncodedDocument) {
        self.written.documents += 1;
        self.written.occurrences += document.occurrences;
        self.written.symbols += document.symbols;
        // A message field and a bytes field of its encoding are the same bytes: the tag,
        // the length, the message.
        match &document.bytes {
            Ok(bytes) => self.write(|stream| stream.write_bytes(INDEX_DOCUMENTS, bytes)),
            Err(error) => {
                let error = std::io::Error::other(error.to_string());
                self.failed.get_or_insert(error);
            }
        }
    }

    fn field(&mut self, number: u32, message: &impl protobuf::MessageFull) {
        self.write(|stream| stream.write_message(number, message));
    }

    fn write(
        &mut self,
        write: impl FnOnce(&mut protobuf::CodedOutputStream) -> protobuf::Result<()>,
    ) {
        if self.failed.is_some() {
            return;
        }
        let mut stream = protobuf::CodedOutputStream::new(&mut self.out);
        let result = write(&mut stream).and_then(|()| stream.flush());
        if let Err(error) = result {
            self.failed = Some(std::io::Error::other(error));
        }
    }

    pub fn finish(self) -> Result<ScipExport, ScipError> {
        match self.failed {
            Some(error) => Err(ScipError::Write(error)),
            None => Ok(ScipExport {
                bytes: self.out.bytes,
                ..self.written
            }),
        }
    }
}

/// A document's encoding (the message's bytes, without the field's tag and length), made
/// where the document was built so that documents are encoded on all cores, with the
/// counts [`ScipExport`] sums.
pub(crate) struct EncodedDocument {
    /// An encoding that failed fails the export when the writer comes to it.
    bytes: protobuf::Result<Vec<u8>>,
    occurrences: usize,
    symbols: usize,
}

impl EncodedDocument {
    pub fn new(document: &Document) -> EncodedDocument {
        use protobuf::Message as _;
        EncodedDocument {
            bytes: document.write_to_bytes(),
            occurrences: document.occurrences.len(),
            symbols: document.symbols.len(),
        }
    }
}

/// Whether `index` begins as an index sextant wrote: its first field the metadata, naming
/// sextant as the tool. Reads the metadata only, however long the index.
pub fn written_by_sextant(index: &mut dyn std::io::Read) -> bool {
    let mut stream = protobuf::CodedInputStream::new(index);
    let tag = stream.read_raw_tag_or_eof();
    let metadata_tag = INDEX_METADATA << 3 | WIRE_TYPE_LENGTH_DELIMITED;
    matches!(tag, Ok(Some(tag)) if tag == metadata_tag)
        && stream
            .read_message::<Metadata>()
            .is_ok_and(|metadata| metadata.tool_info.name == "sextant")
}

/// The wire type of a message field.
const WIRE_TYPE_LENGTH_DELIMITED: u32 = 2;

/// `Index`'s field numbers in the SCIP schema.
const INDEX_METADATA: u32 = 1;
const INDEX_DOCUMENTS: u32 = 2;

struct CountingWriter<'a> {
    out: &'a mut dyn std::io::Write,
    bytes: u64,
}

impl std::io::Write for CountingWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A package, from one manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Package {
    /// The manifest's directory, workspace-relative (`""` for the root).
    root: String,
    manager: &'static str,
    name: String,
    version: String,
}

/// The workspace's packages, by the manifests it holds.
#[derive(Clone, Debug, Default)]
pub(crate) struct Packages(Vec<Package>);

impl Packages {
    /// From the workspace's projects (`semantic/projects`): each manifest's directory,
    /// package name and version.
    pub(crate) fn new(db: &dyn Db, workspace: Workspace) -> Packages {
        let packages = projects(db, workspace)
            .iter()
            .filter_map(|project| {
                let manager = match project.kind {
                    ProjectKind::Cargo => "cargo",
                    ProjectKind::Python => "python",
                    ProjectKind::Npm => "npm",
                    ProjectKind::GoModule => "gomod",
                    ProjectKind::CargoWorkspace | ProjectKind::Tsconfig | ProjectKind::GoWork => {
                        return None;
                    }
                };
                Some(Package {
                    root: match project.root.as_str() {
                        "." => String::new(),
                        dir => dir.to_string(),
                    },
                    manager,
                    name: project.name.clone().unwrap_or_default(),
                    version: project.version.clone().unwrap_or_default(),
                })
            })
            .collect();
        Packages(packages)
    }

    /// The directory of the nearest manifest of any kind above `path` (`""`: none).
    fn nearest_root(&self, path: &str) -> &str {
        self.0
            .iter()
            .map(|p| p.root.as_str())
            .filter(|root| is_under(path, root))
            .max_by_key(|root| root.len())
            .unwrap_or("")
    }

    /// The package of the nearest manifest of `family`'s kind above `path`.
    fn of(&self, path: &str, family: Family) -> Option<&Package> {
        let manager = match family {
            Family::Python => "python",
            Family::Ecma { .. } => "npm",
            Family::Go => "gomod",
            Family::Rust => "cargo",
        };
        self.0
            .iter()
            .filter(|p| p.manager == manager && is_under(path, &p.root))
            .max_by_key(|p| p.root.len())
    }
}

/// Whether the workspace-relative `path` lies under the directory `root` (`""`: the root).
fn is_under(path: &str, root: &str) -> bool {
    root.is_empty()
        || path
            .strip_prefix(root)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// How an export names global symbols: by the workspace's packages, and each file's
/// definitions as [`FileGlobals`], computed once for every document that names them (they
/// depend on the file and the packages alone, so sharing them changes no answer).
pub(crate) struct SymbolNaming {
    packages: Packages,
    globals: DashMap<SourceFile, Arc<FileGlobals>, foldhash::fast::RandomState>,
}

impl SymbolNaming {
    pub(crate) fn new(db: &dyn Db, workspace: Workspace) -> SymbolNaming {
        SymbolNaming {
            packages: Packages::new(db, workspace),
            globals: DashMap::default(),
        }
    }

    fn globals(&self, db: &dyn Db, file: SourceFile) -> Arc<FileGlobals> {
        if let Some(globals) = self.globals.get(&file) {
            return globals.clone();
        }
        // Computed without holding the map's lock: it asks the database, which may wait
        // for another worker that wants the lock.
        let globals = Arc::new(FileGlobals::new(db, file, &self.packages));
        self.globals.entry(file).or_insert(globals).clone()
    }
}

/// A name as a descriptor writes it: bare when it is a simple identifier, else in
/// backticks with backticks doubled.
pub fn escape_name(name: &str) -> String {
    if !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '+' | '-' | '$'))
    {
        name.to_string()
    } else {
        format!("`{}`", name.replace('`', "``"))
    }
}

/// A package field: `.` when empty, spaces doubled.
fn package_field(field: &str) -> String {
    match field {
        "" => ".".to_string(),
        _ => field.replace(' ', "  "),
    }
}

/// `name` with the suffix of a definition of `kind`.
fn descriptor(name: &str, kind: SymbolKind) -> String {
    let name = escape_name(name);
    match kind {
        SymbolKind::Module => format!("{name}/"),
        SymbolKind::Class
        | SymbolKind::Struct
        | SymbolKind::Union
        | SymbolKind::Enum
        | SymbolKind::Trait
        | SymbolKind::Interface
        | SymbolKind::Type
        | SymbolKind::Impl => format!("{name}#"),
        SymbolKind::Function | SymbolKind::Method => format!("{name}()."),
        SymbolKind::Macro => format!("{name}!"),
        SymbolKind::Variant
        | SymbolKind::Field
        | SymbolKind::Constant
        | SymbolKind::Static
        | SymbolKind::Variable => format!("{name}."),
    }
}

fn is_function(kind: SymbolKind) -> bool {
    matches!(kind, SymbolKind::Function | SymbolKind::Method)
}

/// One file's global symbols: the prefix naming the file, and each definition's symbol
/// (`None`: inside a function, so local).
struct FileGlobals {
    namespace: String,
    symbols: Vec<Option<String>>,
    /// Definitions (not Rust impl blocks, whose name is a use) by where their name starts.
    by_start: HashMap<TextSize, u32>,
}

impl FileGlobals {
    fn new(db: &dyn Db, file: SourceFile, packages: &Packages) -> FileGlobals {
        let path = file.path(db);
        let family = file.lang(db).info().family;
        let package = packages.of(path, family);
        let (manager, name, version, relative) = match package {
            Some(p) => (
                p.manager,
                package_field(&p.name),
                package_field(&p.version),
                match p.root.is_empty() {
                    true => path.as_str(),
                    false => &path[p.root.len() + 1..],
                },
            ),
            None => (".", ".".to_string(), ".".to_string(), path.as_str()),
        };
        let namespace = format!(
            "{SCHEME} {manager} {name} {version} {}/",
            escape_name(relative)
        );
        let symbols = file_symbols(db, file);
        let mut paths: Vec<Option<String>> = Vec::with_capacity(symbols.summaries.len());
        for (i, summary) in symbols.summaries.iter().enumerate() {
            let own = descriptor(&summary.name, summary.kind);
            let path = match summary.parent() {
                Some(parent) => {
                    let parent_summary = &symbols.summaries[parent as usize];
                    match (&paths[parent as usize], is_function(parent_summary.kind)) {
                        (Some(prefix), false) => Some(format!("{prefix}{own}")),
                        _ => None,
                    }
                }
                // A container written apart from the nesting (a Go method's receiver type).
                None => {
                    let containers: String = summary
                        .container
                        .iter()
                        .flat_map(|c| c.split('.'))
                        .map(|c| format!("{}#", escape_name(c)))
                        .collect();
                    Some(format!("{namespace}{containers}{own}"))
                }
            };
            debug_assert_eq!(paths.len(), i);
            paths.push(path);
        }
        let by_start = symbols
            .positions
            .iter()
            .zip(symbols.summaries.iter())
            .enumerate()
            .filter(|(_, (_, s))| s.kind != SymbolKind::Impl)
            .map(|(i, (p, _))| (p.name_range.start(), i as u32))
            .collect();
        FileGlobals {
            namespace,
            symbols: paths,
            by_start,
        }
    }
}

/// A symbol as an occurrence names it: global, or local to the document being built (a
/// scope's binding of a name; a definition no binding names has a scope of its own).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Sym {
    Global(String),
    Local(u64, Arc<str>),
}

/// Builds one document.
struct Exporter<'db, 'p> {
    db: &'db dyn Db,
    resolver: Resolver<'db>,
    naming: &'p SymbolNaming,
    file: SourceFile,
    /// Each type's direct supertypes, as the document's resolver found them: every method
    /// of a type asks for its type's, which looked its name up in the identifier index and
    /// resolved its bases again each time.
    supertypes: HashMap<TypeNode, Arc<[TypeNode]>>,
}

impl Exporter<'_, '_> {
    /// `node`'s direct supertypes ([`direct_supertypes`]), found once per document. The
    /// resolver's answers do not depend on what it was asked before, so neither do these.
    fn direct_supertypes(&mut self, node: TypeNode) -> Arc<[TypeNode]> {
        if let Some(found) = self.supertypes.get(&node) {
            return found.clone();
        }
        let found: Arc<[TypeNode]> = direct_supertypes(&mut self.resolver, node)
            .into_iter()
            .map(|(base, _)| base)
            .collect();
        self.supertypes.insert(node, found.clone());
        found
    }

    fn globals(&mut self, file: SourceFile) -> Arc<FileGlobals> {
        self.naming.globals(self.db, file)
    }

    /// The symbol of the definition whose name is `occurrence` of `file`, when it is one of
    /// the file's definitions.
    fn definition_symbol(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        id: OccurrenceId,
    ) -> Option<Sym> {
        let globals = self.globals(file);
        let occurrence = names.occurrence(id);
        let index = *globals.by_start.get(&occurrence.range.start())?;
        Some(match &globals.symbols[index as usize] {
            Some(symbol) => Sym::Global(symbol.clone()),
            None => Sym::Local(u64::from(occurrence.scope), names.name(id).into()),
        })
    }

    /// The symbol of `scope`'s binding of `name` in `file` when no definition of the file
    /// names it: a term of the file (its top level) or of the class around, else local.
    fn binding_symbol(
        &mut self,
        file: SourceFile,
        names: &FileNames,
        scope: ScopeId,
        name: &str,
    ) -> Option<Sym> {
        let globals = self.globals(file);
        if scope == 0 {
            return Some(Sym::Global(format!(
                "{}{}.",
                globals.namespace,
                escape_name(name)
            )));
        }
        let info = &names.scopes[scope as usize];
        if info.is_class
            && let Some(class) = info.named_by
            && let Some(Sym::Global(prefix)) = self.definition_symbol(file, names, class)
        {
            return Some(Sym::Global(format!("{prefix}{}.", escape_name(name))));
        }
        (file == self.file).then(|| Sym::Local(u64::from(scope), name.into()))
    }

    /// The symbols `target` stands for, and whether `this` (an occurrence of the document)
    /// is one of its definitions.
    fn target_symbols(
        &mut self,
        target: &Target,
        out: &mut Vec<Sym>,
        this: Option<OccurrenceId>,
    ) -> bool {
        match target {
            Target::Module(module) => {
                let namespace = self.globals(*module).namespace.clone();
                push_unique(out, Sym::Global(namespace));
                false
            }
            Target::External { .. } => false,
            Target::Symbol {
                file, scope, name, ..
            } => {
                let mut defines_this = false;
                let sites = self.resolver.definitions(target);
                let mut found = false;
                for (site_file, site) in sites {
                    defines_this |= site_file == self.file && Some(site) == this;
                    let names = self.resolver.names(site_file);
                    if let Some(symbol) = self.definition_symbol(site_file, &names, site) {
                        // A definition inside a function of another file cannot be named.
                        if site_file == self.file || matches!(symbol, Sym::Global(_)) {
                            push_unique(out, symbol);
                        }
                        found = true;
                    }
                }
                if !found {
                    let names = self.resolver.names(*file);
                    if let Some(symbol) = self.binding_symbol(*file, &names, *scope, name) {
                        push_unique(out, symbol);
                    }
                }
                defines_this
            }
        }
    }
}

/// SCIP's language name of a registry language.
fn language_name(id: &str) -> String {
    match id {
        "python" => "Python",
        "javascript" => "JavaScript",
        "typescript" => "TypeScript",
        "tsx" => "TypeScriptReact",
        "go" => "Go",
        "rust" => "Rust",
        other => other,
    }
    .to_string()
}

fn symbol_kind(kind: SymbolKind) -> Kind {
    match kind {
        SymbolKind::Module => Kind::Module,
        SymbolKind::Class => Kind::Class,
        SymbolKind::Struct => Kind::Struct,
        SymbolKind::Union => Kind::Union,
        SymbolKind::Enum => Kind::Enum,
        SymbolKind::Variant => Kind::EnumMember,
        SymbolKind::Trait => Kind::Trait,
        SymbolKind::Interface => Kind::Interface,
        SymbolKind::Impl => Kind::Type,
        SymbolKind::Type => Kind::TypeAlias,
        SymbolKind::Function => Kind::Function,
        SymbolKind::Method => Kind::Method,
        SymbolKind::Field => Kind::Field,
        SymbolKind::Constant => Kind::Constant,
        SymbolKind::Static => Kind::StaticVariable,
        SymbolKind::Variable => Kind::Variable,
        SymbolKind::Macro => Kind::Macro,
    }
}

fn binding_kind(kind: BindingKind) -> Kind {
    match kind {
        BindingKind::Function => Kind::Function,
        BindingKind::Class => Kind::Class,
        BindingKind::Parameter => Kind::Parameter,
        BindingKind::Variable | BindingKind::Import => Kind::Variable,
        BindingKind::Type => Kind::Type,
        BindingKind::TypeParameter => Kind::TypeParameter,
        BindingKind::Module => Kind::Module,
    }
}

/// `[line, start, end]` on one line, else `[start line, start, end line, end]`: 0-based,
/// columns in UTF-16 code units.
fn scip_range(index: &LineIndex, range: TextRange) -> Vec<i32> {
    let (line, column) = index.line_column(usize::from(range.start()), ColumnUnit::Utf16);
    let (end_line, end_column) = index.line_column(usize::from(range.end()), ColumnUnit::Utf16);
    let [line, column, end_line, end_column] =
        [line, column, end_line, end_column].map(|n| i32::try_from(n).unwrap_or(i32::MAX));
    match line == end_line {
        true => vec![line, column, end_column],
        false => vec![line, column, end_line, end_column],
    }
}

/// The first line of a definition's documentation.
fn doc_first_line(db: &dyn Db, file: SourceFile, position: &SymbolPositions) -> Option<String> {
    let doc = super::hover::definition_documentation(db, file, position)?;
    let first = doc.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(first.to_string())
}

/// The first line of each definition's documentation in `file` (by its index in
/// `file_symbols`), having read the file's symbols and names, from the persistent cache's
/// records when it holds them all, else from one parse: its tree is pinned meanwhile.
/// Python's docstrings are read from the tree, and once other files' parses have pushed it
/// out of the tree cache, each file would be parsed three times.
///
/// The lines are recorded too: they depend on the file's language and text alone (its
/// symbols' positions, its tree, its comments), and without their record a warm export
/// parsed every Python file again for its docstrings, half of its time.
pub(crate) fn first_doc_lines(db: &dyn Db, file: SourceFile) -> DocLines {
    let parts = || crate::semantic::persisted::language_and_text(db, file);
    let docs = crate::semantic::persisted::recorded(db, RecordKind::DocLines, parts, || {
        let _tree = crate::semantic::pin_tree(db, file);
        let symbols = file_symbols(db, file);
        file_names(db, file);
        symbols
            .positions
            .iter()
            .map(|position| doc_first_line(db, file, position))
            .collect()
    });
    // Read here, on all cores, when the lines came from their record: the documents need
    // them (from the same records on a warm export).
    file_symbols(db, file);
    file_names(db, file);
    docs
}

/// The document of `file`, given [`first_doc_lines`] of it, its path relative to the
/// directory `root` of the index it goes into (`""`: the workspace root).
pub(crate) fn document(
    db: &dyn Db,
    workspace: Workspace,
    naming: &SymbolNaming,
    file: SourceFile,
    docs: &[Option<String>],
    root: &str,
) -> Document {
    let mut exporter = Exporter {
        db,
        resolver: Resolver::new(db, workspace),
        naming,
        file,
        supertypes: HashMap::new(),
    };
    let names = file_names(db, file);
    let symbols = file_symbols(db, file);
    let globals = exporter.globals(file);
    let index = crate::semantic::line_index(db, file);
    // (range start, symbol, roles, range)
    let mut occurrences: Vec<(TextRange, Sym, i32)> = Vec::new();
    // Each defined symbol's information: a definition's index, or a binding's kind.
    let mut defined: HashMap<Sym, Result<u32, BindingKind>> = HashMap::new();
    let mut defined_order: Vec<Sym> = Vec::new();
    let mut named_definitions = vec![false; symbols.summaries.len()];
    let mut found = Vec::new();
    for id in 0..names.occurrences.len() as OccurrenceId {
        let occurrence = names.occurrence(id);
        found.clear();
        let roles = match occurrence.role {
            Role::Definition(BindingKind::Import) => {
                for target in exporter.resolver.imported_by(file, id).unwrap_or_default() {
                    exporter.target_symbols(&target, &mut found, None);
                }
                SymbolRole::Import as i32
            }
            Role::Imported | Role::ModulePath => {
                let resolution = exporter.resolver.resolve(file, id);
                if !resolution.heuristic {
                    for target in &resolution.targets {
                        exporter.target_symbols(target, &mut found, None);
                    }
                }
                SymbolRole::Import as i32
            }
            Role::Definition(kind) => {
                let symbol = match exporter.definition_symbol(file, &names, id) {
                    Some(symbol) => {
                        if let Some(&i) = globals.by_start.get(&occurrence.range.start()) {
                            named_definitions[i as usize] = true;
                            if !defined.contains_key(&symbol) {
                                defined.insert(symbol.clone(), Ok(i));
                                defined_order.push(symbol.clone());
                            }
                        }
                        Some(symbol)
                    }
                    None => {
                        let symbol =
                            exporter.binding_symbol(file, &names, occurrence.scope, names.name(id));
                        // A name bound again (`x = x + 1`) is defined where it is first
                        // bound; later bindings write it.
                        if let Some(symbol) = &symbol {
                            if defined.contains_key(symbol) {
                                found.push(symbol.clone());
                                for symbol in found.drain(..) {
                                    occurrences.push((occurrence.range, symbol, 0));
                                }
                                continue;
                            }
                            defined.insert(symbol.clone(), Err(kind));
                            defined_order.push(symbol.clone());
                        }
                        symbol
                    }
                };
                found.extend(symbol);
                SymbolRole::Definition as i32
            }
            Role::MemberDefinition => {
                if let Some(symbol) = exporter.definition_symbol(file, &names, id) {
                    if let Some(&i) = globals.by_start.get(&occurrence.range.start()) {
                        named_definitions[i as usize] = true;
                        if !defined.contains_key(&symbol) {
                            defined.insert(symbol.clone(), Ok(i));
                            defined_order.push(symbol.clone());
                        }
                    }
                    found.push(symbol);
                    SymbolRole::Definition as i32
                } else {
                    let resolution = exporter.resolver.resolve(file, id);
                    let mut defines = false;
                    if !resolution.heuristic {
                        for target in &resolution.targets {
                            defines |= exporter.target_symbols(target, &mut found, Some(id));
                        }
                    }
                    match defines {
                        true => {
                            for symbol in &found {
                                if !defined.contains_key(symbol) {
                                    defined.insert(symbol.clone(), Err(BindingKind::Variable));
                                    defined_order.push(symbol.clone());
                                }
                            }
                            SymbolRole::Definition as i32
                        }
                        false => 0,
                    }
                }
            }
            Role::Read
            | Role::Call
            | Role::Type
            | Role::Member
            | Role::MemberCall
            | Role::MemberType
            | Role::Write => {
                let resolution = exporter.resolver.resolve(file, id);
                if resolution.heuristic {
                    continue;
                }
                for target in &resolution.targets {
                    exporter.target_symbols(target, &mut found, None);
                }
                0
            }
            Role::Global
            | Role::Nonlocal
            | Role::DocReference
            | Role::DocType
            | Role::SuperReference
            | Role::KeywordArgument
            | Role::SelfReference => continue,
        };
        for symbol in found.drain(..) {
            occurrences.push((occurrence.range, symbol, roles));
        }
    }
    if is_module_file(file.lang(db).info().family) {
        // The file is a module: defined where it starts, as the reference indexers do, so a
        // reader can go to the module an import names.
        let symbol = Sym::Global(globals.namespace.clone());
        if !defined.contains_key(&symbol) {
            defined.insert(symbol.clone(), Err(BindingKind::Module));
            defined_order.push(symbol.clone());
        }
        occurrences.push((
            TextRange::empty(TextSize::from(0)),
            symbol,
            SymbolRole::Definition as i32,
        ));
    }
    if matches!(file.lang(db).info().family, Family::Ecma { .. }) {
        for (range, module) in module_strings(db, exporter.resolver.workspace(), file, &symbols) {
            let namespace = exporter.globals(module).namespace.clone();
            occurrences.push((range, Sym::Global(namespace), 0));
        }
    }
    // Definitions no binding names (fields of a type, members of an interface).
    for (i, summary) in symbols.summaries.iter().enumerate() {
        if named_definitions[i] || summary.kind == SymbolKind::Impl {
            continue;
        }
        let symbol = match &globals.symbols[i] {
            Some(symbol) => Sym::Global(symbol.clone()),
            None => Sym::Local(u64::MAX - i as u64, summary.name.as_str().into()),
        };
        if !defined.contains_key(&symbol) {
            defined.insert(symbol.clone(), Ok(i as u32));
            defined_order.push(symbol.clone());
        }
        occurrences.push((
            symbols.positions[i].name_range,
            symbol,
            SymbolRole::Definition as i32,
        ));
    }
    occurrences.sort_by_key(|(range, _, roles)| (range.start(), range.end(), -roles));
    // Locals are numbered in the order of their first occurrence.
    let mut locals: HashMap<Sym, usize> = HashMap::new();
    let mut name = |symbol: &Sym| -> String {
        match symbol {
            Sym::Global(symbol) => symbol.clone(),
            Sym::Local(..) => {
                let next = locals.len();
                format!("local {}", locals.entry(symbol.clone()).or_insert(next))
            }
        }
    };
    let mut document = Document {
        language: language_name(&file.lang(db).info().id),
        relative_path: match root {
            "" => file.path(db).clone(),
            root => file.path(db)[root.len() + 1..].to_string(),
        },
        position_encoding: EnumOrUnknown::new(PositionEncoding::UTF16CodeUnitOffsetFromLineStart),
        ..Default::default()
    };
    // Sorted by range and roles, an occurrence's duplicates are in its run of equal ones
    // (a few at most). Distinct symbols have distinct names, so one is skipped by its
    // symbol, and a duplicate, named after its first, numbers no local.
    let mut run_start = 0;
    for (i, (range, symbol, roles)) in occurrences.iter().enumerate() {
        let (run_range, _, run_roles) = &occurrences[run_start];
        if (run_range, run_roles) != (range, roles) {
            run_start = i;
        }
        if occurrences[run_start..i]
            .iter()
            .any(|(_, s, _)| s == symbol)
        {
            continue;
        }
        let symbol = name(symbol);
        document.occurrences.push(Occurrence {
            range: scip_range(&index, *range),
            symbol,
            symbol_roles: *roles,
            ..Default::default()
        });
    }
    let mut information: BTreeMap<String, SymbolInformation> = BTreeMap::new();
    for symbol in &defined_order {
        let text = name(symbol);
        let info = match defined[symbol] {
            Ok(i) => {
                let summary = &symbols.summaries[i as usize];
                SymbolInformation {
                    symbol: text.clone(),
                    kind: EnumOrUnknown::new(symbol_kind(summary.kind)),
                    display_name: summary.name.to_string(),
                    documentation: docs
                        .get(i as usize)
                        .cloned()
                        .flatten()
                        .into_iter()
                        .collect(),
                    relationships: relationships(&mut exporter, &names, &symbols, i as usize),
                    ..Default::default()
                }
            }
            Err(kind) => SymbolInformation {
                symbol: text.clone(),
                kind: EnumOrUnknown::new(binding_kind(kind)),
                display_name: match symbol {
                    // The module the file is: its file name (the symbol ends in the path).
                    Sym::Global(global) if *global == globals.namespace => file
                        .path(db)
                        .rsplit('/')
                        .next()
                        .unwrap_or_default()
                        .to_string(),
                    Sym::Global(_) | Sym::Local(..) => symbol_display_name(symbol),
                },
                ..Default::default()
            },
        };
        information.entry(text).or_insert(info);
    }
    document.symbols = information.into_values().collect();
    document
}

/// Whether a file of this family is a module of its own, which imports name by its path.
fn is_module_file(family: Family) -> bool {
    match family {
        Family::Python | Family::Ecma { .. } => true,
        // A Go package is a directory; a Rust module is named by a `mod` item, whose
        // definition the file has already.
        Family::Go | Family::Rust => false,
    }
}

/// The module strings of `file`'s import and export statements (`from './x'`, quotes
/// included) that name a workspace file, with that file; each string once.
fn module_strings(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    symbols: &FileSymbols,
) -> Vec<(TextRange, SourceFile)> {
    let text = file.text(db);
    let imports = &symbols.imports;
    let mut found: Vec<(TextRange, SourceFile)> = Vec::new();
    for (import, statement) in imports.summaries.iter().zip(imports.statements.iter()) {
        let Some(written) = text.get(usize::from(statement.start())..usize::from(statement.end()))
        else {
            continue;
        };
        // The summary keeps the module without its quotes: find it quoted in the statement
        // (the last such string; names before `from` are not quoted).
        let at = ['\'', '"', '`'].into_iter().find_map(|quote| {
            written
                .rfind(&format!("{quote}{}{quote}", import.module))
                .map(|at| (at, import.module.len() + 2))
        });
        let Some((at, len)) = at else {
            continue;
        };
        let start = statement.start() + TextSize::try_from(at).unwrap_or_default();
        let range = TextRange::at(start, TextSize::try_from(len).unwrap_or_default());
        if found.iter().any(|(r, _)| *r == range) {
            continue;
        }
        let bare = ImportSummary {
            module: import.module.clone(),
            ..ImportSummary::default()
        };
        if let imports::Target::Resolved { file: module, .. } =
            imports::resolve(db, workspace, file, &bare)
        {
            found.push((range, module));
        }
    }
    found
}

fn symbol_display_name(symbol: &Sym) -> String {
    match symbol {
        Sym::Local(_, name) => name.to_string(),
        Sym::Global(symbol) => {
            let trimmed = symbol.trim_end_matches(['.', '#', '/', '(', ')', '!']);
            let last = trimmed
                .rsplit(['.', '#', '/', ' '])
                .next()
                .unwrap_or(trimmed);
            last.trim_matches('`').replace("``", "`")
        }
    }
}

/// What the definition `index` implements or overrides, one level up: its bases and
/// implemented traits or interfaces for a type, the methods it overrides for a method.
fn relationships(
    exporter: &mut Exporter,
    names: &FileNames,
    symbols: &FileSymbols,
    index: usize,
) -> Vec<Relationship> {
    let kind = symbols.summaries[index].kind;
    let is_type = matches!(
        kind,
        SymbolKind::Class
            | SymbolKind::Struct
            | SymbolKind::Enum
            | SymbolKind::Interface
            | SymbolKind::Trait
            | SymbolKind::Union
            | SymbolKind::Type
    );
    if !is_type && !is_function(kind) {
        return Vec::new();
    }
    let start = symbols.positions[index].name_range.start();
    let Some(occurrence) = names
        .at_offset(usize::from(start))
        .filter(|&o| names.occurrence(o).range.start() == start)
    else {
        return Vec::new();
    };
    let file = exporter.file;
    let Some(subject) = subject_of_definition(&mut exporter.resolver, file, occurrence) else {
        return Vec::new();
    };
    let mut sites: Vec<(SourceFile, OccurrenceId)> = Vec::new();
    match subject {
        Subject::Type(node) => {
            for &base in exporter.direct_supertypes(node).iter() {
                if let TypeNode::Type { file, occurrence } = base {
                    push_unique(&mut sites, (file, occurrence));
                }
            }
        }
        Subject::Method { owner, name, .. } => {
            for &base in exporter.direct_supertypes(owner).iter() {
                for site in methods_of(&mut exporter.resolver, base, &name) {
                    push_unique(&mut sites, site);
                }
            }
        }
    }
    let mut found: Vec<String> = Vec::new();
    for (site_file, site) in sites {
        let site_names = exporter.resolver.names(site_file);
        if let Some(Sym::Global(symbol)) = exporter.definition_symbol(site_file, &site_names, site)
        {
            push_unique(&mut found, symbol);
        }
    }
    found.sort();
    found
        .into_iter()
        .map(|symbol| Relationship {
            symbol,
            is_implementation: true,
            ..Default::default()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_index_written_field_by_field_is_the_index_encoded_whole() {
        use protobuf::Message as _;
        let request = ScipRequest {
            tool_version: "1".into(),
            arguments: vec!["scip".into()],
            project_root: "file:///ws".into(),
        };
        let documents: Vec<Document> = ["a.py", "b/c.ts"]
            .into_iter()
            .map(|path| Document {
                relative_path: path.into(),
                occurrences: vec![Occurrence {
                    range: vec![0, 4, 9],
                    symbol: format!("scip-python python ws 1 `{path}`/f()."),
                    symbol_roles: SymbolRole::Definition as i32,
                    ..Default::default()
                }],
                ..Default::default()
            })
            .collect();
        let whole = scip::types::Index {
            metadata: MessageField::some(metadata(&request)),
            documents: documents.clone(),
            ..Default::default()
        }
        .write_to_bytes()
        .unwrap();
        let mut streamed = Vec::new();
        let mut writer = IndexWriter::new(&mut streamed, &request);
        for document in &documents {
            writer.document(&EncodedDocument::new(document));
        }
        let written = writer.finish().unwrap();
        assert_eq!(streamed, whole);
        assert_eq!(
            written,
            ScipExport {
                documents: 2,
                occurrences: 2,
                symbols: 0,
                bytes: whole.len() as u64,
            }
        );
    }

    #[test]
    fn names_are_escaped_by_the_grammar() {
        assert_eq!(escape_name("area"), "area");
        assert_eq!(escape_name("a$b-c+d_1"), "a$b-c+d_1");
        assert_eq!(escape_name("src/a.ts"), "`src/a.ts`");
        assert_eq!(escape_name("we`ird"), "`we``ird`");
        assert_eq!(escape_name(""), "``");
        assert_eq!(package_field("my pkg"), "my  pkg");
        assert_eq!(package_field(""), ".");
    }

    #[test]
    fn descriptors_follow_the_kind() {
        assert_eq!(descriptor("Shape", SymbolKind::Class), "Shape#");
        assert_eq!(descriptor("area", SymbolKind::Method), "area().");
        assert_eq!(descriptor("m", SymbolKind::Module), "m/");
        assert_eq!(descriptor("x", SymbolKind::Field), "x.");
        assert_eq!(descriptor("vec", SymbolKind::Macro), "vec!");
    }
}
