//! JavaScript, TypeScript and TSX checks: undefined names (SX005), unused imports (SX006),
//! relative or `paths`-mapped imports that lead to no workspace file (SX003), and names
//! imported from a workspace module that does not export them (SX004; only modules whose
//! exports can be told: no `export =` or CommonJS exports, and `export * from` only of
//! workspace modules whose exports can be told, followed transitively: [`module_exports`]).
//!
//! Names are looked up in the file's own scopes (`file_names`) by JavaScript's rules: every
//! binding of an enclosing scope is seen (declarations are hoisted; the temporal dead zone
//! is not an undefined name), except a class body's members, which are reached through
//! `this` (its type parameters are seen); an interface's or enum's names are seen inside it.
//! Then the globals every module sees (`grammars/ecmascript-globals.txt`: JavaScript, the
//! browser, web workers, Node and TypeScript's libraries), and the globals the workspace
//! declares itself ([`workspace_globals`]): the top-level names of its scripts (files with
//! no `import` or `export`, `.d.ts` ones included) and what any file declares in `declare
//! global { … }` or `export as namespace N`. A `.d.ts` file is not checked (its names are
//! ambient declarations); a JavaScript script (no `import` or `export`) and a file with a
//! `/// <reference types=… />` or `path=…` directive get no undefined-name reports, since what
//! they see comes from the page or from declarations sextant may not see. Inside a namespace, a
//! name any namespace body of the file binds is taken as seen (namespaces merge). Names a test
//! runner puts in scope (`grammars/ecmascript-test-globals.txt`) are globals of files that
//! import nothing from a test runner's module; in JavaScript, a name the file tests with
//! `typeof name` is an optional global (`typeof Deno !== "undefined"`), and so is one it
//! assigns as a member of anything (`root.Prism = …`, the global object under an alias).
//!
//! Invariant: reads the file's own queries and, of other files, only position-free facts:
//! each file's [`module_facts`] (its global names and its exports, which backdate when an
//! edit leaves them alone), [`module_exports`] built from those, and the path-built module
//! map behind `imports::resolve`.

mod arity;
mod unused_variables;

pub use arity::ecmascript_signatures;

use std::{collections::HashSet, sync::Arc};

use super::{Diagnostic, registry::ids, walk};
use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::{
        imports::{self, EcmascriptModules, FileImports, ImportSummary, ecmascript_modules},
        names::{BindingKind, FileNames, OccurrenceId, Role, ScopeId, ecmascript, file_names},
        projects::paths,
        symbols::file_symbols,
    },
    syntax::TextRange,
};

pub(super) fn check(db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<Diagnostic> {
    let path = file.path(db);
    if is_declaration_file(path) {
        return Vec::new();
    }
    let symbols = file_symbols(db, file);
    let names = file_names(db, file);
    let mut found = unresolved_imports(db, workspace, file, &names, &symbols.imports);
    found.extend(unknown_import_names(
        db,
        workspace,
        file,
        &names,
        &symbols.imports,
    ));
    found.extend(arity::check(db, workspace, file, &names, &symbols.imports));
    let own = module_facts(db, file);
    let javascript = file.lang(db).info().id == "javascript";
    let undefined = own.module || !javascript;
    let candidates = if undefined && !own.triple_slash {
        let globals = workspace_globals(db, workspace);
        let test_runner_imported = symbols
            .imports
            .summaries
            .iter()
            .any(|i| ecmascript::TEST_RUNNER_MODULES.contains(&i.module.as_str()));
        undefined_candidates(&names, &globals, !test_runner_imported)
    } else {
        Vec::new()
    };
    let unused = unused_candidates(&names, &symbols.imports);
    let unused_locals = unused_variables::unused_candidates(&names);
    if candidates.is_empty() && unused.is_empty() && unused_locals.is_empty() {
        return found;
    }
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return found;
    };
    let text = &**file.text(db);
    let root = tree.root_node();
    found.extend(undefined_names(&names, root, text, candidates, javascript));
    found.extend(unused_imports(&names, root, text, unused));
    found.extend(unused_variables::unused_variables(
        &names,
        root,
        text,
        unused_locals,
    ));
    found
}

