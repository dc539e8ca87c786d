//! Binding from a grammar name in `languages.toml` to a compiled tree-sitter grammar and its
//! `node-types.json` (which kinds may hold which, see `kinds.rs`).
//!
//! This is the only Rust code a new language needs besides its grammar crate dependency.

pub(crate) fn grammar(name: &str) -> Option<(tree_sitter::Language, &'static str)> {
    let (language_fn, node_types) = match name {
        "rust" => (tree_sitter_rust::LANGUAGE, tree_sitter_rust::NODE_TYPES),
        "python" => (tree_sitter_python::LANGUAGE, tree_sitter_python::NODE_TYPES),
        "javascript" => (
            tree_sitter_javascript::LANGUAGE,
            tree_sitter_javascript::NODE_TYPES,
        ),
        "typescript" => (
            tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
            tree_sitter_typescript::TYPESCRIPT_NODE_TYPES,
        ),
        "tsx" => (
            tree_sitter_typescript::LANGUAGE_TSX,
            tree_sitter_typescript::TSX_NODE_TYPES,
        ),
        "go" => (tree_sitter_go::LANGUAGE, tree_sitter_go::NODE_TYPES),
        _ => return None,
    };
    Some((language_fn.into(), node_types))
}
