//! The fix of an undefined name that adds its import, when exactly one place provides it:
//! in Python a standard-library or workspace module of that name used as `name.attr`
//! (`import name`), a workspace submodule (`from pkg import name`), or a workspace module
//! defining it at its top level (`from pkg.mod import name`); in JavaScript and TypeScript
//! a workspace module exporting it (`import { name } from './mod'`; in TypeScript `import
//! type { name }` for a name used only as a type that the module exports as a type only, or
//! that a tsconfig keeping value imports would otherwise import at run time). A name some file
//! imports from outside the workspace, or binds as an import's alias, names another object
//! there, so it gets no fix. Unsafe:
//! the name alone says which import was meant.
//!
//! The new import goes after the file's last top-level import (in Python the last one
//! above the name's first use, which must see it), or, with none, after the file's header:
//! a module docstring, `from __future__` imports, a shebang, a `"use strict"` directive, a
//! leading comment block set off by a blank line. A Python `from m import a` on one line
//! of its own is extended instead (`from m import a, name`).
//!
//! Invariant: other files are read through [`definers`] (one name's providers, from
//! position-free facts) and the path-built module maps only.

use tree_sitter::Node;

use crate::{
    checks::{
        CheckContext,
        fix::{Fix, range},
    },
    db::SourceFile,
    lang::Family,
    semantic::{
        facts::ecmascript::module_facts,
        facts::import_candidates::{ImportFamily, definers, is_test_path, python_module_spellings},
        imports::{self, ImportSummary, Target, is_stdlib_module, python_modules},
        names::{FileNames, Role},
        projects::keeps_unused_imports,
    },
    syntax::TextRange,
};

/// Where a name's import comes from.
#[derive(PartialEq)]
enum Source {
    /// `import name`.
    Module,
    /// `from module import name` / `import { name } from "module"`.
    From(String),
}

/// The fix importing `name`, undefined at `use_` (Python).
pub(super) fn python(
    ctx: &CheckContext,
    names: &FileNames,
    root: Node,
    text: &str,
    name: &str,
    use_: Node,
) -> Option<Fix> {
    let first_use = first_use(names, name)?;
    let source = match python_sources(ctx, name).as_slice() {
        [Some(Source::Module)] if is_attribute_object(use_) => Source::Module,
        [Some(Source::From(module))] => Source::From(module.clone()),
        _ => return None,
    };
    let edit = match &source {
        Source::From(module) => extend_from_import(root, text, module, name, first_use),
        Source::Module => None,
    };
    let edit = edit.unwrap_or_else(|| {
        let statement = match &source {
            Source::Module => format!("import {name}"),
            Source::From(module) => format!("from {module} import {name}"),
        };
        let at = python_insertion(root, text, first_use);
        insert_line(text, at, &statement)
    });
    let module = match source {
        Source::Module => name.to_string(),
        Source::From(module) => module,
    };
    Some(Fix::unsafe_(
        format!("Import '{name}' from '{module}'"),
        vec![edit],
    ))
}

/// Every place `name` could come from, once each: a standard or workspace module of that
/// name (`import name`), a workspace submodule (`from parent import name`), a workspace
/// module defining it (`from module import name`), each as the importer would write it
/// (of several names that lead it there, one the workspace's imports of the module write);
/// `None` for a home no import here can name (a module outside the workspace some file
/// imports it from, an import's alias): it still makes the name ambiguous. A workspace
/// home the importer cannot reach by an absolute import is none of its choices, nor is one
/// that another home stands in for: two manifest-less services each with `app/models.py`
/// defining `Invoice`, where service b's `app.models`, written in service a, is a's.
fn python_sources(ctx: &CheckContext, name: &str) -> Vec<Option<Source>> {
    let (db, workspace) = (ctx.db, ctx.workspace);
    let found = definers(db, workspace, ImportFamily::Python, name.to_string());
    let modules = python_modules(db, workspace);
    let test = is_test_path(ctx.path());
    let importer = ctx.path();
    let mut sources = Vec::new();
    if is_stdlib_module(name) || found.elsewhere {
        sources.push(is_stdlib_module(name).then_some(Source::Module));
    }
    let submodules: Vec<SourceFile> = modules
        .modules_named(name)
        .map(|(_, file)| file)
        .filter(|&file| file != ctx.file && (test || !is_test_path(file.path(db))))
        .collect();
    let defining: Vec<SourceFile> = found
        .for_importer(test)
        .into_iter()
        .filter(|&file| file != ctx.file)
        .collect();
    // A name a home's own neighbours import it by, written here, leads to another home.
    let stood_in_for = |file: SourceFile| {
        let path = file.path(db);
        modules.import_names(path, file, path).any(|own| {
            modules
                .absolute_module(importer, &own)
                .is_some_and(|there| {
                    there != file && (submodules.contains(&there) || defining.contains(&there))
                })
        })
    };
    let import_name = |file: SourceFile| {
        let written = || python_module_spellings(db, workspace, file);
        modules.import_name(importer, file, file.path(db), written)
    };
    for &file in &submodules {
        let source = import_name(file).and_then(|path| match path.strip_suffix(name)? {
            "" => Some(Source::Module),
            parent => Some(Source::From(parent.strip_suffix('.')?.to_string())),
        });
        if let Some(source) = source.filter(|_| !stood_in_for(file)) {
            sources.push(Some(source));
        }
    }
    for &file in &defining {
        // A submodule `path.name` would be imported instead of the definition.
        let path = import_name(file);
        let reached = path.filter(|p| {
            modules
                .absolute_module(importer, &format!("{p}.{name}"))
                .is_none()
        });
        if let Some(module) = reached.filter(|_| !stood_in_for(file)) {
            sources.push(Some(Source::From(module)));
        }
    }
    let mut distinct: Vec<Option<Source>> = Vec::new();
    for source in sources {
        if !distinct.contains(&source) {
            distinct.push(source);
        }
    }
    distinct
}