/// `.d.ts`, `.d.mts`, `.d.cts`: declarations of what is defined elsewhere.
fn is_declaration_file(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    // `a.d.ts`, and `styles.d.css.ts` (declarations for another kind of file).
    [".ts", ".mts", ".cts"]
        .iter()
        .any(|ext| name.ends_with(ext))
        && name.contains(".d.")
}

/// What other files' checks need of a file, without positions: what it adds to the global
/// scope and what it exports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ModuleFacts {
    /// It has a top-level `import` or `export` (or is `.mjs`, `.mts`, …): its top-level
    /// names are its own.
    pub module: bool,
    /// It has a `/// <reference types=… />` or `path=…` directive.
    pub triple_slash: bool,
    /// The global names it declares, sorted: a script's top-level names, `declare global`
    /// blocks' names, `export as namespace N`.
    pub globals: Box<[Box<str>]>,
    /// The names it exports itself, sorted; `None` when that cannot be told from its text
    /// alone: it has `export =`, CommonJS exports (`module.exports`, `exports.x`), a syntax
    /// error, or no `import` or `export` at all (a script).
    pub exports: Option<Box<[Box<str>]>>,
    /// The specifiers of its `export * from "…"` statements, sorted: it exports their
    /// modules' names too ([`module_exports`] follows them).
    pub star_exports: Box<[Box<str>]>,
}

/// The global names `file` declares and the names it exports, from one parse. Backdates
/// when an edit leaves them alone (an edit in a body), so other files' checks stay valid.
#[salsa::tracked(returns(clone))]
pub fn module_facts(db: &dyn Db, file: SourceFile) -> Arc<ModuleFacts> {
    let path = file.path(db);
    let always_module = [".mjs", ".cjs", ".mts", ".cts"]
        .iter()
        .any(|ext| path.ends_with(ext));
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return Arc::new(ModuleFacts::default());
    };
    let text = &**file.text(db);
    let root = tree.root_node();
    let mut ambient = ModuleFacts {
        module: always_module,
        ..ModuleFacts::default()
    };
    let mut globals: Vec<&str> = Vec::new();
    let mut exported: Vec<&str> = Vec::new();
    let mut stars: Vec<&str> = Vec::new();
    let mut exports_known = !text.contains("exports");
    let mut top_level: Vec<&str> = Vec::new();
    let mut cursor = root.walk();
    for statement in root.named_children(&mut cursor) {
        match statement.kind() {
            "import_statement" => ambient.module = true,
            "export_statement" => {
                ambient.module = true;
                exports_known &= statement_exports(statement, text, &mut exported, &mut stars);
                // `export as namespace N` (a UMD library's global).
                let words: Vec<&str> = text[statement.byte_range()].split_whitespace().collect();
                if let ["export", "as", "namespace", name, ..] = words.as_slice() {
                    globals.push(name.trim_end_matches(';'));
                }
            }
            // `/// <reference types="…" />` or `path="…"` brings in declarations sextant may
            // not see; `lib="…"` only a part of TypeScript's library, all of whose globals
            // are known.
            "comment" => {
                let comment = &text[statement.byte_range()];
                if let Some(rest) = comment.strip_prefix("///")
                    && rest.trim_start().starts_with("<reference")
                    && !rest.contains("lib=")
                    && !rest.contains("no-default-lib")
                {
                    ambient.triple_slash = true;
                }
            }
            "ambient_declaration" => {
                let mut inner = statement.walk();
                let block = statement
                    .children(&mut inner)
                    .skip_while(|c| c.kind() != "global")
                    .find(|c| c.kind() == "statement_block");
                match block {
                    Some(block) => {
                        let mut inner = block.walk();
                        for declaration in block.named_children(&mut inner) {
                            declared_names(declaration, text, &mut globals);
                        }
                    }
                    None => declared_names(statement, text, &mut top_level),
                }
            }
            _ => declared_names(statement, text, &mut top_level),
        }
    }
    if !ambient.module {
        globals.extend(top_level);
    }
    globals.sort_unstable();
    globals.dedup();
    ambient.globals = globals.into_iter().map(Box::from).collect();
    // A tree with errors may hide exports.
    if ambient.module && exports_known && !root.has_error() {
        exported.sort_unstable();
        exported.dedup();
        ambient.exports = Some(exported.into_iter().map(Box::from).collect());
        stars.sort_unstable();
        stars.dedup();
        ambient.star_exports = stars.into_iter().map(Box::from).collect();
    }
    Arc::new(ambient)
}

