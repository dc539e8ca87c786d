//! Rust checks: unresolved modules (SX003): a `mod foo;` with neither `foo.rs` nor
//! `foo/mod.rs` (nor its `#[path]` file) in the workspace, and a `use crate::a::…` whose
//! first module `a` the crate does not have.
//!
//! Only modules are judged, never the names inside them (macros may define those). A
//! `mod` under `#[cfg]`, a `cfg_attr` or an attribute macro is left alone (its file is not
//! loaded when the configuration is off, or is chosen by configuration), and so is a file placed by a `#[path]` attribute (its own `mod`s follow other
//! rules), and so is a file no `mod` reaches (its crate is a guess). `crate::a` is missing
//! only when the crate has no module `a` and its root neither defines nor imports `a` and
//! has no glob import and no `macro_rules!` of its own (a macro may expand to modules).
//!
//! Invariant: reads the file's own queries and, of other files, only position-free facts:
//! the module map (`rust_modules`) and the crate root's symbol summaries and imports.

use std::collections::HashSet;

use crate::checks::{Diagnostic, node_range, registry::ids};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        imports::{
            self, FileImports, RustModules, Target, file_imports, rust_local_name, rust_modules,
        },
        projects::paths,
        symbols::{SymbolKind, file_symbols, symbol_summaries},
    },
    syntax::{TextRange, TextSize},
};

pub(super) fn check(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    tree: &tree_sitter::Tree,
) -> Vec<Diagnostic> {
    let modules = rust_modules(db, workspace);
    let Some((krate, module)) = modules.place(file) else {
        return Vec::new();
    };
    if modules.placed_by_path(file) {
        return Vec::new();
    }
    let Some(root) = modules.crate_root(krate) else {
        return Vec::new();
    };
    let text = &*file.text(db);
    let path = file.path(db).as_str();
    let symbols = file_symbols(db, file);
    let imports = &symbols.imports;
    let mut found = Vec::new();
    // `mod foo;` where the file is where the plain rules put its module.
    let module_dir = paths::join(paths::parent(root.path(db)), &module.replace("::", "/"));
    let regular = file == root
        || module_dir
            .is_some_and(|dir| path == format!("{dir}.rs") || path == format!("{dir}/mod.rs"));
    if regular {
        found.extend(unresolved_mod_declarations(
            db, workspace, file, tree, imports,
        ));
    }
    found.extend(crate_paths_not_found(
        db, &modules, krate, root, imports, text,
    ));
    found
}

/// `mod foo;` with no file for the module.
fn unresolved_mod_declarations(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    tree: &tree_sitter::Tree,
    imports: &FileImports,
) -> Vec<Diagnostic> {
    let text = &*file.text(db);
    let mut found = Vec::new();
    for item in mod_declarations(tree.root_node(), text) {
        let range = node_range(item);
        let Some(index) = imports
            .statements
            .iter()
            .position(|s| s.start() < range.end() && range.start() < s.end())
        else {
            continue;
        };
        let summary = &imports.summaries[index];
        let is_decl = summary.module.starts_with('"')
            || (summary.module.starts_with("self::") && summary.name.is_none());
        if !is_decl || imports::resolve(db, workspace, file, summary) != Target::Unresolved {
            continue;
        }
        let Some(name) = item.child_by_field_name("name") else {
            continue;
        };
        let name = &text[name.byte_range()];
        let message = match summary.module.strip_prefix('"') {
            Some(file) => format!(
                "no file '{}' for module '{name}'",
                file.trim_end_matches('"')
            ),
            None => format!("no file for module '{name}' ({name}.rs or {name}/mod.rs)"),
        };
        found.push(Diagnostic::new(
            ids::UNRESOLVED_IMPORT,
            node_range(item.child_by_field_name("name").unwrap_or(item)),
            message,
        ));
    }
    found
}

/// `use crate::a::…` where the crate has no `a`.
fn crate_paths_not_found(
    db: &dyn Db,
    modules: &RustModules,
    krate: u32,
    root: SourceFile,
    imports: &FileImports,
    text: &str,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut root_names: Option<Option<HashSet<String>>> = None;
    let mut reported: HashSet<(TextRange, &str)> = HashSet::new();
    for (summary, &statement) in imports.summaries.iter().zip(imports.statements.iter()) {
        let mut segments = summary.module.split("::").chain(summary.name.as_deref());
        if segments.next() != Some("crate") {
            continue;
        }
        let (Some(first), Some(_)) = (segments.next(), segments.next()) else {
            continue;
        };
        if first.is_empty() || modules.has_module(krate, first) {
            continue;
        }
        let names = root_names.get_or_insert_with(|| crate_root_names(db, root));
        let Some(names) = names else { break };
        if names.contains(first) || !reported.insert((statement, first)) {
            continue;
        }
        found.push(Diagnostic::new(
            ids::UNRESOLVED_IMPORT,
            segment_range(text, statement, first),
            format!("no module '{first}' in this crate"),
        ));
    }
    found
}