/// Where the name's first use starts; `None` when the file binds it anywhere (then an
/// import would change what an existing binding means, or the use is one before its
/// definition).
fn first_use(names: &FileNames, name: &str) -> Option<usize> {
    let mut first = usize::MAX;
    for id in names.occurrences_named(name) {
        let occurrence = names.occurrence(id);
        if matches!(occurrence.role, Role::Definition(_) | Role::Global) {
            return None;
        }
        first = first.min(occurrence.range.start().into());
    }
    (first != usize::MAX).then_some(first)
}

/// Whether `node` is the object of an attribute (`os` in `os.path`).
fn is_attribute_object(node: Node) -> bool {
    node.parent().is_some_and(|p| {
        p.kind() == "attribute"
            && p.child_by_field_name("object")
                .is_some_and(|o| o.id() == node.id())
    })
}

/// The edit adding `, name` to a top-level `from module import …` written on one line
/// of its own, above the first use.
fn extend_from_import(
    root: Node,
    text: &str,
    module: &str,
    name: &str,
    first_use: usize,
) -> Option<(TextRange, String)> {
    let mut cursor = root.walk();
    let statement = root.named_children(&mut cursor).find(|s| {
        let written = &text[s.byte_range()];
        s.kind() == "import_from_statement"
            && s.child_by_field_name("module_name")
                .is_some_and(|m| &text[m.byte_range()] == module)
            && !written.contains(['(', '\n', '\\', '*'])
            && text[s.end_byte()..line_end(text, s.end_byte())]
                .trim()
                .is_empty()
            && s.end_byte() <= first_use
    })?;
    let end = statement.end_byte();
    Some((range(end, end), format!(", {name}")))
}

/// Where a new Python import line goes: after the last top-level import that ends on a
/// line before `first_use`, else after the header.
fn python_insertion(root: Node, text: &str, first_use: usize) -> usize {
    let mut cursor = root.walk();
    let last_import = root
        .named_children(&mut cursor)
        .filter(|s| {
            matches!(
                s.kind(),
                "import_statement" | "import_from_statement" | "future_import_statement"
            )
        })
        .map(|s| after_line(text, s.end_byte()))
        .take_while(|&end| end <= first_use)
        .last();
    last_import.unwrap_or_else(|| {
        header_end(root, text, |statement, first| match statement.kind() {
            "future_import_statement" => true,
            "expression_statement" => first && is_string_statement(statement),
            _ => false,
        })
    })
}

