//! The fixes of SX007 in Go, all safe: an unused variable does not compile, so there is no
//! running behaviour to change, and each keeps every value's evaluation. A name of `:=`
//! becomes `_` (`x := f()` → `_ = f()`: `:=` becomes `=` when no new variable is left on
//! its left, the others being assigned, as the check's scopes know); a `:=` or `var` of
//! one name whose value is a literal, or a `var` without one, leaves; `var x = f()` becomes
//! `_ = f()`, `var x T = v` becomes `var _ T = v` (as `var x pkg.T` does when nothing else
//! names `pkg`); a range, receive or type switch variable leaves its clause (`for k := range
//! m` → `for range m`, `for k, v :=` → `for k :=`); in a function's `var ( … )` group a spec's
//! line leaves (the declaration with its last spec) or its name becomes `_`, where gofmt's
//! alignment of the group stays as it is and no comment moves (`group_edit`).

use std::collections::HashSet;

use tree_sitter::Node;

use crate::checks::{
    fix::{C_LIKE_STATEMENTS, Fix, gofmt_blank_lines, range, remove_statement},
    node_range,
};

/// The fix of the unused variable named at `name`; `declared` holds the ids of the name
/// nodes that declare a variable (a name of `:=` not among them assigns one).
pub(super) fn fix(name: Node, text: &str, declared: &HashSet<usize>) -> Option<Fix> {
    let bound = &text[name.byte_range()];
    let parent = name.parent()?;
    let holder = parent.parent()?;
    match (parent.kind(), holder.kind()) {
        ("expression_list", "short_var_declaration") => {
            short_var(holder, parent, name, text, declared, bound)
        }
        ("expression_list", "range_clause" | "receive_statement") => {
            clause_target(holder, parent, name, text, bound)
        }
        ("expression_list", "type_switch_statement") => {
            // `switch v := x.(type)` → `switch x.(type)`.
            let value = holder.child_by_field_name("value")?;
            let edit = (
                range(parent.start_byte(), value.start_byte()),
                String::new(),
            );
            Some(Fix::safe(removed(bound), vec![edit]))
        }
        ("var_spec", _) => var_spec(parent, name, text, bound),
        _ => None,
    }
}

fn removed(bound: &str) -> String {
    format!("Remove unused variable '{bound}'")
}

fn short_var(
    statement: Node,
    left: Node,
    name: Node,
    text: &str,
    declared: &HashSet<usize>,
    bound: &str,
) -> Option<Fix> {
    let targets: Vec<Node> = named_children(left).collect();
    let right = statement.child_by_field_name("right")?;
    let block = statement.parent().filter(|p| p.kind() == "statement_list");
    if let Some(block) = block
        && targets.len() == 1
        && all_literals(right)
    {
        return removal(statement, block, text, bound);
    }
    let mut edits = vec![(node_range(name), "_".to_string())];
    let others_new = targets
        .iter()
        .any(|t| t.id() != name.id() && declared.contains(&t.id()));
    let others_assigned = targets
        .iter()
        .any(|t| t.id() != name.id() && &text[t.byte_range()] != "_");
    if !others_new {
        let operator = children(statement).find(|c| c.kind() == ":=")?;
        edits.push((node_range(operator), "=".to_string()));
    }
    let title = format!("Replace unused variable '{bound}' with '_'");
    // Two names of one statement fixed together could leave `:=` with no new name; a `=`
    // assigning names declared earlier in the block needs their declarations, which a
    // fix of theirs in the same pass could turn into `_`.
    let isolation = match (others_new, others_assigned) {
        (false, true) => statement.parent().unwrap_or(statement),
        _ => statement,
    };
    Some(Fix::safe(title, edits).isolated_in(Some(node_range(isolation))))
}

/// A variable of `for … := range`, `case … := <-ch` (all new): the last one leaves with
/// its comma, another becomes `_`, and when only `_` would be left the whole left side
/// goes with its `:=`.
fn clause_target(clause: Node, left: Node, name: Node, text: &str, bound: &str) -> Option<Fix> {
    let targets: Vec<Node> = named_children(left).collect();
    let index = targets.iter().position(|t| t.id() == name.id())?;
    let others_blank = targets
        .iter()
        .all(|t| t.id() == name.id() || &text[t.byte_range()] == "_");
    let edit = if others_blank {
        let operator = children(clause).find(|c| matches!(c.kind(), ":=" | "="))?;
        let next = operator.next_sibling()?;
        (range(left.start_byte(), next.start_byte()), String::new())
    } else if index + 1 == targets.len() {
        let previous = targets[index - 1];
        (range(previous.end_byte(), name.end_byte()), String::new())
    } else {
        (node_range(name), "_".to_string())
    };
    Some(Fix::safe(removed(bound), vec![edit]).isolated_in(Some(node_range(clause))))
}

