//! The language registry: everything sextant knows about a language, as data.
//!
//! Invariant: language knowledge comes from `grammars/languages.toml` and
//! `queries/<lang>/*.scm`, both embedded at compile time. Queries are compiled once per
//! process, on first use. This layer knows nothing of files or salsa.

mod family;
mod grammars;
mod kinds;
mod roots;
mod scopes;
mod splice;

pub use family::Family;
pub use kinds::KindGraph;
pub use roots::PatternRoots;
pub use scopes::{NodeKindSet, ScopeFilter};

/// The node kinds of a language that hold text rather than code (`comments`, `strings` and
/// `interpolations` in `grammars/languages.toml`).
#[derive(Debug, Clone, Default)]
pub struct TextRegions {
    pub comments: NodeKindSet,
    pub strings: NodeKindSet,
    /// Code inside a string (`{x}` in `f"{x}"`, `${x}` in a template): code again.
    pub interpolations: NodeKindSet,
}

use std::{collections::BTreeMap, path::Path, sync::OnceLock};

use serde::Deserialize;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/embedded_queries.rs"));
}

const REGISTRY_TOML: &str = include_str!("../../grammars/languages.toml");

/// A small copyable handle on a registered language, cheap to store in salsa inputs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LangId(u16);

impl LangId {
    pub fn info(self) -> &'static Language {
        &registry().languages[self.0 as usize]
    }
}

/// The queries a language may ship; each is one file `queries/<lang>/<name>.scm`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum QueryKind {
    /// Definitions (symbols) and their names.
    Tags,
    /// Import statements: what each names (see `semantic/imports/`).
    Imports,
    /// Scopes, bindings and the names each scope uses (see `semantic/names/`). Run apart
    /// from the per-file query, only for files a name question reaches.
    Locals,
    /// Indentation and the tokens a layout formatter must leave verbatim (see
    /// `semantic/format.rs`). Run apart from the per-file query, only when formatting.
    Indents,
    /// The bodies a skeleton elides (see `engine/skeleton.rs`). Run apart from the per-file
    /// query, only when a skeleton is asked for.
    Skeleton,
    /// Not a file: the per-file queries above composed into one (tags first, then imports),
    /// so that one walk of a file's tree serves them all. A match's pattern index tells
    /// which part it belongs to (see [`Language::per_file_parts`]).
    PerFile,
}

impl QueryKind {
    pub const ALL: &[QueryKind] = &[
        QueryKind::Tags,
        QueryKind::Imports,
        QueryKind::Locals,
        QueryKind::Indents,
        QueryKind::Skeleton,
    ];

