//! Text search over the database's file texts: ripgrep's matcher and line searcher
//! (`grep-regex`, `grep-searcher`) run on `SourceFile::text`, so a warm database answers
//! without reading the disk.
//!
//! A hit is a line with at least one match of the pattern (in the region asked for, when
//! one is: code, comments or strings, told apart by the file's syntax tree and the node
//! kinds its language lists in `grammars/languages.toml`). The pattern is bounded
//! ([`MAX_PATTERN_BYTES`]) and so is its compiled form ([`REGEX_SIZE_LIMIT`]), so a hostile
//! pattern is refused rather than eating memory; no match crosses a line end.
//!
//! Invariant: answers are in database terms (files, 0-based lines, byte ranges of the
//! file's text); a file's hits come in line order and files are visited in the order
//! [`path_order`] gives, the order `rg --sort path` prints.

use std::{cmp::Ordering, collections::HashSet, ops::Range};

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{Searcher, SearcherBuilder, Sink, SinkMatch};

use crate::{
    db::{Db, SourceFile, Workspace},
    lang::TextRegions,
    semantic::{
        self,
        names::identifiers::{WordCase, identifier_index, is_identifier_part},
        symbols::{SymbolKind, file_symbols},
    },
    syntax::floor_char_boundary,
};

/// The longest pattern accepted, in bytes.
pub const MAX_PATTERN_BYTES: usize = 1000;
/// The most memory a compiled pattern (and, separately, its lazy DFA) may take.
pub const REGEX_SIZE_LIMIT: usize = 4 << 20;
/// The most globs a search takes.
pub const MAX_GLOBS: usize = 32;

/// How the pattern's letters compare with the text's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CaseMode {
    #[default]
    Sensitive,
    Insensitive,
    /// Insensitive unless the pattern has an upper-case letter (ripgrep's `-S`).
    Smart,
}

/// Which part of the code a match must be in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Region {
    /// Outside comments and strings (a string's interpolated code is code).
    Code,
    Comments,
    Strings,
}

/// What to look for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PatternSpec {
    pub pattern: String,
    /// The pattern is a literal text, not a regular expression.
    pub fixed_strings: bool,
    pub case: CaseMode,
    /// Only matches that are whole words.
    pub word: bool,
    pub only: Option<Region>,
}

/// Why a search cannot start.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PatternError {
    #[error("the pattern is {0} bytes; the limit is {MAX_PATTERN_BYTES}")]
    TooLong(usize),
    #[error("invalid regular expression: {0}")]
    InvalidRegex(String),
    #[error("invalid glob {glob:?}: {message}")]
    InvalidGlob { glob: String, message: String },
    #[error("{0} globs; the limit is {MAX_GLOBS}")]
    TooManyGlobs(usize),
}

/// A compiled search: the matcher and the region its matches must be in.
pub struct TextSearch {
    matcher: RegexMatcher,
    only: Option<Region>,
    /// What a file's words must hold for the file to hold a match: for one of these
    /// alternatives, a word starting with each of its runs (see [`words_a_match_starts`]),
    /// compared as [`WordCase`] says. Empty: any file may.
    alternatives: Vec<Vec<String>>,
    case: WordCase,
}

/// For a literal pattern, the one alternative of [`runs_begun_inside`] the pattern; for a
/// regular expression, one per literal every match begins with (or, when those are not
/// known, ends with): each literal is a piece of every match it stands for, so a run begun
/// inside it begins a word of the file too. Empty when some alternative has no run: that
/// alternative says nothing of a file's words.
///
/// A pattern matched without regard to case gives runs only when all its literals are
/// ASCII: then a character of the file it matches is the same ASCII letter in either case,
/// or a letter outside ASCII (the Kelvin sign for `k`, the long s for `s`), which
/// [`WordCase::AsciiFolded`] admits whatever it is. A regular expression is parsed as case
/// sensitive, its literals compared without regard to case unless the search is
/// [`CaseMode::Sensitive`]: smart case decides by letters an escape (`\S`) may hold, and
/// a comparison without regard to case admits a superset.
fn words_a_match_starts(spec: &PatternSpec) -> (Vec<Vec<String>>, WordCase) {
    let case = match spec.case {
        CaseMode::Sensitive => WordCase::Exact,
        CaseMode::Smart if spec.fixed_strings && spec.pattern.chars().any(char::is_uppercase) => {
            WordCase::Exact
        }
        CaseMode::Insensitive | CaseMode::Smart => WordCase::AsciiFolded,
    };
    let literals = match spec.fixed_strings {
        true => vec![spec.pattern.clone()],
        false => literals_of_every_match(&spec.pattern).unwrap_or_default(),
    };
    let mut alternatives = Vec::with_capacity(literals.len());
    for literal in &literals {
        let runs = runs_begun_inside(literal);
        if runs.is_empty() || (case == WordCase::AsciiFolded && !literal.is_ascii()) {
            return (Vec::new(), case);
        }
        alternatives.push(runs);
    }
    (alternatives, case)
}