/// Every name `file` exports: its own, and through `export * from` those of the workspace
/// modules it names, transitively (each module once, so cycles end; `export *` passes on
/// no `default`). `None` when that cannot be told: a module on the way has exports
/// [`module_facts`] cannot tell, or an `export *` names a module outside the workspace or
/// none. Position-free: reads only `module_facts` and the path-built module map.
#[salsa::tracked(returns(clone))]
pub fn module_exports(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
) -> Option<Arc<[Box<str>]>> {
    let facts = module_facts(db, file);
    let own = facts.exports.as_ref()?;
    if facts.star_exports.is_empty() {
        return Some(own.iter().cloned().collect());
    }
    let mut names: Vec<Box<str>> = own.to_vec();
    let mut seen = HashSet::from([file]);
    let mut stack: Vec<(SourceFile, Arc<ModuleFacts>)> = vec![(file, facts)];
    while let Some((from, facts)) = stack.pop() {
        for spec in facts.star_exports.iter() {
            let module_only = ImportSummary {
                module: spec.to_string(),
                ..ImportSummary::default()
            };
            let imports::Target::Resolved { file: target, .. } =
                imports::resolve(db, workspace, from, &module_only)
            else {
                return None;
            };
            if !seen.insert(target) {
                continue;
            }
            let target_facts = module_facts(db, target);
            let exported = target_facts.exports.as_ref()?;
            names.extend(exported.iter().filter(|n| &***n != "default").cloned());
            stack.push((target, target_facts));
        }
    }
    names.sort_unstable();
    names.dedup();
    Some(names.into())
}

/// The names a top-level statement declares (`var a, {b}`, `function f`, `class C`,
/// `interface I`, `type T`, `enum E`, `namespace N`, their `declare` and `export` forms).
fn declared_names<'t>(statement: tree_sitter::Node, text: &'t str, out: &mut Vec<&'t str>) {
    let name_of = |node: tree_sitter::Node| {
        node.child_by_field_name("name")
            .filter(|n| matches!(n.kind(), "identifier" | "type_identifier"))
            .map(|n| &text[n.byte_range()])
    };
    match statement.kind() {
        "variable_declaration" | "lexical_declaration" => {
            let mut cursor = statement.walk();
            for declarator in statement.named_children(&mut cursor) {
                if let Some(pattern) = declarator.child_by_field_name("name") {
                    pattern_names(pattern, text, out);
                }
            }
        }
        "function_declaration"
        | "generator_function_declaration"
        | "function_signature"
        | "class_declaration"
        | "abstract_class_declaration"
        | "interface_declaration"
        | "type_alias_declaration"
        | "enum_declaration"
        | "internal_module"
        | "module" => out.extend(name_of(statement)),
        "ambient_declaration" | "expression_statement" | "export_statement" => {
            let mut cursor = statement.walk();
            for child in statement.named_children(&mut cursor) {
                declared_names(child, text, out);
            }
        }
        _ => {}
    }
}