/// `var x T`, `var x = 1`, `var x T = 1` leave; `var x = f()` becomes `_ = f()`; `var x T =
/// v` becomes `var _ T = v` (`v` keeps its type), as does a `var` that would leave when `T`
/// names a package nothing else in the file names (its import would be left unused). In a
/// group (`var ( … )`) the spec's line leaves (the whole declaration with its last spec)
/// and `x = f()` becomes `_ = f()` in place, as `group_edit` allows. A spec of several names
/// is left alone.
fn var_spec(spec: Node, name: Node, text: &str, bound: &str) -> Option<Fix> {
    let parent = spec.parent()?;
    let (declaration, group) = match parent.kind() {
        "var_spec_list" => (parent.parent()?, Some(parent)),
        _ => (parent, None),
    };
    if declaration.kind() != "var_declaration" {
        return None;
    }
    let block = declaration
        .parent()
        .filter(|p| p.kind() == "statement_list")?;
    let mut cursor = spec.walk();
    if spec.children_by_field_name("name", &mut cursor).count() != 1 {
        return None;
    }
    let ty = spec.child_by_field_name("type");
    let blank = || {
        let title = format!("Replace unused variable '{bound}' with '_'");
        let edit = (node_range(name), "_".to_string());
        match group {
            Some(list) => group_edit(list, spec, text, GroupEdit::Blank(bound))
                .map(|_| Fix::safe(title, vec![edit]).isolated_in(Some(node_range(list)))),
            None => Some(Fix::safe(title, vec![edit])),
        }
    };
    // Two removals naming one package, applied together, could leave its import unused:
    // such a removal is kept apart from every other fix of the file.
    let names_package = ty.is_some_and(|ty| names_a_package(ty, text, usize::MAX));
    let remove = || {
        let fix = match group {
            Some(list) => group_removal(list, spec, declaration, block, text, bound)?,
            None => removal(declaration, block, text, bound)?,
        };
        Some(match names_package {
            true => fix.isolated_in(Some(range(0, text.len()))),
            false => fix,
        })
    };
    match (spec.child_by_field_name("value"), ty) {
        (None, Some(ty)) if names_a_package(ty, text, 1) => blank(),
        (None, _) => remove(),
        (Some(value), None) if all_literals(value) => remove(),
        // `var _ = f()` in a group; alone, the plainer `_ = f()`.
        (Some(_), None) if group.is_some() => blank(),
        (Some(value), None) => {
            let edit = (
                range(declaration.start_byte(), value.start_byte()),
                "_ = ".to_string(),
            );
            let title = format!("Replace unused variable '{bound}' with '_'");
            Some(Fix::safe(title, vec![edit]))
        }
        (Some(value), Some(ty)) if all_literals(value) && !names_a_package(ty, text, 1) => remove(),
        (Some(_), Some(_)) => blank(),
    }
}

/// The removal of `spec` from the group `list` of `declaration`: its line (with its
/// trailing comment) when other specs stay, else the whole declaration, unless another
/// comment is in the group (it would go with it). One fix per group per pass: two could
/// empty it, leaving `var ()`.
fn group_removal(
    list: Node,
    spec: Node,
    declaration: Node,
    block: Node,
    text: &str,
    bound: &str,
) -> Option<Fix> {
    let specs = named_children(list)
        .filter(|n| n.kind() == "var_spec")
        .count();
    if specs == 1 {
        let row = spec.end_position().row;
        let other_comment = named_children(list).any(|n| {
            n.kind() == "comment"
                && (n.start_position().row != row || n.start_byte() < spec.end_byte())
        });
        return match other_comment {
            true => None,
            false => removal(declaration, block, text, bound),
        };
    }
    group_edit(list, spec, text, GroupEdit::Remove)?;
    let edit = remove_statement(text, spec, false, &C_LIKE_STATEMENTS)?;
    let edit = gofmt_blank_lines(text, edit, true);
    Some(Fix::safe(removed(bound), vec![edit]).isolated_in(Some(node_range(list))))
}

/// What a fix does to a spec of a `var ( … )` group.
#[derive(Clone, Copy)]
enum GroupEdit<'a> {
    /// Its line leaves.
    Remove,
    /// Its name, this one, becomes `_`.
    Blank(&'a str),
}

