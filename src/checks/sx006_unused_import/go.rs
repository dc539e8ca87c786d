//! SX006 in Go: an import whose package name appears nowhere in the file outside the import
//! declarations (a compile error in Go). The name is only judged when it is known: an
//! alias, the one `package` clause of the workspace package's files built everywhere (not
//! tests), or the last element of a standard library path (`grammars/go-std.txt`; `…/v2`
//! skipped); `_`, `.` and `"C"` imports never, nor an import of a workspace package that
//! does not exist (SX003 says so).
//!
//! The fix removes the spec's line from its group, or the whole declaration when it is the
//! group's last spec or a lone `import "fmt"`; safe, since a program with an unused import
//! does not compile (there is no running behaviour to change). What it leaves is as gofmt
//! would write it when the input was.
//!
//! Invariant: reads the file's own tree and, of other files, only position-free facts: the
//! package map (`go_packages`), manifests, and `go_file_facts` (which backdates when an edit
//! changes no package-level name).

use std::collections::HashMap;

use tree_sitter::Node;

use crate::{
    checks::{
        Diagnostic,
        fix::{C_LIKE_STATEMENTS, Fix, gofmt_blank_lines, range, remove_statement},
        node_range,
        sx003_unresolved_import::go::unused_imports,
    },
    db::{Db, SourceFile, Workspace},
};

pub(super) fn check(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    tree: &tree_sitter::Tree,
) -> Vec<Diagnostic> {
    let found = unused_imports(db, workspace, file, tree);
    if found.is_empty() {
        return found;
    }
    let text = &*file.text(db);
    let root = tree.root_node();
    found
        .into_iter()
        .map(|diagnostic| {
            let (start, end) = (diagnostic.range.start(), diagnostic.range.end());
            let mut spec = root.descendant_for_byte_range(start.into(), end.into());
            while let Some(node) = spec.filter(|n| n.kind() != "import_spec") {
                spec = node.parent();
            }
            let fix = spec.and_then(|spec| removal(spec, text));
            diagnostic.with_fix(fix)
        })
        .collect()
}

/// The fix removing `spec`: its line (with its trailing comment) from a group of several,
/// else the whole declaration. `None` when a comment other than the spec's trailing one
/// would go with it, or when the removal would move another spec's trailing comment (gofmt
/// aligns those of adjacent lines). A group's fixes are applied one per pass (two could
/// empty the group, leaving `import ()`), as are whole declarations side by side (the blank
/// lines around them).
fn removal(spec: Node, text: &str) -> Option<Fix> {
    let path = spec.child_by_field_name("path")?;
    let title = format!("Remove unused import {}", &text[path.byte_range()]);
    let parent = spec.parent()?;
    if parent.kind() == "import_spec_list" {
        let specs: Vec<Node> = named_children(parent)
            .filter(|n| n.kind() == "import_spec")
            .collect();
        if specs.len() > 1 {
            if moves_aligned_comments(parent, spec, text) {
                return None;
            }
            let edit = remove_statement(text, spec, false, &C_LIKE_STATEMENTS)?;
            let edit = gofmt_blank_lines(text, edit, true);
            return Some(Fix::safe(title, vec![edit]).isolated_in(Some(node_range(parent))));
        }
    }
    let declaration = match parent.kind() {
        "import_spec_list" => parent.parent()?,
        _ => parent,
    };
    let row = spec.end_position().row;
    let other_comment = named_children(parent).any(|n| {
        n.kind() == "comment" && (n.start_position().row != row || n.start_byte() < spec.end_byte())
    });
    let line_end = text[declaration.end_byte()..]
        .find('\n')
        .map_or(text.len(), |i| declaration.end_byte() + i);
    let after_group = parent.kind() == "import_spec_list"
        && !text[declaration.end_byte()..line_end].trim().is_empty();
    if other_comment || after_group {
        return None;
    }
    let edit = remove_statement(text, declaration, false, &C_LIKE_STATEMENTS)?;
    let edit = gofmt_blank_lines(text, edit, false);
    let around = range(
        declaration.prev_sibling().map_or(0, |n| n.end_byte()),
        declaration
            .next_sibling()
            .map_or(text.len(), |n| n.start_byte()),
    );
    Some(Fix::safe(title, vec![edit]).isolated_in(Some(around)))
}

/// Whether removing `spec`'s line from `list` would move the other specs' trailing
/// comments: gofmt aligns those of adjacent lines one space past the widest spec, so the
/// lines left beside it (joined into one run when it had a comment or stood between two
/// runs) must be aligned already with their widest one a space from its comment.
fn moves_aligned_comments(list: Node, spec: Node, text: &str) -> bool {
    // By row: the column a spec's text ends at and the column of its trailing comment.
    let mut commented: HashMap<usize, (usize, usize)> = HashMap::new();
    for comment in named_children(list).filter(|n| n.kind() == "comment") {
        let row = comment.start_position().row;
        let code = named_children(list).find(|n| {
            n.kind() == "import_spec"
                && n.end_position().row == row
                && n.end_byte() <= comment.start_byte()
        });
        if let Some(code) = code {
            commented.insert(
                row,
                (code.end_position().column, comment.start_position().column),
            );
        }
    }
    let row = spec.end_position().row;
    let had = commented.remove(&row).is_some();
    let run = |rows: &mut dyn Iterator<Item = usize>| -> Vec<(usize, usize)> {
        rows.map_while(|r| commented.get(&r).copied()).collect()
    };
    let above = run(&mut (0..row).rev());
    let below = run(&mut (row + 1..));
    if !(had || !above.is_empty() && !below.is_empty()) {
        return false;
    }
    let left: Vec<(usize, usize)> = above.into_iter().chain(below).collect();
    let Some(&(_, column)) = left.first() else {
        return false;
    };
    let lines = &text[list.byte_range()];
    !lines.is_ascii()
        || left.iter().any(|&(_, c)| c != column)
        || left.iter().all(|&(end, c)| c != end + 1)
}

fn named_children(node: Node) -> impl Iterator<Item = Node> {
    (0..node.named_child_count()).filter_map(move |i| node.named_child(i as u32))
}