    pub fn file_stem(self) -> &'static str {
        match self {
            QueryKind::Tags => "tags",
            QueryKind::Imports => "imports",
            QueryKind::Locals => "locals",
            QueryKind::Indents => "indents",
            QueryKind::Skeleton => "skeleton",
            QueryKind::PerFile => "per-file",
        }
    }

    /// The user-facing capability a query provides.
    pub fn capability(self) -> &'static str {
        match self {
            QueryKind::Tags => "symbols",
            QueryKind::Imports => "imports",
            QueryKind::Locals => "names",
            QueryKind::Indents => "format",
            QueryKind::Skeleton => "skeleton",
            QueryKind::PerFile => "",
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LanguageSpec {
    id: String,
    name: String,
    grammar: String,
    extensions: Vec<String>,
    shebangs: Vec<String>,
    line_comment: Vec<String>,
    block_comment: Vec<(String, String)>,
    identifier: String,
    indent_unit: String,
    family: Family,
    keywords: Vec<String>,
    #[serde(default)]
    scopes: Vec<String>,
    comments: Vec<String>,
    strings: Vec<String>,
    #[serde(default)]
    interpolations: Vec<String>,
    #[serde(default = "one_blank_line")]
    max_blank_lines: usize,
    #[serde(default)]
    attached: Vec<String>,
    #[serde(default)]
    wrappers: Vec<String>,
    #[serde(default)]
    aliases: BTreeMap<String, String>,
}

fn one_blank_line() -> usize {
    1
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RegistrySpec {
    language: Vec<LanguageSpec>,
}

/// One language: its grammar, its syntax facts and its compiled queries.
pub struct Language {
    pub lang_id: LangId,
    pub id: String,
    pub name: String,
    pub extensions: Vec<String>,
    pub shebangs: Vec<String>,
    pub line_comment: Vec<String>,
    pub block_comment: Vec<(String, String)>,
    pub identifier: regex::Regex,
    pub indent_unit: String,
    /// The longest run of blank lines the formatter keeps.
    pub max_blank_lines: usize,
    /// Which Rust code the language gets where its queries say too little.
    pub family: Family,
    pub keywords: Vec<String>,
    pub grammar: tree_sitter::Language,
    /// The grammar's `node-types.json`, read (into `kind_graph`) on first use, with the
    /// kinds it names without describing and what they are aliases of.
    node_types: &'static str,
    kind_aliases: Vec<(String, String)>,
    kind_graph: OnceLock<Option<KindGraph>>,
    /// Node kinds that open a scope, for the `#scope?` predicate (see `scopes.rs`).
    pub scopes: NodeKindSet,
    /// Node kinds just before a definition that belong to it (decorators, attributes),
    /// besides the comments right above it.
    pub attached: NodeKindSet,
    /// Node kinds that wrap a definition and belong to it (`export`, a decorated
    /// definition).
    pub wrappers: NodeKindSet,
    /// Node kinds of comments and strings, for searches restricted to code or text.
    pub text_regions: TextRegions,
    query_sources: BTreeMap<QueryKind, String>,
    compiled: BTreeMap<QueryKind, OnceLock<Result<CompiledQuery, String>>>,
    roots: BTreeMap<QueryKind, OnceLock<Option<PatternRoots>>>,
}

impl std::fmt::Debug for Language {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Language")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

/// A query, and where its patterns hold when it uses `#scope?`.
struct CompiledQuery {
    /// Every pattern enabled, `#scope?` or not: run it through `syntax::run_query`, which
    /// keeps a scoped pattern's matches only where it holds.
    query: tree_sitter::Query,
    scoped: Option<ScopeFilter>,
}

impl Language {
    /// The compiled query of this kind, if the language ships one. Compiled on first use.
    /// An embedded query that fails to compile is a bug caught by the test suite; at run
    /// time it makes the capability unavailable rather than failing the process.
    ///
    /// Its `#scope?` patterns are enabled everywhere: run it through `syntax::run_query`,
    /// which starts each pattern only in the scopes it names.
    pub fn query(&self, kind: QueryKind) -> Option<&tree_sitter::Query> {
        self.compiled(kind).map(|c| &c.query)
    }

    /// Where the scoped patterns of the query hold; `None` when it uses no `#scope?`.
    pub fn query_scope_filter(&self, kind: QueryKind) -> Option<&ScopeFilter> {
        self.compiled(kind)?.scoped.as_ref()
    }

    fn compiled(&self, kind: QueryKind) -> Option<&CompiledQuery> {
        let source = self.query_sources.get(&kind)?;
        let cell = self.compiled.get(&kind)?;
        cell.get_or_init(|| {
            let compile = || tree_sitter::Query::new(&self.grammar, source);
            // A query using `#scope?` needs a second copy (see `scopes.rs`): compiled at the
            // same time, on another core.
            let (query, copy) = if source.contains("#scope?") {
                std::thread::scope(|s| {
                    let copy = s.spawn(compile);
                    (compile(), copy.join().ok())
                })
            } else {
                (compile(), None)
            };
            let query = query.map_err(|e| e.to_string())?;
            let scoped = match copy {
                Some(copy) => scopes::scope_filter(
                    &self.grammar,
                    &query,
                    copy.map_err(|e| e.to_string())?,
                    source,
                    &self.scopes,
                    roots::rooted_at_named_kind,
                )?,
                None => None,
            };
            if scoped.is_some() && roots::pattern_roots(&self.grammar, &query, source).is_none() {
                return Err(
                    "a query using #scope? must have every pattern rooted at a named \
                            node kind (see src/lang/roots.rs)"
                        .to_string(),
                );
            }
            Ok(CompiledQuery { query, scoped })
        })
        .as_ref()
        .ok()
    }

    /// The node kinds where the query's patterns start, when they can be known (see
    /// `roots.rs`), and which kinds can hold them; `None` means the whole tree must be
    /// searched.
    pub fn query_roots(&self, kind: QueryKind) -> Option<&PatternRoots> {
        let query = self.query(kind)?;
        let source = self.query_sources.get(&kind)?;
        self.roots
            .get(&kind)?
            .get_or_init(|| {
                let roots = roots::pattern_roots(&self.grammar, query, source)?;
                // The locals query's roots include `identifier`, which nearly every kind can
                // hold: over the standard library its walk would still enter 7,391,371 of
                // 7,476,553 nodes. It walks every node (docs/performance.md).
                Some(match kind {
                    QueryKind::Locals => roots,
                    _ => roots.held_by(self.kind_graph()),
                })
            })
            .as_ref()
    }

    /// Which node kinds may hold which (`kinds.rs`); `None` if the grammar's
    /// `node-types.json` cannot be read (a test holds that every one can), and then every
    /// kind may hold any.
    pub fn kind_graph(&self) -> Option<&KindGraph> {
        self.kind_graph
            .get_or_init(|| KindGraph::new(&self.grammar, self.node_types, &self.kind_aliases).ok())
            .as_ref()
    }

    /// The number of patterns of the per-file query that come from `tags.scm`: a match of
    /// [`QueryKind::PerFile`] with a lower pattern index is a tags match (with the same index
    /// as in the tags query), any other an imports match.
    pub fn per_file_parts(&self) -> usize {
        // From the per-file query's pattern offsets: compiling the tags query on its own
        // just to count its patterns costs as much as compiling the per-file query.
        let (Some(query), Some(tags)) = (
            self.query(QueryKind::PerFile),
            self.query_sources.get(&QueryKind::Tags),
        ) else {
            return 0;
        };
        (0..query.pattern_count())
            .take_while(|&i| query.start_byte_for_pattern(i) < tags.len())
            .count()
    }

    /// Compiles the query (if any) and returns the compile error, for tests and diagnostics.
    pub fn query_error(&self, kind: QueryKind) -> Option<String> {
        self.query(kind);
        self.compiled.get(&kind)?.get()?.as_ref().err().cloned()
    }

    /// The query source as compiled: the language's own file followed by any inherited ones,
    /// fragments spliced (see `splice.rs`).
    pub fn query_source(&self, kind: QueryKind) -> Option<&str> {
        self.query_sources.get(&kind).map(String::as_str)
    }

    /// User-facing capabilities: always `syntax`, plus one per shipped query.
    pub fn capabilities(&self) -> Vec<&'static str> {
        let mut caps = vec!["syntax"];
        caps.extend(
            QueryKind::ALL
                .iter()
                .filter(|k| self.query_sources.contains_key(k))
                .map(|k| k.capability()),
        );
        caps
    }

    /// The identifier pattern as the registry writes it (unanchored).
    pub fn identifier_pattern(&self) -> String {
        let anchored = self.identifier.as_str();
        anchored
            .strip_prefix("^(?:")
            .and_then(|p| p.strip_suffix(")$"))
            .unwrap_or(anchored)
            .to_string()
    }

    pub fn is_identifier(&self, text: &str) -> bool {
        self.identifier.is_match(text)
    }

    pub fn is_keyword(&self, text: &str) -> bool {
        self.keywords.iter().any(|k| k == text)
    }

    /// How the language's imports name other files (its family's).
    pub fn import_style(&self) -> &'static str {
        self.family.import_style()
    }
}

pub struct Registry {
    languages: Vec<Language>,
}

impl Registry {
    pub fn all(&self) -> impl Iterator<Item = &Language> {
        self.languages.iter()
    }

    pub fn by_id(&self, id: &str) -> Option<&Language> {
        self.languages
            .iter()
            .find(|l| l.id.eq_ignore_ascii_case(id))
    }

    pub fn ids(&self) -> Vec<&str> {
        self.languages.iter().map(|l| l.id.as_str()).collect()
    }

    /// The language of a file, from its extension, or for an extensionless file from the
    /// interpreter named on its shebang line (`first_line`, when the caller has it).
    pub fn for_path(&self, path: &Path, first_line: Option<&[u8]>) -> Option<&Language> {
        if let Some(ext) = path.extension().and_then(|e| e.to_str()) {
            return self
                .languages
                .iter()
                .find(|l| l.extensions.iter().any(|e| e == ext));
        }
        let interpreter = shebang_interpreter(first_line?)?;
        self.languages
            .iter()
            .find(|l| l.shebangs.iter().any(|s| s == interpreter))
    }

    /// True when a file with this path could only be classified by its shebang.
    pub fn needs_shebang(path: &Path) -> bool {
        path.extension().is_none()
    }
}

/// `#!/usr/bin/env -S python3 -u` → `python3`; `#!/usr/bin/node` → `node`.
fn shebang_interpreter(first_line: &[u8]) -> Option<&str> {
    let line = std::str::from_utf8(first_line.strip_prefix(b"#!")?).ok()?;
    let line = line.lines().next()?;
    let mut words = line.split_whitespace();
    let mut program = words.next()?.rsplit('/').next()?;
    if program == "env" {
        program = words.find(|w| !w.starts_with('-'))?;
    }
    Some(program)
}

/// The names a word list under `grammars/` holds (one per line; `#` comments and blank
/// lines left out): the standard library's modules, builtins, Node's built-in modules.
pub fn word_list(text: &'static str) -> std::collections::HashSet<&'static str> {
    text.lines()
        .filter(|l| !l.starts_with('#') && !l.is_empty())
        .collect()
}

pub fn registry() -> &'static Registry {
    static REGISTRY: OnceLock<Registry> = OnceLock::new();
    REGISTRY.get_or_init(|| {
        build_registry(REGISTRY_TOML).expect("embedded grammars/languages.toml is valid")
    })
}

/// The registry `text` (a `languages.toml`) describes; an unknown key or family is refused.
fn build_registry(text: &str) -> Result<Registry, String> {
    let spec: RegistrySpec = toml::from_str(text).map_err(|e| e.to_string())?;
    let mut languages = Vec::new();
    for (index, lang) in spec.language.into_iter().enumerate() {
        let (grammar, node_types) = grammars::grammar(&lang.grammar)
            .ok_or_else(|| format!("language {}: unknown grammar {:?}", lang.id, lang.grammar))?;
        let identifier = regex::Regex::new(&format!("^(?:{})$", lang.identifier))
            .map_err(|e| format!("language {}: identifier pattern: {e}", lang.id))?;
        let kinds = |field: &str, names: &[String]| {
            NodeKindSet::new(&grammar, names)
                .map_err(|e| format!("language {}: {field}: {e}", lang.id))
        };
        let scopes = kinds("scopes", &lang.scopes)?;
        let attached = kinds("attached", &lang.attached)?;
        let wrappers = kinds("wrappers", &lang.wrappers)?;
        let text_regions = TextRegions {
            comments: kinds("comments", &lang.comments)?,
            strings: kinds("strings", &lang.strings)?,
            interpolations: kinds("interpolations", &lang.interpolations)?,
        };
        let mut query_sources = BTreeMap::new();
        let mut compiled = BTreeMap::new();
        let mut roots = BTreeMap::new();
        for &kind in QueryKind::ALL {
            if let Some(composed) = compose_query(&lang.id, kind, 0)? {
                query_sources.insert(kind, composed.text);
                compiled.insert(kind, OnceLock::new());
                roots.insert(kind, OnceLock::new());
            }
        }
        if let Some(tags) = query_sources.get(&QueryKind::Tags) {
            let mut per_file = tags.clone();
            if let Some(imports) = query_sources.get(&QueryKind::Imports) {
                per_file.push('\n');
                per_file.push_str(imports);
            }
            query_sources.insert(QueryKind::PerFile, per_file);
            compiled.insert(QueryKind::PerFile, OnceLock::new());
            roots.insert(QueryKind::PerFile, OnceLock::new());
        }
        languages.push(Language {
            lang_id: LangId(index as u16),
            id: lang.id,
            name: lang.name,
            extensions: lang.extensions,
            shebangs: lang.shebangs,
            line_comment: lang.line_comment,
            block_comment: lang.block_comment,
            identifier,
            indent_unit: lang.indent_unit,
            max_blank_lines: lang.max_blank_lines,
            family: lang.family,
            keywords: lang.keywords,
            grammar,
            node_types,
            kind_aliases: lang.aliases.into_iter().collect(),
            kind_graph: OnceLock::new(),
            scopes,
            attached,
            wrappers,
            text_regions,
            query_sources,
            compiled,
            roots,
        });
    }
    Ok(Registry { languages })
}

fn embedded_query(lang: &str, kind: QueryKind) -> Option<&'static str> {
    embedded::EMBEDDED_QUERIES
        .iter()
        .find(|(l, name, _)| *l == lang && *name == kind.file_stem())
        .map(|(_, _, src)| *src)
}