/// The fix importing `name`, undefined in a JavaScript or TypeScript module.
pub(super) fn ecmascript(
    ctx: &CheckContext,
    names: &FileNames,
    root: Node,
    text: &str,
    name: &str,
) -> Option<Fix> {
    first_use(names, name)?;
    let (db, workspace) = (ctx.db, ctx.workspace);
    let found = definers(db, workspace, ImportFamily::Ecmascript, name.to_string());
    let files: Vec<_> = found
        .for_importer(is_test_path(ctx.path()))
        .into_iter()
        .filter(|&f| f != ctx.file)
        .collect();
    let [target] = files.as_slice() else {
        return None;
    };
    let style = ImportStyle::of(root, text);
    let specifier = relative_specifier(ctx.path(), target.path(db), style.js_extension)?;
    let summary = ImportSummary {
        module: specifier.as_str().into(),
        ..ImportSummary::default()
    };
    let resolved = imports::resolve(db, workspace, ctx.file, &summary);
    if !matches!(resolved, Target::Resolved { file, .. } if file == *target) {
        return None;
    }
    let (as_type, keeps) = type_only_import(ctx, names, *target, name);
    let (title, keyword) = match as_type {
        true => (
            format!("Import type '{name}' from '{specifier}'"),
            "import type",
        ),
        false => (format!("Import '{name}' from '{specifier}'"), "import"),
    };
    let extend = |kind| extend_named_import(ctx, root, text, *target, name, kind);
    let extended = match as_type {
        true => extend(ImportKind::Type)
            .or_else(|| (!keeps).then(|| extend(ImportKind::Value)).flatten()),
        false => extend(ImportKind::Value),
    };
    if let Some(edit) = extended {
        return Some(Fix::unsafe_(title, vec![edit]));
    }
    let quote = style.quote;
    let semicolon = if style.semicolons { ";" } else { "" };
    let statement = format!("{keyword} {{ {name} }} from {quote}{specifier}{quote}{semicolon}");
    let at = ecmascript_insertion(root, text);
    Some(Fix::unsafe_(title, vec![insert_line(text, at, &statement)]))
}

/// Whether the TypeScript file importing `name` from `target` writes `import type`, and
/// whether its tsconfig keeps value imports (`verbatimModuleSyntax` and its kin: a value
/// import whose names are types is then kept at run time, evaluating its module, or
/// refused). A name used only as a type is imported as one when its module exports it as a
/// type only or when the tsconfig keeps value imports; such a tsconfig also forbids adding
/// it to a value import. JavaScript: never.
fn type_only_import(
    ctx: &CheckContext,
    names: &FileNames,
    target: SourceFile,
    name: &str,
) -> (bool, bool) {
    if !matches!(ctx.lang, Family::Ecma { typescript: true }) {
        return (false, false);
    }
    let keeps = keeps_unused_imports(ctx.db, ctx.workspace, ctx.path());
    let as_type = used_as_type_only(names, name)
        && (keeps
            || module_facts(ctx.db, target)
                .type_exports
                .iter()
                .any(|t| &**t == name));
    (as_type, keeps)
}

/// Whether every occurrence of `name` in the file is in a type (`x: Shape`, `<Shape>`),
/// doc comments aside, and one is.
fn used_as_type_only(names: &FileNames, name: &str) -> bool {
    let mut as_type = false;
    for id in names.occurrences_named(name) {
        match names.occurrence(id).role {
            Role::Type => as_type = true,
            Role::DocType | Role::DocReference => {}
            _ => return false,
        }
    }
    as_type
}

/// Which imports a name may be added to: `import { … }` or `import type { … }`.
#[derive(Clone, Copy, PartialEq)]
enum ImportKind {
    Value,
    Type,
}

/// The edit adding `name` after the last name of a top-level `import { … } from` (of
/// `kind`) that leads to `target` (however its specifier is written). Never a type-only
/// import for a value, whose names would not be values, nor one without braces.
fn extend_named_import(
    ctx: &CheckContext,
    root: Node,
    text: &str,
    target: SourceFile,
    name: &str,
    kind: ImportKind,
) -> Option<(TextRange, String)> {
    let mut cursor = root.walk();
    let statements: Vec<Node> = root
        .named_children(&mut cursor)
        .filter(|s| s.kind() == "import_statement")
        .collect();
    statements.into_iter().find_map(|statement| {
        let mut cursor = statement.walk();
        let children: Vec<Node> = statement.children(&mut cursor).collect();
        let type_only = children.iter().any(|c| c.kind() == "type");
        if type_only != (kind == ImportKind::Type) {
            return None;
        }
        let clause = children.iter().find(|c| c.kind() == "import_clause")?;
        let mut cursor = clause.walk();
        let named = clause
            .named_children(&mut cursor)
            .find(|c| c.kind() == "named_imports")?;
        let mut cursor = named.walk();
        let last = named
            .named_children(&mut cursor)
            .filter(|c| c.kind() == "import_specifier")
            .last()?;
        let source = statement.child_by_field_name("source")?;
        let summary = ImportSummary {
            module: text[source.byte_range()].trim_matches(['"', '\'']).into(),
            ..ImportSummary::default()
        };
        let leads_there = matches!(
            imports::resolve(ctx.db, ctx.workspace, ctx.file, &summary),
            Target::Resolved { file, .. } if file == target
        );
        leads_there.then(|| (range(last.end_byte(), last.end_byte()), format!(", {name}")))
    })
}

/// How the file writes its imports: quotes, semicolons, `.js` on relative specifiers.
struct ImportStyle {
    quote: char,
    semicolons: bool,
    js_extension: bool,
}