/// The literals one of which begins every match of `pattern` (a regular expression), or
/// else one of which ends every match; `None` when neither is a finite set of texts.
fn literals_of_every_match(pattern: &str) -> Option<Vec<String>> {
    use regex_syntax::hir::literal::{ExtractKind, Extractor};
    // As the matcher parses it (`multi_line`); what it cannot parse never gets here.
    let hir = regex_syntax::ParserBuilder::new()
        .multi_line(true)
        .build()
        .parse(pattern)
        .ok()?;
    [ExtractKind::Prefix, ExtractKind::Suffix]
        .into_iter()
        .find_map(|kind| {
            let mut extractor = Extractor::new();
            extractor.kind(kind);
            let seq = extractor.extract(&hir);
            let texts: Option<Vec<String>> = seq
                .literals()?
                .iter()
                .map(|literal| {
                    std::str::from_utf8(literal.as_bytes())
                        .ok()
                        .map(str::to_string)
                })
                .collect();
            texts.filter(|texts| !texts.is_empty())
        })
}

/// The runs of identifier characters in `piece` (a piece of a match) that follow another
/// character of it and start with no digit. Wherever the piece is matched, such a run
/// begins a word of the file as `file_identifiers` splits it (after a character that is no
/// identifier's, so the file's run of identifier characters starts there too), so a file
/// none of whose words starts with it holds no match. A run the piece starts with gives
/// nothing: in the file it may continue a word, or a run a digit begins.
fn runs_begun_inside(piece: &str) -> Vec<String> {
    let mut runs = Vec::new();
    let mut previous: Option<char> = None;
    let mut chars = piece.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        let begins = is_identifier_part(c)
            && previous.is_some_and(|p| !is_identifier_part(p))
            && !c.is_numeric();
        if begins {
            let mut end = at + c.len_utf8();
            while let Some(&(next_at, next)) = chars.peek() {
                if !is_identifier_part(next) {
                    break;
                }
                end = next_at + next.len_utf8();
                chars.next();
            }
            runs.push(piece[at..end].to_string());
            previous = piece[..end].chars().next_back();
            continue;
        }
        previous = Some(c);
    }
    runs
}

/// One line with a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineHit {
    /// 0-based line number.
    pub line: u32,
    /// The line's bytes in the file's text, without its line terminator.
    pub range: Range<usize>,
    /// Each match on the line (in the region asked for), as byte ranges of the file's text.
    pub matches: Vec<Range<usize>>,
}

impl TextSearch {
    pub fn new(spec: &PatternSpec) -> Result<TextSearch, PatternError> {
        if spec.pattern.len() > MAX_PATTERN_BYTES {
            return Err(PatternError::TooLong(spec.pattern.len()));
        }
        let mut builder = RegexMatcherBuilder::new();
        builder
            .fixed_strings(spec.fixed_strings)
            .case_insensitive(spec.case == CaseMode::Insensitive)
            .case_smart(spec.case == CaseMode::Smart)
            .word(spec.word)
            .multi_line(true)
            .line_terminator(Some(b'\n'))
            .size_limit(REGEX_SIZE_LIMIT)
            .dfa_size_limit(REGEX_SIZE_LIMIT);
        let matcher = builder
            .build(&spec.pattern)
            .map_err(|e| PatternError::InvalidRegex(e.to_string()))?;
        let (alternatives, case) = words_a_match_starts(spec);
        Ok(TextSearch {
            matcher,
            only: spec.only,
            alternatives,
            case,
        })
    }