/// A query file as compiled: its own patterns, then its inherited files' (see
/// [`compose_query`]), with every splice expanded; and the fragments it may splice.
struct Composed {
    text: String,
    fragments: splice::Fragments,
}

/// A query file may start with `; inherits: javascript` (comma-separated ids): the inherited
/// files' patterns are appended after its own, so its own patterns take precedence (the
/// earliest pattern wins when several capture the same node). It may also name fragments
/// (`; define NAME` … `; end`) and splice them (`(#splice! NAME)`, see `splice.rs`); a file
/// may splice its own fragments and those of the files it inherits.
fn compose_query(lang: &str, kind: QueryKind, depth: usize) -> Result<Option<Composed>, String> {
    let Some(own) = embedded_query(lang, kind) else {
        return Ok(None);
    };
    let file = format!("queries/{lang}/{}.scm", kind.file_stem());
    if depth > 8 {
        return Err(format!("{file}: inheritance too deep (a cycle?)"));
    }
    let (own_patterns, mut fragments) = splice::take_fragments(&file, own)?;
    let inherits = own
        .lines()
        .take_while(|l| l.starts_with(';'))
        .find_map(|l| l.trim_start_matches(';').trim().strip_prefix("inherits:"));
    let mut inherited_text = String::new();
    for parent in inherits
        .into_iter()
        .flat_map(|list| list.split(','))
        .map(str::trim)
    {
        let inherited = compose_query(parent, kind, depth + 1)?
            .ok_or_else(|| format!("{file} inherits from {parent:?}, which has no such file"))?;
        for (name, body) in inherited.fragments {
            if fragments.contains_key(&name) {
                return Err(format!("{file}: {name:?} is also defined by {parent:?}"));
            }
            fragments.insert(name, body);
        }
        inherited_text.push('\n');
        inherited_text.push_str(&inherited.text);
    }
    let mut text = splice::expand(&file, &own_patterns, &fragments)?;
    text.push_str(&inherited_text);
    Ok(Some(Composed { text, fragments }))
}