/// What the crate root defines or imports; `None` when a glob or a macro of its own
/// (`crate_root!();` expanding to modules) may bring anything.
fn crate_root_names(db: &dyn Db, root: SourceFile) -> Option<HashSet<String>> {
    let imports = file_imports(db, root);
    let summaries = symbol_summaries(db, root);
    if imports.iter().any(|i| i.wildcard) || summaries.iter().any(|s| s.kind == SymbolKind::Macro) {
        return None;
    }
    let mut names: HashSet<String> = summaries
        .iter()
        .filter(|s| s.parent().is_none())
        .map(|s| s.name.to_string())
        .collect();
    names.extend(
        imports
            .iter()
            .filter_map(rust_local_name)
            .map(str::to_string),
    );
    Some(names)
}

/// The `mod name;` items (no body) of the file and its inline modules, without attributes
/// that may drop or move them (`#[cfg]`, `#[cfg_attr(…, path = …)]`, attribute macros).
fn mod_declarations<'t>(root: tree_sitter::Node<'t>, text: &str) -> Vec<tree_sitter::Node<'t>> {
    let mut found = Vec::new();
    let mut lists = vec![root];
    while let Some(list) = lists.pop() {
        let mut kept = true;
        let mut cursor = list.walk();
        for item in list.named_children(&mut cursor) {
            match item.kind() {
                "attribute_item" => {
                    kept &= is_inert_attribute(&text[item.byte_range()], &["path"]);
                    continue;
                }
                "line_comment" | "block_comment" => continue,
                "mod_item" => match item.child_by_field_name("body") {
                    Some(body) => lists.push(body),
                    None if kept => found.push(item),
                    None => {}
                },
                _ => {}
            }
            kept = true;
        }
    }
    found
}

/// Attributes that neither drop, duplicate nor rewrite the item they sit on.
const INERT_ATTRIBUTES: &[&str] = &[
    "allow",
    "automatically_derived",
    "cold",
    "deny",
    "deprecated",
    "derive",
    "doc",
    "expect",
    "export_name",
    "forbid",
    "ignore",
    "inline",
    "link",
    "link_name",
    "link_section",
    "macro_export",
    "macro_use",
    "must_use",
    "no_mangle",
    "non_exhaustive",
    "repr",
    "should_panic",
    "target_feature",
    "test",
    "track_caller",
    "used",
    "warn",
];

/// Whether the attribute (`#[…]` as written) leaves its item in place as written: one of
/// [`INERT_ATTRIBUTES`], a tool's (`clippy::…`, `rustfmt::…`), one of `also`, or a
/// `cfg_attr` adding only such attributes. `cfg`, other `cfg_attr`s and attribute macros
/// (`#[rustversion::beta]`) may remove or change it.
pub(crate) fn is_inert_attribute(attribute: &str, also: &[&str]) -> bool {
    // Nested `cfg_attr`s are followed by recursion: an absurd one is not judged.
    if attribute.len() > 4096 {
        return false;
    }
    let inner = attribute
        .trim_start_matches("#[")
        .trim_end_matches(']')
        .trim();
    let end = inner
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
        .unwrap_or(inner.len());
    let (name, rest) = inner.split_at(end);
    if name.starts_with("clippy::") || name.starts_with("rustfmt::") {
        return true;
    }
    if name == "cfg_attr" {
        // `cfg_attr(condition, attr, attr…)`: the attributes after the condition.
        let args = rest.trim().trim_start_matches('(').trim_end_matches(')');
        let parts = top_level_parts(args);
        return parts.len() > 1
            && parts[1..]
                .iter()
                .all(|a| is_inert_attribute(a, also) && !a.trim_start().starts_with("path"));
    }
    INERT_ATTRIBUTES.contains(&name) || also.contains(&name)
}

/// `a, b(c, d), e` → `["a", "b(c, d)", "e"]`.
fn top_level_parts(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(text[start..].trim());
    parts.retain(|p| !p.is_empty());
    parts
}

/// Where `segment` follows `crate ::` in the statement (else the whole statement).
fn segment_range(text: &str, statement: TextRange, segment: &str) -> TextRange {
    let start = usize::from(statement.start());
    let written = text
        .get(start..usize::from(statement.end()))
        .unwrap_or_default();
    let mut from = 0;
    while let Some(at) = written[from..].find("crate") {
        let after_crate = from + at + "crate".len();
        let rest = written[after_crate..].trim_start();
        if let Some(rest) = rest.strip_prefix("::") {
            let rest_trimmed = rest.trim_start();
            if rest_trimmed.starts_with(segment)
                && !rest_trimmed[segment.len()..]
                    .starts_with(|c: char| c.is_alphanumeric() || c == '_')
            {
                let offset = start + written.len() - rest_trimmed.len();
                let offset = TextSize::from(offset as u32);
                return TextRange::new(offset, offset + TextSize::from(segment.len() as u32));
            }
        }
        from = after_crate;
    }
    statement
}