    /// The files of `files` that may hold a match, in their order. A compressed text is
    /// read by decompressing it whole: when some are, the identifier index (built by the
    /// background check or a reference search, else here, once) passes over every file
    /// none of whose words a match needs. Texts kept whole are read as cheaply as the index
    /// would be built, so without a compressed one every file is kept.
    pub fn files_worth_reading(
        &self,
        db: &dyn Db,
        workspace: Workspace,
        files: &[SourceFile],
    ) -> Vec<SourceFile> {
        let compressed = |file: &SourceFile| file.stored_text(db).is_compressed();
        if self.alternatives.is_empty() || !files.iter().any(compressed) {
            return files.to_vec();
        }
        let index = identifier_index(db, workspace);
        let mut admitted = HashSet::new();
        for runs in &self.alternatives {
            admitted.extend(index.files_with_words_starting(runs, self.case));
        }
        files
            .iter()
            .copied()
            .filter(|file| admitted.contains(file))
            .collect()
    }

    /// The lines of `file` with a match, in line order; at most `limit` of them.
    pub fn file_hits(&self, db: &dyn Db, file: SourceFile, limit: usize) -> Vec<LineHit> {
        let text = &*file.text(db);
        // A byte-order mark is not text (ripgrep drops it too): searched past, so `^` can
        // match at the start of the first line, with offsets still into the whole text.
        let skipped = if text.starts_with('\u{feff}') { 3 } else { 0 };
        let mut sink = HitSink {
            matcher: &self.matcher,
            text,
            skipped,
            hits: Vec::new(),
            limit: if self.only.is_some() {
                usize::MAX
            } else {
                limit
            },
        };
        // No sniffing of the mark by the searcher: it would transcode and shift offsets.
        let mut searcher = SearcherBuilder::new()
            .line_number(true)
            .bom_sniffing(false)
            .build();
        // Searching a slice reads nothing and the sink never fails: there is no error to
        // report, and the hits found are kept whatever happens.
        let _ = searcher.search_slice(&self.matcher, &text.as_bytes()[skipped..], &mut sink);
        let mut hits = sink.hits;
        if let Some(region) = self.only {
            hits = in_region(db, file, hits, region);
            hits.truncate(limit);
        }
        hits
    }
}

/// Collects each matching line and the matches on it.
struct HitSink<'m> {
    matcher: &'m RegexMatcher,
    text: &'m str,
    /// Bytes of the text before the slice searched.
    skipped: usize,
    hits: Vec<LineHit>,
    limit: usize,
}

impl Sink for HitSink<'_> {
    type Error = std::io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, std::io::Error> {
        let mut start = self.skipped + found.absolute_byte_offset() as usize;
        let first = (found.line_number().unwrap_or(1) as u32).saturating_sub(1);
        for (number, line) in (first..).zip(found.lines()) {
            let content = strip_terminator(line);
            let mut matches = Vec::new();
            let _ = grep_matcher::Matcher::find_iter(self.matcher, content, |m| {
                // A pattern can match bytes inside a character (`(?-u:\xA0)`): widen
                // the match to whole characters, so every range slices the text.
                let from = floor_char_boundary(self.text, start + m.start());
                let mut to = start + m.end();
                while !self.text.is_char_boundary(to) {
                    to += 1;
                }
                matches.push(from..to);
                true
            });
            self.hits.push(LineHit {
                line: number,
                range: start..start + content.len(),
                matches,
            });
            start += line.len();
        }
        Ok(self.hits.len() < self.limit)
    }
}

fn strip_terminator(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\n").unwrap_or(line)
}

/// Keeps the matches in `region` (by the innermost comment, string or interpolation node
/// around each), and the lines that still have one.
fn in_region(db: &dyn Db, file: SourceFile, hits: Vec<LineHit>, region: Region) -> Vec<LineHit> {
    if hits.is_empty() {
        return hits;
    }
    let lang = file.lang(db).info();
    let tree = semantic::file_tree(db, file);
    let region_of = |range: &Range<usize>| match &tree {
        Some(tree) => region_at(tree, &lang.text_regions, range),
        // A file the parser gave up on is all code: nothing is known to be text.
        None => Region::Code,
    };
    hits.into_iter()
        .filter_map(|mut hit| {
            hit.matches.retain(|m| region_of(m) == region);
            (!hit.matches.is_empty()).then_some(hit)
        })
        .collect()
}

