//! The `#scope?` predicate: "this pattern matches only inside these scopes".
//!
//! Tree-sitter patterns have no "at any depth" step, so "an assignment at module level,
//! even under any number of `if`/`try`/`with` blocks" cannot be a pattern. Instead the
//! pattern matches the statement wherever it is and says `(#scope? module)`: it holds when
//! the nearest strict ancestor of the node where the pattern starts (its root) whose kind
//! is one of the language's `scopes` (`grammars/languages.toml`) has one of the listed
//! kinds.
//!
//! The runner (`syntax/query.rs`) knows the scope of every node it starts the query at. In
//! a scope no `#scope?` names (a function body, where most code is), it runs a copy of the
//! query with every scoped pattern disabled ([`ScopeFilter::elsewhere`]), so those patterns
//! cost nothing there; in a scope some pattern names (module level, a class body), it runs
//! the whole query and drops the matches of scoped patterns that do not hold
//! ([`ScopeFilter::holds`]). Two compiled copies, not one per scope kind: each copy is a
//! compile of the whole query, tens of milliseconds whatever the patterns (tree-sitter
//! analyses the grammar around them), paid by every process; and not one copy: matching
//! the scoped patterns in every function body costs more than that on a large workspace
//! (8% more instructions for a check of the standard library, measured).
//!
//! Invariant: a `#scope?` names only kinds listed among the language's scopes, a pattern
//! has at most one, and it is rooted at a named node kind (anything else is a compile error
//! of the query, caught by the tests), so a check never silently holds or fails because of
//! a typo or an unknowable root.

use std::collections::BTreeMap;

/// Which node kinds open a scope, by kind id.
#[derive(Debug, Clone, Default)]
pub struct ScopeKinds {
    is_scope: Vec<bool>,
}

impl ScopeKinds {
    /// Resolves the kind names of a language's `scopes`.
    pub fn new(grammar: &tree_sitter::Language, names: &[String]) -> Result<ScopeKinds, String> {
        let mut is_scope = vec![false; grammar.node_kind_count()];
        for name in names {
            let ids = kind_ids(grammar, name);
            if ids.is_empty() {
                return Err(format!("{name:?} is not a named node kind"));
            }
            for id in ids {
                is_scope[id as usize] = true;
            }
        }
        Ok(ScopeKinds { is_scope })
    }

    pub fn contains(&self, kind_id: u16) -> bool {
        self.is_scope
            .get(kind_id as usize)
            .copied()
            .unwrap_or(false)
    }
}

/// Every id of the named kind `name` (aliases can give one name several ids).
fn kind_ids(grammar: &tree_sitter::Language, name: &str) -> Vec<u16> {
    (0..grammar.node_kind_count() as u16)
        .filter(|&id| grammar.node_kind_is_named(id) && grammar.node_kind_for_id(id) == Some(name))
        .collect()
}

/// The scoped patterns of a query that uses `#scope?`, and where each holds.
pub struct ScopeFilter {
    /// Pattern index -> the scope kinds in which it holds; patterns without `#scope?` are
    /// absent.
    scoped: BTreeMap<usize, Vec<u16>>,
    /// The query with every scoped pattern disabled (same pattern and capture indices).
    elsewhere: tree_sitter::Query,
}

impl std::fmt::Debug for ScopeFilter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ScopeFilter")
            .field("scoped", &self.scoped)
            .finish_non_exhaustive()
    }
}

impl ScopeFilter {
    /// The query to run from a node in `scope` when no scoped pattern names that scope:
    /// none of its matches would be kept.
    pub fn elsewhere(&self, scope: Option<u16>) -> Option<&tree_sitter::Query> {
        let named = scope.is_some_and(|s| self.scoped.values().any(|kinds| kinds.contains(&s)));
        (!named).then_some(&self.elsewhere)
    }

    /// Whether a match of `pattern` that starts at a node whose nearest enclosing scope has
    /// kind `scope` (`None`: the root, in no scope, or unknown) is kept.
    pub fn holds(&self, pattern: usize, scope: Option<u16>) -> bool {
        match self.scoped.get(&pattern) {
            None => true,
            Some(kinds) => scope.is_some_and(|s| kinds.contains(&s)),
        }
    }
}