/// Every embedded query file, including ones for kinds or languages the registry does not
/// know (so a test can flag them).
pub fn embedded_query_files() -> &'static [(&'static str, &'static str, &'static str)] {
    embedded::EMBEDDED_QUERIES
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shebangs() {
        assert_eq!(
            shebang_interpreter(b"#!/usr/bin/env python3\n"),
            Some("python3")
        );
        assert_eq!(
            shebang_interpreter(b"#!/usr/bin/env -S node --foo"),
            Some("node")
        );
        assert_eq!(shebang_interpreter(b"#!/usr/bin/python"), Some("python"));
        assert_eq!(shebang_interpreter(b"# not a shebang"), None);
    }

    #[test]
    fn identifiers_and_keywords_follow_the_registry() {
        let r = registry();
        let python = r.by_id("python").unwrap();
        let rust = r.by_id("rust").unwrap();
        let go = r.by_id("go").unwrap();
        let verdicts: Vec<(bool, bool)> = ["naïve_name", "2fast", "x-y", "class", ""]
            .iter()
            .map(|t| (python.is_identifier(t), python.is_keyword(t)))
            .collect();
        assert_eq!(
            verdicts,
            [
                (true, false),
                (false, false),
                (false, false),
                (true, true),
                (false, false)
            ]
        );
        assert!(rust.is_keyword("fn") && !python.is_keyword("fn"));
        assert!(go.is_keyword("func") && !go.is_keyword("fn"));
    }

    #[test]
    fn extensions_resolve() {
        let r = registry();
        for (file, lang) in [
            ("a.rs", "rust"),
            ("a.py", "python"),
            ("a.pyi", "python"),
            ("a.mjs", "javascript"),
            ("a.cjs", "javascript"),
            ("a.jsx", "javascript"),
            ("a.ts", "typescript"),
            ("a.mts", "typescript"),
            ("a.cts", "typescript"),
            ("a.tsx", "tsx"),
            ("a.go", "go"),
        ] {
            assert_eq!(
                r.for_path(Path::new(file), None).map(|l| l.id.as_str()),
                Some(lang)
            );
        }
        assert!(r.for_path(Path::new("a.txt"), None).is_none());
        let script = r.for_path(Path::new("bin/tool"), Some(b"#!/usr/bin/env python3"));
        assert_eq!(script.map(|l| l.id.as_str()), Some("python"));
    }

    #[test]
    fn unknown_families_are_refused_at_load() {
        let cobol = REGISTRY_TOML.replacen("family = \"go\"", "family = \"cobol\"", 1);
        let refused = build_registry(&cobol)
            .err()
            .expect("an unknown family is refused");
        assert!(
            refused.contains("unknown language family \"cobol\""),
            "{refused}"
        );
        // The import style follows from the family; the registry does not say it apart.
        let styled = REGISTRY_TOML.replacen(
            "family = \"go\"",
            "family = \"go\"\nimport_style = \"go-package\"",
            1,
        );
        let refused = build_registry(&styled)
            .err()
            .expect("import_style is refused");
        assert!(
            refused.contains("unknown field `import_style`"),
            "{refused}"
        );
    }

    #[test]
    fn families_follow_the_registry() {
        let family = |id| registry().by_id(id).unwrap().family;
        assert_eq!(family("python"), Family::Python);
        assert_eq!(family("javascript"), Family::JAVASCRIPT);
        assert_eq!(family("typescript"), Family::TYPESCRIPT);
        assert_eq!(family("tsx"), Family::TYPESCRIPT);
        assert_eq!(family("go"), Family::Go);
        assert_eq!(family("rust"), Family::Rust);
    }

    #[test]
    fn tags_queries_have_known_pattern_roots() {
        // The fast path of symbol extraction (see roots.rs).
        for lang in registry().all() {
            assert!(lang.query_roots(QueryKind::Tags).is_some(), "{}", lang.id);
        }
    }

    #[test]
    fn the_per_file_query_starts_with_the_tags_patterns() {
        for lang in registry().all() {
            let tags = lang.query(QueryKind::Tags).unwrap().pattern_count();
            assert_eq!(lang.per_file_parts(), tags, "{}", lang.id);
            let imports = lang
                .query(QueryKind::Imports)
                .map_or(0, |q| q.pattern_count());
            let per_file = lang.query(QueryKind::PerFile).unwrap().pattern_count();
            assert_eq!(per_file, tags + imports, "{}", lang.id);
        }
    }

    #[test]
    fn every_embedded_query_compiles_and_belongs_to_a_language() {
        let r = registry();
        for (lang, name, _) in embedded_query_files() {
            let language = r
                .by_id(lang)
                .unwrap_or_else(|| panic!("queries/{lang}: unknown language"));
            let kind = QueryKind::ALL
                .iter()
                .find(|k| k.file_stem() == *name)
                .unwrap_or_else(|| panic!("queries/{lang}/{name}.scm: unknown query kind"));
            if let Some(err) = language.query_error(*kind) {
                panic!("queries/{lang}/{name}.scm does not compile: {err}");
            }
        }
    }
}