/// The region of the bytes `range`: that of the innermost comment, string or interpolation
/// node holding all of them, code when there is none.
fn region_at(tree: &tree_sitter::Tree, kinds: &TextRegions, range: &Range<usize>) -> Region {
    let mut node = tree
        .root_node()
        .descendant_for_byte_range(range.start, range.end);
    while let Some(n) = node {
        let id = n.kind_id();
        if kinds.comments.contains(id) {
            return Region::Comments;
        }
        if kinds.strings.contains(id) {
            return Region::Strings;
        }
        if kinds.interpolations.contains(id) {
            return Region::Code;
        }
        node = n.parent();
    }
    Region::Code
}

/// The innermost definition around a byte offset.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EnclosingSymbol {
    /// Qualified by its containers (`Shape.area`).
    pub name: String,
    pub kind: SymbolKind,
    /// 1-based first and last lines of the whole definition.
    pub start_line: u32,
    pub end_line: u32,
}

/// The innermost definition of `file` whose range holds `offset`.
pub fn enclosing_symbol(db: &dyn Db, file: SourceFile, offset: usize) -> Option<EnclosingSymbol> {
    let symbols = file_symbols(db, file);
    let (summary, position) = symbols
        .summaries
        .iter()
        .zip(symbols.positions.iter())
        .filter(|(_, p)| {
            usize::from(p.range.start()) <= offset && offset < usize::from(p.range.end())
        })
        .min_by_key(|(_, p)| p.range.len())?;
    Some(EnclosingSymbol {
        name: summary.qualified_name(),
        kind: summary.kind,
        start_line: position.start.line,
        end_line: position.end.line,
    })
}

/// Which files a search reads, by path: the `-g` globs of ripgrep. A glob without `/`
/// matches any component of the path (`*.py`, `tests`), one with `/` the path from the
/// root or one of its directories (`src/**/*.rs`, `/docs`); `!glob` excludes. A path must
/// match one of the including globs (when there are any) and none of the excluding ones.
pub struct GlobFilter {
    include: Option<GlobSet>,
    exclude: Option<GlobSet>,
}

impl GlobFilter {
    pub fn new(globs: &[String]) -> Result<GlobFilter, PatternError> {
        if globs.len() > MAX_GLOBS {
            return Err(PatternError::TooManyGlobs(globs.len()));
        }
        let (mut include, mut exclude) = (Vec::new(), Vec::new());
        for written in globs {
            let (list, glob) = match written.strip_prefix('!') {
                Some(rest) => (&mut exclude, rest),
                None => (&mut include, written.as_str()),
            };
            list.push(compile_glob(written, glob)?);
        }
        let set = |globs: Vec<Glob>| -> Result<Option<GlobSet>, PatternError> {
            if globs.is_empty() {
                return Ok(None);
            }
            let mut builder = GlobSetBuilder::new();
            for glob in globs {
                builder.add(glob);
            }
            builder
                .build()
                .map(Some)
                .map_err(|e| PatternError::InvalidGlob {
                    glob: String::new(),
                    message: e.to_string(),
                })
        };
        Ok(GlobFilter {
            include: set(include)?,
            exclude: set(exclude)?,
        })
    }

    /// Whether a search reads the file at `path` (workspace-relative, `/`-separated).
    pub fn admits(&self, path: &str) -> bool {
        let matches = |set: &GlobSet| candidates(path).any(|c| set.is_match(c));
        self.include.as_ref().is_none_or(matches) && !self.exclude.as_ref().is_some_and(matches)
    }
}

fn compile_glob(written: &str, glob: &str) -> Result<Glob, PatternError> {
    let invalid = |message: String| PatternError::InvalidGlob {
        glob: written.to_string(),
        message,
    };
    let glob = glob.trim_end_matches('/');
    if glob.is_empty() {
        return Err(invalid("it is empty".into()));
    }
    // A glob with a slash is anchored at the root; one without matches a component.
    let anchored = match glob.strip_prefix('/') {
        Some(rest) => format!("/{rest}"),
        None if glob.contains('/') => format!("/{glob}"),
        None => glob.to_string(),
    };
    GlobBuilder::new(&anchored)
        .literal_separator(true)
        .build()
        .map_err(|e| invalid(e.kind().to_string()))
}