impl ImportStyle {
    fn of(root: Node, text: &str) -> ImportStyle {
        let mut style = ImportStyle {
            quote: '\'',
            semicolons: true,
            js_extension: false,
        };
        let mut cursor = root.walk();
        let imports = root
            .named_children(&mut cursor)
            .filter(|s| s.kind() == "import_statement");
        for statement in imports {
            let Some(source) = statement.child_by_field_name("source") else {
                continue;
            };
            let written = &text[source.byte_range()];
            style.quote = written.chars().next().unwrap_or(style.quote);
            style.semicolons = text[statement.byte_range()].ends_with(';');
            let spec = written.trim_matches(['"', '\'']);
            if spec.starts_with('.') {
                style.js_extension = spec.ends_with(".js");
            }
        }
        style
    }
}

/// `target` as a relative specifier from `importer`'s directory (`./a/b`, `../c`), its
/// extension dropped, or replaced by `.js` when the file writes them so.
fn relative_specifier(importer: &str, target: &str, js_extension: bool) -> Option<String> {
    let stem = [".tsx", ".ts", ".jsx", ".js"]
        .iter()
        .find_map(|ext| target.strip_suffix(ext))?;
    let from: Vec<&str> = importer.split('/').collect();
    let from = &from[..from.len() - 1];
    let to: Vec<&str> = stem.split('/').collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<&str> = vec![".."; from.len() - common];
    if parts.is_empty() {
        parts.push(".");
    }
    parts.extend(&to[common..]);
    let extension = if js_extension { ".js" } else { "" };
    Some(format!("{}{extension}", parts.join("/")))
}

/// Where a new JavaScript or TypeScript import goes: after the last top-level import,
/// else after the header (shebang, `"use strict"`, a leading comment block).
fn ecmascript_insertion(root: Node, text: &str) -> usize {
    let mut cursor = root.walk();
    let last_import = root
        .named_children(&mut cursor)
        .filter(|s| s.kind() == "import_statement")
        .last();
    match last_import {
        Some(statement) => after_line(text, statement.end_byte()),
        None => header_end(root, text, |statement, _| match statement.kind() {
            "hash_bang_line" => true,
            "expression_statement" => is_string_statement(statement),
            _ => false,
        }),
    }
}

/// Where the file's header ends: after the run of statements `in_header` accepts (given
/// whether it is the first statement) and the comments among them; a comment at the end
/// of the run counts only when a blank line follows it (a comment just above code is that
/// code's).
fn header_end(root: Node, text: &str, in_header: impl Fn(Node, bool) -> bool) -> usize {
    let mut end = 0;
    let mut first = true;
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        let after = after_line(text, statement.end_byte());
        if statement.kind() == "comment" {
            if after == text.len() || text[after..].starts_with(['\n', '\r']) {
                end = after;
            }
            continue;
        }
        if !in_header(statement, first) {
            break;
        }
        first = false;
        end = after;
    }
    end
}

/// A statement that is a string alone (a docstring, a directive).
fn is_string_statement(statement: Node) -> bool {
    statement.named_child_count() == 1
        && statement
            .named_child(0)
            .is_some_and(|s| matches!(s.kind(), "string" | "concatenated_string"))
}

/// Where the line holding `offset` ends (before its line break).
fn line_end(text: &str, offset: usize) -> usize {
    text[offset..].find('\n').map_or(text.len(), |i| offset + i)
}

/// The start of the line after the one holding `offset` (the text's end on the last line).
fn after_line(text: &str, offset: usize) -> usize {
    (line_end(text, offset) + 1).min(text.len())
}

/// The edit putting `line` on a line of its own at `at` (a line's start or the text's end),
/// with the file's line ending.
fn insert_line(text: &str, at: usize, line: &str) -> (TextRange, String) {
    let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let new_text = if at == text.len() && !text.is_empty() && !text.ends_with('\n') {
        format!("{eol}{line}")
    } else {
        format!("{line}{eol}")
    };
    (range(at, at), new_text)
}

#[cfg(test)]
mod tests {
    use super::relative_specifier;

    #[test]
    fn relative_specifiers() {
        let spec = |from, to, js| relative_specifier(from, to, js);
        assert_eq!(spec("src/a.ts", "src/b.ts", false).as_deref(), Some("./b"));
        assert_eq!(
            spec("src/app/a.ts", "src/lib/b.tsx", false).as_deref(),
            Some("../lib/b")
        );
        assert_eq!(
            spec("a.js", "lib/b.js", true).as_deref(),
            Some("./lib/b.js")
        );
        assert_eq!(spec("a.ts", "b.mjs", false), None);
    }
}
