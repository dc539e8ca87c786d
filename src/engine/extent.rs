//! A definition's whole extent: its symbol's range, widened to what belongs to it, so that
//! reading a definition brings its docs, decorators and attributes along.
//!
//! Invariant: the extent only widens the symbol's range, to whole syntax nodes: the node
//! wrapping the definition when the registry lists its kind in `wrappers` (`export …`, a
//! decorated definition), then, repeatedly, the node just before it when that is a comment
//! or a kind the registry lists in `attached` (decorators, attributes), starts its own line
//! and has no blank line between it and what follows. What the registry does not list is
//! never taken, so a language without those lists gets the symbol's range plus the
//! comments right above it.

use crate::{
    db::{Db, SourceFile},
    semantic::file_tree,
    syntax::{TextRange, TextSize},
};

/// The extent of the definition whose symbol range is `range` in `file`.
pub(crate) fn definition_extent(db: &dyn Db, file: SourceFile, range: TextRange) -> TextRange {
    let Some(tree) = file_tree(db, file) else {
        return range;
    };
    let lang = file.lang(db).info();
    let text = &*file.text(db);
    let (start, end) = (usize::from(range.start()), usize::from(range.end()));
    let Some(mut node) = tree.root_node().descendant_for_byte_range(start, end) else {
        return range;
    };
    while let Some(parent) = node.parent() {
        let same_range = parent.byte_range() == node.byte_range();
        if same_range || lang.wrappers.contains(parent.kind_id()) {
            node = parent;
        } else {
            break;
        }
    }
    let mut first = node.start_byte().min(start);
    while let Some(previous) = node.prev_sibling() {
        let belongs = previous.is_extra() || lang.attached.contains(previous.kind_id());
        if !belongs || !adjacent(text, previous.end_byte(), first) || !starts_line(text, previous) {
            break;
        }
        first = previous.start_byte();
        node = previous;
    }
    TextRange::new(TextSize::new(first as u32), range.end())
}

/// No blank line between `end` and `start`: the text between them holds at most one line
/// break.
fn adjacent(text: &str, end: usize, start: usize) -> bool {
    text.get(end..start)
        .is_some_and(|between| between.matches('\n').count() <= 1)
}

/// Only whitespace before the node on its first line (not a comment trailing code).
fn starts_line(text: &str, node: tree_sitter::Node) -> bool {
    let line_start = text[..node.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    text[line_start..node.start_byte()].trim().is_empty()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::{
        db::RootDatabase,
        engine::change::{Change, FileContent, Inputs},
        lang::registry,
        semantic::symbols::file_symbols,
    };

    /// The extent of each symbol of a one-file workspace, as the text it covers.
    fn extents(path: &str, text: &str) -> Vec<String> {
        let lang = registry().for_path(Path::new(path), None).unwrap().lang_id;
        let mut change = Change::default();
        let content = FileContent {
            lang,
            text: std::sync::Arc::from(text),
            lossy_utf8: false,
        };
        change.set_file(path, content);
        let inputs = Inputs::from_change(RootDatabase::default(), "/w".into(), change);
        let (db, file) = (&inputs.db, inputs.file(path).unwrap());
        file_symbols(db, file)
            .positions
            .iter()
            .map(|p| text[definition_extent(db, file, p.range)].to_string())
            .collect()
    }

    #[test]
    fn python_decorators_and_comments_above_come_along() {
        let text = "x = 1  # trailing\n# about f\n@cache\n@other(\n    1,\n)\ndef f():\n    return 1\n\n# detached\n\nclass C:\n    pass\n";
        assert_eq!(
            extents("a.py", text),
            [
                "x = 1",
                "# about f\n@cache\n@other(\n    1,\n)\ndef f():\n    return 1",
                "class C:\n    pass",
            ]
        );
    }

    #[test]
    fn rust_doc_comments_and_attributes_come_along() {
        let text = "use std::fmt;\n/// Doc.\n#[inline]\n// plain\npub fn g() {}\n";
        assert_eq!(
            extents("a.rs", text),
            ["/// Doc.\n#[inline]\n// plain\npub fn g() {}"]
        );
    }

    #[test]
    fn typescript_exports_jsdoc_and_decorators_come_along() {
        let text = "/** Doc. */\nexport function h(): number {\n  return 1;\n}\nclass K {\n  // note\n  @dec()\n  m() {}\n}\n";
        assert_eq!(
            extents("a.ts", text),
            [
                "/** Doc. */\nexport function h(): number {\n  return 1;\n}",
                "class K {\n  // note\n  @dec()\n  m() {}\n}",
                "// note\n  @dec()\n  m() {}",
            ]
        );
    }

    #[test]
    fn go_comments_above_come_along() {
        let text = "package p\n\n// F does it.\n// Really.\nfunc F() {}\n";
        assert_eq!(
            extents("a.go", text),
            ["// F does it.\n// Really.\nfunc F() {}"]
        );
    }
}