/// The names a binding pattern binds (`a`, `{b, c: d}`, `[e, ...f]`).
fn pattern_names<'t>(pattern: tree_sitter::Node, text: &'t str, out: &mut Vec<&'t str>) {
    walk(pattern, &mut |node| match node.kind() {
        "identifier" | "shorthand_property_identifier_pattern" => {
            let is_default_value = node.parent().is_some_and(|p| {
                matches!(p.kind(), "assignment_pattern" | "object_assignment_pattern")
                    && p.child_by_field_name("right")
                        .is_some_and(|r| r.id() == node.id())
            });
            if !is_default_value {
                out.push(&text[node.byte_range()]);
            }
            false
        }
        // A default value's expression, a computed key, a type: no bindings inside.
        "type_annotation" | "computed_property_name" => false,
        "pair_pattern" => {
            if let Some(value) = node.child_by_field_name("value") {
                pattern_names(value, text, out);
            }
            false
        }
        _ => true,
    });
}

/// The global names the workspace's files declare ([`module_facts`] of each).
#[salsa::tracked(returns(clone))]
pub fn workspace_globals(db: &dyn Db, workspace: Workspace) -> Arc<HashSet<Box<str>>> {
    let mut found = HashSet::new();
    for &file in workspace.files(db).iter() {
        if file.lang(db).info().import_style == "ecmascript" {
            found.extend(module_facts(db, file).globals.iter().cloned());
        }
    }
    Arc::new(found)
}

/// Whether a use of a name needs a binding: a read, or an assignment (modules are strict
/// code, where assigning an undeclared name throws).
fn needs_binding(role: Role) -> bool {
    role.reads_binding() || role == Role::Write
}

/// Whether a binding of `name` in `scope` or a scope around it is seen from `scope`.
fn is_bound(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    visible_binding_scope(names, scope, name).is_some()
}

/// The innermost scope around `scope` (itself included) whose binding of `name` a use in
/// `scope` sees: a class body's own bindings are its members (reached through `this`), except
/// its type parameters.
fn visible_binding_scope(names: &FileNames, scope: ScopeId, name: &str) -> Option<ScopeId> {
    let mut current = Some(scope);
    while let Some(id) = current {
        let info = &names.scopes[id as usize];
        let bindings = names.bindings(id, name);
        let seen = if info.is_class && is_class_body(names, id) {
            bindings
                .iter()
                .any(|&b| names.occurrence(b).role == Role::Definition(BindingKind::TypeParameter))
        } else {
            !bindings.is_empty()
        };
        if seen {
            return Some(id);
        }
        current = info.parent;
    }
    None
}

/// A class's scope (not an interface's or enum's, whose names are seen inside them).
fn is_class_body(names: &FileNames, scope: ScopeId) -> bool {
    names.scopes[scope as usize]
        .named_by
        .is_none_or(|n| names.occurrence(n).role != Role::Definition(BindingKind::Type))
}

/// Types the grammar reads as names (`bigint`), and `intrinsic` (the compiler's own).
const TYPE_KEYWORDS: &[&str] = &[
    "bigint",
    "object",
    "symbol",
    "unknown",
    "never",
    "any",
    "undefined",
    "intrinsic",
    "string",
    "number",
    "boolean",
    "void",
    "null",
];

/// Uses of names bound nowhere in the file, not global, and not declared global by the
/// workspace: judged against the tree afterwards.
fn undefined_candidates(
    names: &FileNames,
    globals: &HashSet<Box<str>>,
    test_globals: bool,
) -> Vec<OccurrenceId> {
    (0..names.occurrences.len() as OccurrenceId)
        .filter(|&id| {
            let occurrence = names.occurrence(id);
            let name = names.name(id);
            let is_type = occurrence.role == Role::Type;
            let predeclared = matches!(name, "arguments" | "await" | "yield")
                || (is_type && TYPE_KEYWORDS.contains(&name))
                || ecmascript::is_global(name)
                || (test_globals && ecmascript::is_test_global(name))
                || globals.contains(name);
            let seen = predeclared
                || is_bound(names, occurrence.scope, name)
                || (is_type && inferred_around(names, id));
            needs_binding(occurrence.role) && !seen
        })
        .collect()
}

