//! Binding from a grammar name in `languages.toml` to a compiled tree-sitter grammar.
//!
//! This is the only Rust code a new language needs besides its grammar crate dependency.

pub(crate) fn grammar(name: &str) -> Option<tree_sitter::Language> {
    let language_fn = match name {
        "rust" => tree_sitter_rust::LANGUAGE,
        "python" => tree_sitter_python::LANGUAGE,
        "javascript" => tree_sitter_javascript::LANGUAGE,
        "typescript" => tree_sitter_typescript::LANGUAGE_TYPESCRIPT,
        "tsx" => tree_sitter_typescript::LANGUAGE_TSX,
        "go" => tree_sitter_go::LANGUAGE,
        _ => return None,
    };
    Some(language_fn.into())
}