/// Reads the `#scope?` predicates of `query` (compiled from `source`); `None` when the
/// query has none. `copy` is a second compile of the same source, which becomes the
/// filter's copy with the scoped patterns disabled. `rooted_at_kind` says whether a pattern
/// (given by its text) starts at a named node kind.
pub fn scope_filter(
    grammar: &tree_sitter::Language,
    query: &tree_sitter::Query,
    mut copy: tree_sitter::Query,
    source: &str,
    scopes: &ScopeKinds,
    rooted_at_kind: impl Fn(&str) -> bool,
) -> Result<Option<ScopeFilter>, String> {
    use tree_sitter::QueryPredicateArg;
    // pattern -> the scope kinds in which it holds
    let mut scoped: BTreeMap<usize, Vec<u16>> = BTreeMap::new();
    for pattern in 0..query.pattern_count() {
        let start = query.start_byte_for_pattern(pattern);
        let at = || {
            let line = source[..start].lines().count() + 1;
            format!("#scope? in the pattern at line {line} of the composed query")
        };
        for predicate in query.general_predicates(pattern) {
            if &*predicate.operator != "scope?" {
                continue;
            }
            if predicate.args.is_empty() {
                return Err(format!("{}: no scope kind given", at()));
            }
            let mut ids = Vec::new();
            for arg in &predicate.args {
                let QueryPredicateArg::String(kind) = arg else {
                    return Err(format!("{}: takes scope kinds, not captures", at()));
                };
                let kind_ids = kind_ids(grammar, kind);
                if kind_ids.is_empty() || !kind_ids.iter().all(|&id| scopes.contains(id)) {
                    return Err(format!(
                        "{}: {kind:?} is not one of the language's scopes (grammars/languages.toml)",
                        at()
                    ));
                }
                ids.extend(kind_ids);
            }
            if scoped.insert(pattern, ids).is_some() {
                return Err(format!("{}: one #scope? per pattern", at()));
            }
            if !rooted_at_kind(&source[start..]) {
                return Err(format!(
                    "{}: the pattern must start at a named node kind",
                    at()
                ));
            }
        }
    }
    if scoped.is_empty() {
        return Ok(None);
    }
    for &pattern in scoped.keys() {
        copy.disable_pattern(pattern);
    }
    Ok(Some(ScopeFilter {
        scoped,
        elsewhere: copy,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lang::registry;

    fn scoped(source: &str) -> Result<Option<ScopeFilter>, String> {
        let python = registry().by_id("python").unwrap();
        let query = tree_sitter::Query::new(&python.grammar, source).map_err(|e| e.to_string())?;
        let copy = tree_sitter::Query::new(&python.grammar, source).map_err(|e| e.to_string())?;
        scope_filter(
            &python.grammar,
            &query,
            copy,
            source,
            &python.scopes,
            crate::lang::roots::rooted_at_named_kind,
        )
    }

    #[test]
    fn scope_predicates_are_checked_when_compiled() {
        assert!(scoped("(identifier) @x").unwrap().is_none());
        assert!(scoped("(block (#scope? module)) @x").unwrap().is_some());
        for (source, error) in [
            (
                "(block (#scope? block)) @x",
                "\"block\" is not one of the language's scopes",
            ),
            ("(block (#scope? modul)) @x", "\"modul\" is not one of"),
            ("(block (#scope?)) @x", "no scope kind given"),
            (
                "((block) @x (#scope? @x module))",
                "takes scope kinds, not captures",
            ),
            (
                "(block (#scope? module) (#scope? module)) @x",
                "one #scope? per pattern",
            ),
            (
                "(_ (block) (#scope? module)) @x",
                "must start at a named node kind",
            ),
        ] {
            let err = scoped(source).err().unwrap_or_default();
            assert!(!err.is_empty() && err.contains(error), "{source}: {err:?}");
        }
    }

    #[test]
    fn a_scoped_pattern_holds_only_in_the_scopes_it_names() {
        let s = scoped(
            "(block (#scope? module)) @a\n(block (#scope? module class_definition)) @b\n(block) @c",
        )
        .unwrap()
        .unwrap();
        let python = registry().by_id("python").unwrap();
        let id = |name| python.grammar.id_for_node_kind(name, true);
        let holding =
            |scope: Option<u16>| (0..3).filter(|&p| s.holds(p, scope)).collect::<Vec<_>>();
        assert_eq!(holding(Some(id("module"))), [0, 1, 2]);
        assert_eq!(holding(Some(id("class_definition"))), [1, 2]);
        assert_eq!(holding(Some(id("function_definition"))), [2]);
        assert_eq!(holding(None), [2]);
        // Only a function scope, which no pattern names, runs the copy without them.
        assert!(s.elsewhere(Some(id("function_definition"))).is_some());
        assert!(s.elsewhere(None).is_some());
        assert!(s.elsewhere(Some(id("module"))).is_none());
        assert!(s.elsewhere(Some(id("class_definition"))).is_none());
        // The copy matches only the patterns without `#scope?`.
        let text = "if x:\n    y\n";
        let tree = {
            let mut parser = tree_sitter::Parser::new();
            parser.set_language(&python.grammar).unwrap();
            parser.parse(text, None).unwrap()
        };
        let mut cursor = tree_sitter::QueryCursor::new();
        let mut matches = cursor.matches(
            s.elsewhere(None).unwrap(),
            tree.root_node(),
            text.as_bytes(),
        );
        let mut patterns = Vec::new();
        use tree_sitter::StreamingIterator;
        while let Some(m) = matches.next() {
            patterns.push(m.pattern_index);
        }
        assert_eq!(patterns, [2]);
    }
}