/// Whether the type use `id` may see an `infer` of its name: a type parameter of that name
/// bound anywhere in the outermost scope around it (`infer P` in a conditional type's
/// function type is seen in its true branch, outside that function type's scope).
fn inferred_around(names: &FileNames, id: OccurrenceId) -> bool {
    let mut outermost = names.occurrence(id).scope;
    while let Some(parent) = names.scopes[outermost as usize].parent.filter(|&p| p != 0) {
        outermost = parent;
    }
    let range = names.scopes[outermost as usize].range;
    names.occurrences_named(names.name(id)).any(|o| {
        let occurrence = names.occurrence(o);
        occurrence.role == Role::Definition(BindingKind::TypeParameter)
            && range.contains_range(occurrence.range)
    })
}

fn undefined_names(
    names: &FileNames,
    root: tree_sitter::Node,
    text: &str,
    candidates: Vec<OccurrenceId>,
    javascript: bool,
) -> Vec<Diagnostic> {
    // JavaScript tests for optional globals with `typeof Deno !== "undefined"`.
    let detected = if javascript {
        typeof_operands(root, text)
    } else {
        HashSet::new()
    };
    let mut found = Vec::new();
    for id in candidates {
        let name = names.name(id);
        // JavaScript also sets globals through an alias of the global object
        // (`root.Prism = …`): a name the file assigns as a member may be one.
        let assigned_as_member = javascript
            && names
                .occurrences_named(name)
                .any(|o| names.occurrence(o).role == Role::MemberDefinition);
        if detected.contains(name) || assigned_as_member {
            continue;
        }
        let occurrence = names.occurrence(id);
        let name = names.name(id);
        let range = occurrence.range;
        let Some(node) = root.descendant_for_byte_range(range.start().into(), range.end().into())
        else {
            continue;
        };
        if !is_name_use(node, text) {
            continue;
        }
        // Namespaces merge: another `namespace N { export const x }` is seen as `x` here.
        let in_a_namespace = names.occurrences_named(name).any(|o| {
            let occurrence = names.occurrence(o);
            matches!(occurrence.role, Role::Definition(_))
                && is_namespace_body(names, occurrence.scope)
        });
        if in_a_namespace && in_namespace(node) {
            continue;
        }
        found.push(Diagnostic::new(
            ids::UNDEFINED_NAME,
            range,
            format!("undefined name '{name}'"),
        ));
    }
    found
}

/// Whether an identifier the locals query takes for a use is one: not a JSX element's tag
/// (`<div>`, `</Foo>`), an index signature's or tuple member's label, an ambient module's
/// name (`declare module M`), or a name exported (`export * as ns`, `export {a as b}`,
/// `export as namespace N`).
fn is_name_use(node: tree_sitter::Node, text: &str) -> bool {
    let Some(parent) = node.parent() else {
        return true;
    };
    let name = &text[node.byte_range()];
    match parent.kind() {
        "jsx_opening_element" | "jsx_self_closing_element" => {
            !(name.starts_with(|c: char| c.is_ascii_lowercase()) || name.contains('-'))
        }
        "jsx_closing_element" | "jsx_namespace_name" | "index_signature" | "namespace_export" => {
            false
        }
        // `export {a as b}`: `b` is the name exported.
        "export_specifier" => parent
            .child_by_field_name("alias")
            .is_none_or(|n| n.id() != node.id()),
        "module" => parent
            .child_by_field_name("name")
            .is_none_or(|n| n.id() != node.id()),
        // `[first: string, rest?: number]`: labels of a tuple's members.
        "required_parameter" | "optional_parameter" | "rest_pattern" => {
            parent.parent().is_none_or(|p| p.kind() != "tuple_type")
        }
        // `export as namespace N` declares N.
        "export_statement" => node.prev_sibling().is_none_or(|p| p.kind() != "namespace"),
        _ => true,
    }
}

/// A `namespace N { … }` body: a scope that is not a class's, named by a class-like
/// definition.
fn is_namespace_body(names: &FileNames, scope: ScopeId) -> bool {
    let info = &names.scopes[scope as usize];
    !info.is_class
        && info
            .named_by
            .is_some_and(|n| names.occurrence(n).role == Role::Definition(BindingKind::Class))
}

