//! `hover`: what the name under the cursor is — its definition's signature and its
//! documentation (a Python docstring, or the comment lines right above the definition).

use serde::Serialize;

use super::{Definition, Span, navigation};
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::Family,
    semantic::{
        names::python,
        symbols::{SymbolPositions, file_symbols},
    },
    syntax::TextRange,
};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
pub struct HoverInfo {
    /// The definition hovered, as `definition` gives it (the first, when there are several).
    pub definition: Definition,
    /// The definition's head on one line (`def area(self) -> float`), when it is a symbol.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signature: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub documentation: Option<String>,
    /// The name hovered.
    pub range: Span,
    /// The language of the file hovered (its registry id), for showing the signature.
    pub language: String,
}

pub(crate) fn hover(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
    offset: usize,
) -> Option<HoverInfo> {
    let names = crate::semantic::names::file_names(db, file);
    let occurrence = names.at_offset(offset)?;
    let range = names.occurrence(occurrence).range;
    let (target, definition) = navigation::definitions_at(db, workspace, file, offset)
        .into_iter()
        .next()?;
    let (mut signature, mut documentation) = (None, None);
    if let (Some(target), Some(span)) = (target, &definition.span) {
        let name = span.text_range();
        let symbols = file_symbols(db, target);
        if let Some(i) = symbols.positions.iter().position(|p| p.name_range == name) {
            signature = Some(symbols.signatures.get(i).to_owned());
            documentation = definition_documentation(db, target, &symbols.positions[i]);
        }
    }
    let index = crate::semantic::line_index(db, file);
    Some(HoverInfo {
        definition,
        signature,
        documentation,
        range: Span::new(&index, range),
        language: file.lang(db).info().id.clone(),
    })
}

/// A definition's documentation: its Python docstring, else the comment lines right above
/// it.
pub(crate) fn definition_documentation(
    db: &dyn Db,
    file: SourceFile,
    position: &SymbolPositions,
) -> Option<String> {
    let lang = file.lang(db).info();
    let text = &*file.text(db);
    let docstring = (lang.family == Family::Python)
        .then(|| crate::semantic::file_tree(db, file))
        .flatten()
        .and_then(|tree| python::docstring_in(&tree, text, position.name_range));
    docstring.or_else(|| doc_comment(text, position.range, lang))
}

/// The line comments right above a definition (`///`, `//`, `#`), markers removed;
/// attribute and decorator lines (`#[…]`, `@…`) between them and the definition are passed,
/// and so are modifiers on its own line that its range leaves out (`export`, `pub`).
fn doc_comment(text: &str, definition: TextRange, lang: &crate::lang::Language) -> Option<String> {
    let before = text.get(..usize::from(definition.start()))?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let only_modifiers = before[line_start..]
        .chars()
        .all(|c| c.is_ascii_alphabetic() || c == ' ' || c == '\t');
    if !only_modifiers {
        return None;
    }
    let mut lines: Vec<&str> = Vec::new();
    for line in before[..line_start].lines().rev() {
        let trimmed = line.trim();
        if lines.is_empty() && (trimmed.starts_with("#[") || trimmed.starts_with('@')) {
            continue;
        }
        let Some(marker) = lang
            .line_comment
            .iter()
            .filter(|m| trimmed.starts_with(m.as_str()))
            .max_by_key(|m| m.len())
        else {
            break;
        };
        let body = trimmed[marker.len()..].trim_start_matches(['/', '!']);
        lines.push(body.strip_prefix(' ').unwrap_or(body));
    }
    lines.reverse();
    (!lines.is_empty()).then(|| lines.join("\n"))
}