/// What globs are matched against for `path`: each of its components, and the path of
/// each of its directories and of itself from the root (`/a`, `/a/b`, `/a/b/c.py`).
fn candidates(path: &str) -> impl Iterator<Item = String> + '_ {
    let components = path.split('/').map(str::to_string);
    let prefixes = path
        .match_indices('/')
        .map(|(i, _)| i)
        .chain([path.len()])
        .map(|end| format!("/{}", &path[..end]));
    components.chain(prefixes)
}

/// The order of paths a search answers in: component by component, as ripgrep sorts each
/// directory's entries by name (so `a/b.py` comes before `a.py`, because `a` < `a.py`,
/// although the string `a.py` < `a/b.py`).
pub fn path_order(a: &str, b: &str) -> Ordering {
    a.split('/').cmp(b.split('/'))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::{db::RootDatabase, lang::registry};

    fn file(db: &RootDatabase, path: &str, lang: &str, text: &str) -> SourceFile {
        let lang = registry().by_id(lang).expect("a registry language").lang_id;
        SourceFile::new(
            db,
            path.to_string(),
            lang,
            crate::db::StoredText::new(Arc::from(text)),
            false,
        )
    }

    fn spec(pattern: &str) -> PatternSpec {
        PatternSpec {
            pattern: pattern.to_string(),
            fixed_strings: false,
            case: CaseMode::Sensitive,
            word: false,
            only: None,
        }
    }

    #[test]
    fn a_literal_pattern_needs_the_words_its_bounded_runs_start() {
        let literal = |pattern: &str| PatternSpec {
            fixed_strings: true,
            ..spec(pattern)
        };
        let starts = |spec: PatternSpec| words_a_match_starts(&spec).0.concat();
        assert_eq!(starts(literal("warnings.warn(")), ["warn"]);
        assert_eq!(
            starts(literal("x = os.path.join(a, 2b, $c)")),
            ["os", "path", "join", "a", "$c"]
        );
        assert_eq!(starts(literal("NotImplementedError")), Vec::<String>::new());
        assert_eq!(starts(literal("(naïve_x")), ["naïve_x"]);
        assert_eq!(starts(spec("warnings.warn(")), Vec::<String>::new());
        let in_case = |case, pattern: &str| {
            let (alternatives, case) = words_a_match_starts(&PatternSpec {
                case,
                ..literal(pattern)
            });
            (alternatives.concat(), case)
        };
        let folded = |starts: &[&str]| {
            let starts = starts.iter().map(|s| s.to_string()).collect();
            (starts, WordCase::AsciiFolded)
        };
        assert_eq!(in_case(CaseMode::Smart, "a.b"), folded(&["b"]));
        assert_eq!(
            in_case(CaseMode::Insensitive, "os.Path("),
            folded(&["Path"])
        );
        let exact = (vec!["Path".to_string()], WordCase::Exact);
        assert_eq!(
            in_case(CaseMode::Smart, "os.Path("),
            exact,
            "an upper-case letter"
        );
        assert_eq!(in_case(CaseMode::Insensitive, "x.naïve"), folded(&[]));
    }

    #[test]
    fn a_regular_expression_needs_the_words_its_literals_start() {
        let needed = |pattern: &str, case| {
            words_a_match_starts(&PatternSpec {
                case,
                ..spec(pattern)
            })
        };
        let runs = |alternatives: &[&[&str]], case| {
            let alternatives = alternatives
                .iter()
                .map(|runs| runs.iter().map(|r| r.to_string()).collect())
                .collect();
            (alternatives, case)
        };
        let exact = WordCase::Exact;
        let folded = WordCase::AsciiFolded;
        let sensitive = CaseMode::Sensitive;
        assert_eq!(
            needed(r"os\.path\.join\(", sensitive),
            runs(&[&["path", "join"]], exact)
        );
        assert_eq!(
            needed(r"\.(join|split)\(", sensitive),
            runs(&[&["join"], &["split"]], exact)
        );
        // No literal begins every match; `.join(` ends each.
        assert_eq!(needed(r"\w+\.join\(", sensitive), runs(&[&["join"]], exact));
        // Smart case is told by letters an escape may hold: compared without regard to it.
        assert_eq!(
            needed(r"\S\.join", CaseMode::Smart),
            runs(&[&["join"]], folded)
        );
        assert_eq!(
            needed(r"x\.JOIN", CaseMode::Insensitive),
            runs(&[&["JOIN"]], folded)
        );
        // An alternative without a run begun inside it says nothing.
        assert_eq!(needed(r"(join|x\.split)", sensitive), runs(&[], exact));
        assert_eq!(needed(r"[a-z]+", sensitive), runs(&[], exact));
        assert_eq!(
            needed(r"x\.naïve", CaseMode::Insensitive),
            runs(&[], folded)
        );
        assert_eq!(needed(r"x\.naïve", sensitive), runs(&[&["naïve"]], exact));
    }

    /// Python modules `m0.py`, `m1.py`, … in a workspace of their own, each long enough to
    /// be kept compressed and ending with its one of `endings`.
    fn long_python_files(db: &RootDatabase, endings: &[&str]) -> (Vec<SourceFile>, Workspace) {
        let body = "def f(x):\n    return x\n".repeat(40);
        let files: Vec<SourceFile> = endings
            .iter()
            .enumerate()
            .map(|(i, end)| file(db, &format!("m{i}.py"), "python", &format!("{body}{end}")))
            .collect();
        let workspace = Workspace::new(db, "/w".into(), files.clone().into(), Arc::from([]));
        (files, workspace)
    }

    fn compress(db: &RootDatabase, files: &[SourceFile]) {
        for f in files {
            f.stored_text(db).compact();
            assert!(f.stored_text(db).is_compressed());
        }
    }

    /// A file whose words no match can start is passed over once some text is compressed,
    /// and a match inside a word a digit begins (no word of the file) is still found.
    #[test]
    fn compressed_files_are_passed_over_by_their_words_without_losing_a_match() {
        let db = RootDatabase::default();
        let endings = ["y = 2xfoo.bar\n", "z = foo.bar\n", "w = foo.baz\n"];
        let (files, workspace) = long_python_files(&db, &endings);
        let search = TextSearch::new(&PatternSpec {
            fixed_strings: true,
            ..spec("foo.bar")
        })
        .unwrap();
        let read = |db: &RootDatabase| search.files_worth_reading(db, workspace, &files);
        assert_eq!(read(&db), files, "texts kept whole are all read");
        compress(&db, &files);
        assert_eq!(read(&db), files[..2], "m2 has no word starting `bar`");
        let by_its_end = TextSearch::new(&spec(r"\w+\.bar\b")).unwrap();
        assert_eq!(
            by_its_end.files_worth_reading(&db, workspace, &files),
            files[..2],
            "a regular expression's matches end with `.bar`"
        );
        let lines: Vec<usize> = files
            .iter()
            .map(|&f| search.file_hits(&db, f, 10).len())
            .collect();
        assert_eq!(lines, [1, 1, 0]);
    }

    /// Without regard to case, a compressed file is passed over only when no word of it
    /// starts with a run in either case, and one with a letter outside ASCII is read: the
    /// Kelvin sign matches `k`.
    #[test]
    fn compressed_files_are_passed_over_without_regard_to_case() {
        let db = RootDatabase::default();
        let endings = ["a = Foo.Key\n", "b = foo.kid\n", "c = foo.\u{212A}EY\n"];
        let (files, workspace) = long_python_files(&db, &endings);
        compress(&db, &files);
        let search = TextSearch::new(&PatternSpec {
            fixed_strings: true,
            case: CaseMode::Insensitive,
            ..spec("foo.key")
        })
        .unwrap();
        assert_eq!(
            search.files_worth_reading(&db, workspace, &files),
            [files[0], files[2]],
            "m1 has no word starting `key` in any case"
        );
        let lines: Vec<usize> = files
            .iter()
            .map(|&f| search.file_hits(&db, f, 10).len())
            .collect();
        assert_eq!(lines, [1, 0, 1]);
    }

    /// Each hit as (1-based line, the matched texts).
    fn hits(db: &RootDatabase, file: SourceFile, spec: &PatternSpec) -> Vec<(u32, Vec<String>)> {
        let text = file.text(db).clone();
        TextSearch::new(spec)
            .unwrap()
            .file_hits(db, file, usize::MAX)
            .into_iter()
            .map(|h| {
                let found = h
                    .matches
                    .iter()
                    .map(|m| text[m.clone()].to_string())
                    .collect();
                (h.line + 1, found)
            })
            .collect()
    }

    fn lines(found: Vec<(u32, Vec<String>)>) -> Vec<u32> {
        found.into_iter().map(|(line, _)| line).collect()
    }

    const PYTHON: &str = "import re\n\
# Parse(x) the input\n\
def parse(x):\n\
    \"\"\"parse(x) once\"\"\"\n\
    return f\"{parse(x)} and parse(x)\"\n\
PARSE = parse\n";

    #[test]
    fn literal_and_regex_patterns_find_each_matching_line() {
        let db = RootDatabase::default();
        let f = file(&db, "m.py", "python", PYTHON);
        let literal = PatternSpec {
            fixed_strings: true,
            ..spec("parse(x)")
        };
        assert_eq!(
            hits(&db, f, &literal),
            vec![
                (3, vec!["parse(x)".to_string()]),
                (4, vec!["parse(x)".to_string()]),
                (5, vec!["parse(x)".to_string(), "parse(x)".to_string()]),
            ]
        );
        // As a regex, `(x)` is a group: `parsex`, which no line has.
        assert_eq!(lines(hits(&db, f, &spec("parse(x)"))), Vec::<u32>::new());
        assert_eq!(lines(hits(&db, f, &spec(r"^\w+ = "))), vec![6]);
        assert_eq!(lines(hits(&db, f, &spec(r"parse\(x\):$"))), vec![3]);
        assert!(matches!(
            TextSearch::new(&spec("parse(")),
            Err(PatternError::InvalidRegex(_))
        ));
        assert!(matches!(
            TextSearch::new(&spec(&"a".repeat(MAX_PATTERN_BYTES + 1))),
            Err(PatternError::TooLong(_))
        ));
        let huge = TextSearch::new(&spec(r"\w{1000}{1000}"));
        assert!(matches!(huge, Err(PatternError::InvalidRegex(m)) if m.contains("size limit")));
        // A match never crosses a line end.
        assert!(TextSearch::new(&spec(r"a\nb")).is_err());
    }

    #[test]
    fn offsets_hold_after_a_byte_order_mark_and_for_byte_patterns() {
        let db = RootDatabase::default();
        let f = file(
            &db,
            "m.py",
            "python",
            "\u{feff}#coding: utf8\nprint('我')\n",
        );
        assert_eq!(
            hits(&db, f, &spec("^#coding")),
            vec![(1, vec!["#coding".to_string()])]
        );
        assert_eq!(
            hits(&db, f, &spec(r"print\('")),
            vec![(2, vec!["print('".to_string()])]
        );
        // The middle byte of `我` (E6 88 91): the match widens to the character.
        assert_eq!(
            hits(&db, f, &spec(r"(?-u:\x88)")),
            vec![(2, vec!["我".to_string()])]
        );
    }

    #[test]
    fn case_modes() {
        let db = RootDatabase::default();
        let f = file(&db, "m.py", "python", PYTHON);
        let with = |pattern: &str, case| {
            lines(hits(
                &db,
                f,
                &PatternSpec {
                    case,
                    ..spec(pattern)
                },
            ))
        };
        assert_eq!(with("parse", CaseMode::Sensitive), vec![3, 4, 5, 6]);
        assert_eq!(with("parse", CaseMode::Insensitive), vec![2, 3, 4, 5, 6]);
        assert_eq!(with("parse", CaseMode::Smart), vec![2, 3, 4, 5, 6]);
        assert_eq!(with("Parse", CaseMode::Smart), vec![2]);
        assert_eq!(with("PARSE", CaseMode::Sensitive), vec![6]);
    }

    #[test]
    fn regions_follow_the_syntax_tree_of_each_language() {
        let db = RootDatabase::default();
        let only = |f: SourceFile, pattern: &str, region| {
            hits(
                &db,
                f,
                &PatternSpec {
                    only: Some(region),
                    ..spec(pattern)
                },
            )
        };
        let py = file(&db, "m.py", "python", PYTHON);
        assert_eq!(
            lines(only(py, "parse", Region::Comments)),
            Vec::<u32>::new()
        );
        assert_eq!(lines(only(py, "Parse", Region::Comments)), vec![2]);
        // The f-string's `{parse(x)}` is code; its other `parse(x)` is text.
        assert_eq!(
            only(py, r"parse\(x\)", Region::Strings),
            vec![
                (4, vec!["parse(x)".to_string()]),
                (5, vec!["parse(x)".to_string()])
            ]
        );
        assert_eq!(lines(only(py, r"parse\b", Region::Code)), vec![3, 5, 6]);

        let rust = "// load the config\nfn load() -> &'static str {\n    /* load */ \"load\"\n}\n";
        let rs = file(&db, "m.rs", "rust", rust);
        assert_eq!(lines(only(rs, "load", Region::Comments)), vec![1, 3]);
        assert_eq!(lines(only(rs, "load", Region::Strings)), vec![3]);
        assert_eq!(lines(only(rs, "load", Region::Code)), vec![2]);

        let ts =
            "// render it\nconst render = (x) => `render ${render(x)}`;\nconst s = 'render';\n";
        let tsf = file(&db, "m.ts", "typescript", ts);
        assert_eq!(lines(only(tsf, "render", Region::Comments)), vec![1]);
        assert_eq!(
            only(tsf, "render", Region::Strings),
            vec![
                (2, vec!["render".to_string()]),
                (3, vec!["render".to_string()])
            ]
        );
        assert_eq!(
            only(tsf, "render", Region::Code),
            vec![(2, vec!["render".to_string(), "render".to_string()])]
        );

        let go = "package m\n\n// Run runs\nfunc Run() string { return `Run` + \"Run\" }\n";
        let gof = file(&db, "m.go", "go", go);
        assert_eq!(lines(only(gof, "Run", Region::Comments)), vec![3]);
        assert_eq!(
            only(gof, "Run", Region::Strings),
            vec![(4, vec!["Run".to_string(), "Run".to_string()])]
        );
        assert_eq!(
            only(gof, "Run", Region::Code),
            vec![(4, vec!["Run".to_string()])]
        );
    }

    #[test]
    fn the_enclosing_symbol_is_the_innermost_definition() {
        let db = RootDatabase::default();
        let text = "# top\nclass Shape:\n    def area(self):\n        return 0\n";
        let f = file(&db, "m.py", "python", text);
        let at = |needle: &str| enclosing_symbol(&db, f, text.find(needle).unwrap());
        assert_eq!(at("# top"), None);
        assert_eq!(
            at("return"),
            Some(EnclosingSymbol {
                name: "Shape.area".into(),
                kind: SymbolKind::Method,
                start_line: 3,
                end_line: 4,
            })
        );
        assert_eq!(at("class").map(|s| s.name), Some("Shape".into()));
    }

    #[test]
    fn globs_match_components_or_anchored_paths() {
        let filter = |globs: &[&str]| {
            GlobFilter::new(&globs.iter().map(|g| g.to_string()).collect::<Vec<_>>()).unwrap()
        };
        let py = filter(&["*.py", "!tests"]);
        assert!(py.admits("a/b.py"));
        assert!(!py.admits("tests/b.py"));
        assert!(!py.admits("a/tests/b.py"));
        assert!(!py.admits("a/b.rs"));
        let anchored = filter(&["src/**/*.rs"]);
        assert!(anchored.admits("src/a/b.rs"));
        assert!(anchored.admits("src/b.rs"));
        assert!(!anchored.admits("lib/src/b.rs"));
        let dir = filter(&["/docs"]);
        assert!(dir.admits("docs/x/y.md"));
        assert!(!dir.admits("a/docs/y.md"));
        assert!(filter(&[]).admits("anything"));
        assert!(matches!(
            GlobFilter::new(&["a[b".to_string()]),
            Err(PatternError::InvalidGlob { .. })
        ));
        assert!(matches!(
            GlobFilter::new(&vec!["*".to_string(); MAX_GLOBS + 1]),
            Err(PatternError::TooManyGlobs(_))
        ));
    }

    #[test]
    fn paths_sort_component_by_component() {
        let mut paths = vec!["a.py", "a/b.py", "a/a.py", "a-b.py", "b.py"];
        paths.sort_by(|a, b| path_order(a, b));
        assert_eq!(paths, vec!["a/a.py", "a/b.py", "a-b.py", "a.py", "b.py"]);
    }
}