/// Whether `edit` of `spec` leaves the group `list` as gofmt writes it and moves no
/// comment. gofmt aligns the names, types, values and trailing comments of a group's
/// adjacent lines (a run with no blank line) in columns, padding each cell to its column's
/// widest, so the specs of a gofmt-clean run with no padding (two spaces in a row, a tab)
/// have equal cells: a run that keeps its unpadded lines needs no padding (unless the
/// removal joins two blocks of a column, `joins`); a name becoming
/// `_` changes no column when it was one character wide, and needs no padding alone in its
/// run. A spec over several lines, a comment before it on its line, or a comment
/// line just above (its doc, which would then describe the next spec) or below it, leaves
/// the group alone.
fn group_edit(list: Node, spec: Node, text: &str, edit: GroupEdit) -> Option<()> {
    let row = spec.start_position().row;
    if spec.end_position().row != row
        || named_children(list)
            .any(|n| n.start_position().row != n.end_position().row && n.kind() == "var_spec")
    {
        return None;
    }
    let lines: Vec<&str> = text[list.byte_range()].split('\n').collect();
    let first_row = list.start_position().row;
    // The group's own lines, by row; the first and last hold the parentheses.
    let line = |r: usize| lines.get(r.checked_sub(first_row)?).map(|l| l.trim());
    let comment_line =
        |r: usize| line(r).is_some_and(|l| l.starts_with("//") || l.starts_with("/*"));
    let before_on_line = line(row).is_some_and(|l| !l.starts_with(&text[spec.byte_range()]));
    if before_on_line || comment_line(row - 1) || comment_line(row + 1) {
        return None;
    }
    let in_run = |r: &usize| {
        *r > first_row && *r < list.end_position().row && line(*r).is_some_and(|l| !l.is_empty())
    };
    let run: Vec<usize> = (first_row + 1..row)
        .rev()
        .take_while(in_run)
        .chain((row + 1..).take_while(in_run))
        .collect();
    let padded = |r: usize| line(r).is_some_and(|l| l.contains("  ") || l.contains('\t'));
    // The cells gofmt aligns that a line ends (a name; a type before `= value`; what
    // precedes a trailing comment): the lines beside a removed one become adjacent, and
    // their cells of a column the removed line did not have would join one block, aligned.
    let cells = |r: usize| {
        let spec = named_children(list).find(|n| n.start_position().row == r);
        spec.map_or(0, |spec| {
            let typed_value = spec.child_by_field_name("type").is_some()
                && spec.child_by_field_name("value").is_some();
            let commented = named_children(list).any(|n| {
                n.kind() == "comment"
                    && n.start_position().row == r
                    && n.start_byte() > spec.end_byte()
            });
            1 + usize::from(typed_value) + usize::from(commented)
        })
    };
    let joins = run.contains(&(row - 1))
        && run.contains(&(row + 1))
        && cells(row) < cells(row - 1).min(cells(row + 1));
    let fits = match edit {
        GroupEdit::Remove => !joins && !run.iter().any(|&r| padded(r)),
        GroupEdit::Blank(bound) => run.is_empty() || bound.chars().count() == 1,
    };
    fits.then_some(())
}

/// Whether the type `ty` names a package (`bytes.Buffer`) that the file names at most
/// `times` times.
fn names_a_package(ty: Node, text: &str, times: usize) -> bool {
    let mut found = false;
    crate::checks::walk(ty, &mut |node| {
        if node.kind() == "package_identifier" {
            let package = format!("{}.", &text[node.byte_range()]);
            let uses = text.match_indices(package.as_str()).filter(|&(at, _)| {
                !text[..at]
                    .chars()
                    .next_back()
                    .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.')
            });
            found |= uses.count() <= times;
        }
        true
    });
    found
}

/// The statement removed from its block: the block is kept apart in one pass, since two
/// removals side by side could leave two blank lines together.
fn removal(statement: Node, block: Node, text: &str, bound: &str) -> Option<Fix> {
    let edit = remove_statement(text, statement, false, &C_LIKE_STATEMENTS)?;
    let edit = gofmt_blank_lines(text, edit, false);
    Some(Fix::safe(removed(bound), vec![edit]).isolated_in(Some(node_range(block))))
}

/// Whether every expression of `list` is a literal (evaluating it does nothing).
fn all_literals(list: Node) -> bool {
    named_children(list)
        .filter(|n| n.kind() != "comment")
        .all(is_literal)
}

fn is_literal(value: Node) -> bool {
    match value.kind() {
        "int_literal"
        | "float_literal"
        | "imaginary_literal"
        | "rune_literal"
        | "raw_string_literal"
        | "interpreted_string_literal"
        | "true"
        | "false"
        | "nil" => true,
        "unary_expression" => {
            value.child_by_field_name("operand").is_some_and(|o| {
                matches!(
                    o.kind(),
                    "int_literal" | "float_literal" | "imaginary_literal"
                )
            }) && children(value).any(|c| matches!(c.kind(), "-" | "+"))
        }
        _ => false,
    }
}

fn named_children(node: Node) -> impl Iterator<Item = Node> {
    (0..node.named_child_count()).filter_map(move |i| node.named_child(i as u32))
}

fn children(node: Node) -> impl Iterator<Item = Node> {
    (0..node.child_count()).filter_map(move |i| node.child(i))
}