/// Names written as `typeof name` in an expression.
fn typeof_operands<'t>(root: tree_sitter::Node, text: &'t str) -> HashSet<&'t str> {
    let mut found = HashSet::new();
    walk(root, &mut |node| {
        if node.kind() == "unary_expression"
            && node
                .child_by_field_name("operator")
                .is_some_and(|o| o.kind() == "typeof")
            && let Some(argument) = node
                .child_by_field_name("argument")
                .filter(|a| a.kind() == "identifier")
        {
            found.insert(&text[argument.byte_range()]);
        }
        true
    });
    found
}

/// Whether `node` is inside a `namespace N { … }` or `declare module … { … }`.
fn in_namespace(node: tree_sitter::Node) -> bool {
    let mut current = node.parent();
    while let Some(n) = current {
        if matches!(n.kind(), "internal_module" | "module") {
            return true;
        }
        current = n.parent();
    }
    false
}

/// Top-level import bindings of `import` statements (not `export … from`) that no use in
/// the file sees, each with the import it comes from.
fn unused_candidates<'i>(
    names: &FileNames,
    imports: &'i FileImports,
) -> Vec<(OccurrenceId, &'i ImportSummary)> {
    let mut found = Vec::new();
    for (id, occurrence) in names.occurrences.iter().enumerate() {
        let id = id as OccurrenceId;
        if occurrence.role != Role::Definition(BindingKind::Import) || occurrence.scope != 0 {
            continue;
        }
        let name = names.name(id);
        let Some(import) = imports
            .statements
            .iter()
            .zip(imports.summaries.iter())
            .find(|(statement, summary)| {
                statement.contains_range(occurrence.range) && local_name(summary) == Some(name)
            })
            .map(|(_, summary)| summary)
        else {
            continue;
        };
        if import.is_public {
            continue;
        }
        let used = names.occurrences_named(name).any(|u| {
            let use_ = names.occurrence(u);
            use_.role.reads_binding() && sees_module_binding(names, use_.scope, name)
        });
        if !used {
            found.push((id, import));
        }
    }
    found
}

/// The name an import binds in the file: its alias, else the name it imports.
fn local_name(import: &ImportSummary) -> Option<&str> {
    import.alias.as_deref().or(import.name.as_deref())
}

/// Whether a use of `name` in `scope` sees the module's binding (no scope between binds
/// it).
fn sees_module_binding(names: &FileNames, scope: ScopeId, name: &str) -> bool {
    matches!(visible_binding_scope(names, scope, name), None | Some(0))
}

/// Names a JSX factory may need in scope (the classic runtime's `React.createElement`, or a
/// `jsxFactory` such as Preact's `h`), kept when the file has JSX.
const JSX_FACTORIES: &[&str] = &["React", "h", "Fragment", "jsx", "createElement", "Preact"];

fn unused_imports(
    names: &FileNames,
    root: tree_sitter::Node,
    text: &str,
    candidates: Vec<(OccurrenceId, &ImportSummary)>,
) -> Vec<Diagnostic> {
    let (has_jsx, mentioned) = jsx_and_comment_words(root, text);
    let mut found = Vec::new();
    for (id, import) in candidates {
        let name = names.name(id);
        if mentioned.contains(name) || (has_jsx && JSX_FACTORIES.contains(&name)) {
            continue;
        }
        let what = match &import.name {
            Some(imported) if imported != name => format!("{imported} as {name}"),
            _ => name.to_string(),
        };
        found.push(Diagnostic::new(
            ids::UNUSED_IMPORT,
            names.occurrence(id).range,
            format!("'{what}' imported from '{}' but unused", import.module),
        ));
    }
    found
}

