//! The imports of a file that run when it is loaded, by the workspace file each leads to
//! ([`cycle_edges`]): the edges of the import-cycle graph (see `checks::sx012_import_cycle`
//! for what counts in each language).
//!
//! Invariant (incremental): reads its own file's tree but answers without positions, so it
//! backdates after an edit inside a function body.

use std::sync::Arc;

use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        facts::go::go_file_facts,
        import_graph::file_dependencies,
        imports::file_imports,
        names::{BindingKind, FileNames, Occurrence, Role, file_names},
        symbols::file_symbols,
    },
    syntax::TextRange,
};

/// How a language's imports take part in cycles.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Style {
    Python,
    Ecmascript,
    /// Between packages (directories).
    Go,
}

impl Style {
    pub(crate) fn of(db: &dyn Db, file: SourceFile) -> Option<Style> {
        match file.lang(db).info().family {
            Family::Python => Some(Style::Python),
            Family::Ecma { .. } => Some(Style::Ecmascript),
            Family::Go => Some(Style::Go),
            // `use` cycles between modules of one crate are legal.
            Family::Rust => None,
        }
    }
}

/// One import of a file, by its index in the file's `file_imports`: position-free.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Hop {
    pub file: SourceFile,
    pub import: u32,
}

/// `file`'s imports that run when it is loaded, by the workspace file each leads to (in the
/// order first imported), with their indices into `file_imports`. Position-free, so it
/// backdates after an edit inside a body.
#[salsa::tracked(returns(clone))]
pub fn cycle_edges(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
) -> Arc<[(SourceFile, Vec<u32>)]> {
    let Some(style) = Style::of(db, file) else {
        return Arc::new([]);
    };
    let deps = file_dependencies(db, workspace, file);
    if deps.files.is_empty() {
        return Arc::new([]);
    }
    if style == Style::Go
        && go_file_facts(db, file)
            .package
            .as_deref()
            .is_some_and(|p| p.ends_with("_test"))
    {
        return Arc::new([]);
    }
    let counts = runtime_imports(db, file, style);
    deps.files
        .iter()
        .filter_map(|(target, imports)| {
            let imports: Vec<u32> = imports
                .iter()
                .copied()
                .filter(|&i| counts.get(i as usize).copied().unwrap_or(false))
                .collect();
            (!imports.is_empty()).then_some((*target, imports))
        })
        .collect()
}

/// Per import of `file`, whether it runs when the file is loaded.
fn runtime_imports(db: &dyn Db, file: SourceFile, style: Style) -> Vec<bool> {
    let summaries = file_imports(db, file);
    if style == Style::Go {
        return vec![true; summaries.len()];
    }
    let symbols = file_symbols(db, file);
    let statements = &symbols.imports.statements;
    let Some(tree) = crate::semantic::file_tree(db, file) else {
        return vec![false; summaries.len()];
    };
    let text = &*file.text(db);
    // TypeScript erases an import whose names are used as types only.
    let names = (file.lang(db).info().family == Family::TYPESCRIPT).then(|| file_names(db, file));
    summaries
        .iter()
        .zip(statements.iter())
        .map(|(summary, range)| {
            if summary.type_only {
                return false;
            }
            let Some(node) = tree
                .root_node()
                .descendant_for_byte_range(range.start().into(), range.end().into())
            else {
                return false;
            };
            match style {
                Style::Python => python_runs_on_load(node, text),
                Style::Ecmascript => {
                    ecmascript_runs_on_load(node)
                        && !(node.kind() == "import_statement"
                            && names.as_ref().is_some_and(|n| types_only(n, *range)))
                }
                Style::Go => true,
            }
        })
        .collect()
}

/// A Python import statement runs when its module loads: no function or lambda around it,
/// not in the body of `if TYPE_CHECKING:`, nor of `if __name__ == "__main__":` (which runs
/// only when the file is run as a script).
fn python_runs_on_load(node: tree_sitter::Node, text: &str) -> bool {
    let mut child = node;
    while let Some(parent) = child.parent() {
        match parent.kind() {
            "function_definition" | "lambda" => return false,
            "if_statement"
                if parent
                    .child_by_field_name("consequence")
                    .is_some_and(|c| c.id() == child.id())
                    && parent
                        .child_by_field_name("condition")
                        .is_some_and(|c| is_type_checking(c, text) || is_main_test(c, text)) =>
            {
                return false;
            }
            _ => {}
        }
        child = parent;
    }
    true
}

/// `TYPE_CHECKING` or `typing.TYPE_CHECKING` (any module's).
fn is_type_checking(condition: tree_sitter::Node, text: &str) -> bool {
    let written = &text[condition.byte_range()];
    matches!(condition.kind(), "identifier" | "attribute")
        && (written == "TYPE_CHECKING" || written.ends_with(".TYPE_CHECKING"))
}

/// Whether the TypeScript import statement at `statement` binds names and every use of
/// them is a type (or there is none): the compiler erases it (by default; not under
/// `verbatimModuleSyntax`). A use is found by its text, so a value of the same name
/// elsewhere keeps the import.
fn types_only(names: &FileNames, statement: TextRange) -> bool {
    let text = |o: &Occurrence| names.text_between(o.range.start().into(), o.range.end().into());
    let bound: Vec<&str> = names
        .occurrences
        .iter()
        .filter(|o| {
            statement.contains_range(o.range) && o.role == Role::Definition(BindingKind::Import)
        })
        .map(text)
        .collect();
    !bound.is_empty()
        && names.occurrences.iter().all(|o| {
            statement.contains_range(o.range)
                || matches!(o.role, Role::Type | Role::Definition(_))
                || !bound.contains(&text(o))
        })
}

/// `__name__ == "__main__"` (either side, either quotes).
fn is_main_test(condition: tree_sitter::Node, text: &str) -> bool {
    if condition.kind() != "comparison_operator" {
        return false;
    }
    let written: String = text[condition.byte_range()]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .replace('\'', "\"");
    written == "__name__==\"__main__\"" || written == "\"__main__\"==__name__"
}

/// A JavaScript or TypeScript import runs when its module loads: a static `import` or
/// `export … from`, or a `require` outside every function; never a dynamic `import(…)`.
fn ecmascript_runs_on_load(node: tree_sitter::Node) -> bool {
    match node.kind() {
        "import_statement" | "export_statement" => return true,
        "call_expression"
            if node
                .child_by_field_name("function")
                .is_some_and(|f| f.kind() == "import") =>
        {
            return false;
        }
        _ => {}
    }
    let mut at = node;
    while let Some(parent) = at.parent() {
        if matches!(
            parent.kind(),
            "function_declaration"
                | "function_expression"
                | "function"
                | "generator_function_declaration"
                | "generator_function"
                | "arrow_function"
                | "method_definition"
                | "class_static_block"
        ) {
            return false;
        }
        at = parent;
    }
    true
}