/// Whether the file has JSX, and the words of its comments (`{@link Name}`, `@jsx h`,
/// `@type {Name}` in JSDoc name imports too).
fn jsx_and_comment_words<'t>(root: tree_sitter::Node, text: &'t str) -> (bool, HashSet<&'t str>) {
    let mut has_jsx = false;
    let mut words = HashSet::new();
    walk(root, &mut |node| {
        match node.kind() {
            "comment" => words.extend(
                text[node.byte_range()]
                    .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
                    .filter(|w| !w.is_empty()),
            ),
            kind if kind.starts_with("jsx_") => has_jsx = true,
            _ => {}
        }
        true
    });
    (has_jsx, words)
}

/// Adds the names one `export` statement exports, and the specifier of an `export * from`
/// to `stars`; false when it may export any name.
fn statement_exports<'t>(
    statement: tree_sitter::Node,
    text: &'t str,
    out: &mut Vec<&'t str>,
    stars: &mut Vec<&'t str>,
) -> bool {
    let export_name = |node: tree_sitter::Node| -> &'t str {
        let node = match node.kind() {
            "string" => node.named_child(0).unwrap_or(node),
            _ => node,
        };
        &text[node.byte_range()]
    };
    let mut cursor = statement.walk();
    let children: Vec<tree_sitter::Node> = statement.children(&mut cursor).collect();
    if children.iter().any(|c| c.kind() == "default") {
        out.push("default");
        return true;
    }
    if let Some(declaration) = statement.child_by_field_name("declaration") {
        declared_names(declaration, text, out);
        return true;
    }
    let mut understood = false;
    for child in children {
        match child.kind() {
            "=" => return false,
            // `export * from "m"` (not `export * as ns`, a `namespace_export`): the names
            // of `m`, when its specifier is a plain string.
            "*" => {
                let source = statement
                    .child_by_field_name("source")
                    .filter(|s| s.named_child_count() == 1)
                    .and_then(|s| s.named_child(0))
                    .filter(|f| f.kind() == "string_fragment");
                match source {
                    Some(fragment) => stars.push(&text[fragment.byte_range()]),
                    None => return false,
                }
                understood = true;
            }
            "namespace_export" => {
                let mut inner = child.walk();
                let name = child.named_children(&mut inner).last();
                out.extend(name.map(export_name));
                understood = true;
            }
            "export_clause" => {
                let mut inner = child.walk();
                for specifier in child.named_children(&mut inner) {
                    let name = specifier
                        .child_by_field_name("alias")
                        .or_else(|| specifier.child_by_field_name("name"));
                    out.extend(name.map(export_name));
                }
                understood = true;
            }
            "import_alias" => {
                let mut inner = child.walk();
                let name = child.named_children(&mut inner).next();
                out.extend(name.map(export_name));
                understood = true;
            }
            _ => {}
        }
    }
    understood
}

/// Names imported (or re-exported with `export {…} from`) from a workspace module that
/// does not export them, when what it exports is known ([`module_facts`]).
fn unknown_import_names(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    names: &FileNames,
    imports: &FileImports,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    for (summary, &statement) in imports.summaries.iter().zip(imports.statements.iter()) {
        let Some(name) = summary.name.as_deref().filter(|_| !summary.wildcard) else {
            continue;
        };
        if calls_a_local_require(names, statement) {
            continue;
        }
        let Some(target) = super::module_file(db, workspace, file, &summary.module) else {
            continue;
        };
        // A JavaScript importer runs against JavaScript, TypeScript's checks against
        // declarations (a `.js` target stands for its `.d.ts`): judge like against like.
        let is_javascript = |f: SourceFile| f.lang(db).info().id == "javascript";
        if target == file || is_javascript(target) != is_javascript(file) {
            continue;
        }
        let Some(exported) = module_exports(db, workspace, target) else {
            continue;
        };
        if exported.iter().any(|e| &**e == name) {
            continue;
        }
        // The imported name where it is written (for a default import, the local name).
        let written = if name == "default" {
            summary.alias.as_deref()
        } else {
            Some(name)
        };
        let range = written
            .and_then(|written| {
                names
                    .occurrences
                    .iter()
                    .find(|o| {
                        statement.contains_range(o.range)
                            && matches!(
                                o.role,
                                Role::Imported | Role::Definition(BindingKind::Import)
                            )
                            && names.text_between(o.range.start().into(), o.range.end().into())
                                == written
                    })
                    .map(|o| o.range)
            })
            .unwrap_or(statement);
        let message = if name == "default" {
            format!("module '{}' has no default export", summary.module)
        } else {
            format!("module '{}' does not export '{name}'", summary.module)
        };
        found.push(Diagnostic::new(ids::UNKNOWN_IMPORT_NAME, range, message));
    }
    found
}

/// Imports that name a workspace path no file is: relative specifiers (`./a`, `../b`) and
/// specifiers a tsconfig's `paths` maps, with no extension or a JavaScript or TypeScript
/// one (`./style.css` names a file sextant does not index).
fn unresolved_imports(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    names: &FileNames,
    imports: &FileImports,
) -> Vec<Diagnostic> {
    let mut found = Vec::new();
    let mut reported: HashSet<(TextRange, &str)> = HashSet::new();
    let modules: Arc<EcmascriptModules> = ecmascript_modules(db, workspace);
    let importer = file.path(db);
    for (summary, &statement) in imports.summaries.iter().zip(imports.statements.iter()) {
        let spec = summary.module.as_str();
        let relative =
            spec == "." || spec == ".." || spec.starts_with("./") || spec.starts_with("../");
        // A path above the workspace's root is outside what sextant can judge.
        let inside = !relative || paths::join(paths::parent(importer), spec).is_some();
        if !(relative || modules.is_path_mapped(importer, spec))
            || !inside
            || !names_a_script(spec)
            || reported.contains(&(statement, spec))
            || calls_a_local_require(names, statement)
        {
            continue;
        }
        let module_only = ImportSummary {
            module: summary.module.clone(),
            ..ImportSummary::default()
        };
        if !matches!(
            imports::resolve(db, workspace, file, &module_only),
            imports::Target::Unresolved
        ) {
            continue;
        }
        reported.insert((statement, spec));
        found.push(Diagnostic::new(
            ids::UNRESOLVED_IMPORT,
            statement,
            format!("no module '{spec}' in the workspace"),
        ));
    }
    found
}

/// Whether the statement calls a `require` the file binds itself (a bundle's module
/// wrapper `function (require, module, exports) { … }`), not Node's.
fn calls_a_local_require(names: &FileNames, statement: TextRange) -> bool {
    names.occurrences_named("require").any(|o| {
        let occurrence = names.occurrence(o);
        occurrence.role == Role::Call
            && statement.contains_range(occurrence.range)
            && is_bound(names, occurrence.scope, "require")
    })
}

/// Extensions of files a bundler imports that sextant does not index.
const ASSET_EXTENSIONS: &[&str] = &[
    "css", "scss", "sass", "less", "styl", "pcss", "json", "json5", "jsonc", "svg", "png", "jpg",
    "jpeg", "gif", "webp", "avif", "ico", "bmp", "wasm", "html", "htm", "txt", "md", "mdx", "yaml",
    "yml", "toml", "xml", "csv", "graphql", "gql", "vue", "svelte", "astro", "woff", "woff2",
    "ttf", "eot", "otf", "mp3", "mp4", "webm", "wav", "ogg", "node", "glsl", "frag", "vert",
    "wgsl", "hbs", "ejs", "pug", "sql", "proto",
];

/// A specifier that may name a script: its last part has no extension, or one that is not a
/// stylesheet's, an image's, JSON's… (`./user.service` is `user.service.ts`); not a
/// loader's (`./a?raw`, `text!./b`).
fn names_a_script(spec: &str) -> bool {
    if spec.contains(['?', '!', '#']) {
        return false;
    }
    let last = spec.rsplit('/').next().unwrap_or(spec);
    match last.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => {
            !ASSET_EXTENSIONS.contains(&ext.to_ascii_lowercase().as_str())
        }
        _ => true,
    }
}
