//! The diagnostics a change of texts would introduce, found before anything is written:
//! the workspace with the new texts is analysed in a scratch database ([`super::scratch`]),
//! and each changed file's diagnostics there are compared with its diagnostics now.
//!
//! Invariant: a diagnostic is new when the file after the change has more diagnostics of
//! its code and message than the file before (a created file: than none); positions are
//! not compared (nor a line the message names), since an edit above a diagnostic moves it
//! without changing it. Only the changed files are checked here; a file the change leaves
//! alone but breaks (a caller of a deleted function) is not reported (fixes check the
//! files importing what they change themselves, `ide/fix.rs`).

use std::{collections::HashMap, sync::Arc};

use super::change::FileContent;
use crate::{
    db::{Db, SourceFile, Workspace},
    lang::registry,
};

/// A file's diagnostics as the caller selects and reports them, compared by code and
/// message.
pub(crate) trait Diagnostics: Sync {
    type Finding: Clone + Send + Sync;

    fn of(&self, db: &dyn Db, workspace: Workspace, file: SourceFile) -> Vec<Self::Finding>;

    fn code_and_message(finding: &Self::Finding) -> (&str, &str);
}

/// One file's new text.
pub(crate) struct ChangedText {
    /// Where the text will be.
    pub path: String,
    /// Where the file is now: `path`, the path it moves from, or `None` for a created file.
    pub was: Option<String>,
    pub text: String,
}

/// The diagnostics the changed files would have that they do not have now, in the order
/// of `changed`; `removed` files are left out of the scratch workspace. `Err` when the
/// scratch analysis panicked (a bug; the caller must not call the change checked).
pub(crate) fn new_diagnostics<D: Diagnostics>(
    db: &dyn Db,
    workspace: Workspace,
    diagnostics: &D,
    changed: &[ChangedText],
    removed: &[String],
) -> std::thread::Result<Vec<D::Finding>> {
    let by_path: HashMap<&str, SourceFile> = workspace
        .files(db)
        .iter()
        .map(|&file| (file.path(db).as_str(), file))
        .collect();
    let before: Vec<Vec<D::Finding>> = changed
        .iter()
        .map(|change| {
            let was = change.was.as_deref().and_then(|was| by_path.get(was));
            was.map_or_else(Vec::new, |&file| diagnostics.of(db, workspace, file))
        })
        .collect();

    let gone: Vec<&str> = removed
        .iter()
        .map(String::as_str)
        .chain(changed.iter().filter_map(|c| c.was.as_deref()))
        .collect();
    let mut texts = Vec::new();
    let mut checked = Vec::new();
    for change in changed {
        let lang = registry().for_path(std::path::Path::new(&change.path), first_line(change));
        if let Some(lang) = lang {
            let content = FileContent {
                lang: lang.lang_id,
                text: Arc::from(change.text.as_str()),
                lossy_utf8: false,
            };
            texts.push((change.path.clone(), content));
        }
        checked.push(lang.is_some());
    }
    super::scratch::on_workspace_scratch(db, workspace, texts, &gone, move |inputs| {
        let checked: Vec<(SourceFile, &Vec<D::Finding>)> = (changed.iter().zip(&before))
            .zip(checked)
            .filter(|(_, checked)| *checked)
            .filter_map(|((change, was), _)| Some((inputs.file(&change.path)?, was)))
            .collect();
        let workspace = inputs.workspace;
        let found = super::scratch::on_all_cores(&inputs.db, &checked, |db, (file, was)| {
            added::<D>(was, &diagnostics.of(db, workspace, *file))
        });
        found.into_iter().flatten().collect()
    })
}

fn first_line(change: &ChangedText) -> Option<&[u8]> {
    change.text.lines().next().map(str::as_bytes)
}

/// The findings of `is` beyond those of `was` with the same code and message (a line a
/// message names, "from line 12", is not compared: an edit above moves it).
pub(crate) fn added<D: Diagnostics>(was: &[D::Finding], is: &[D::Finding]) -> Vec<D::Finding> {
    let key = |finding: &D::Finding| {
        let (code, message) = D::code_and_message(finding);
        (code.to_string(), without_line_numbers(message))
    };
    let mut seen: HashMap<(String, String), usize> = HashMap::new();
    for finding in was {
        *seen.entry(key(finding)).or_default() += 1;
    }
    is.iter()
        .filter(|finding| match seen.get_mut(&key(finding)) {
            Some(count) if *count > 0 => {
                *count -= 1;
                false
            }
            _ => true,
        })
        .cloned()
        .collect()
}

/// `message` with the number after each `line ` left out.
fn without_line_numbers(message: &str) -> String {
    let mut out = String::with_capacity(message.len());
    let mut rest = message;
    while let Some(at) = rest.find("line ") {
        let (head, tail) = rest.split_at(at + "line ".len());
        out.push_str(head);
        rest = tail.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::without_line_numbers;

    #[test]
    fn messages_are_compared_without_the_lines_they_name() {
        assert_eq!(
            without_line_numbers("redefinition of unused 'B' from line 556"),
            "redefinition of unused 'B' from line "
        );
        assert_eq!(without_line_numbers("no line here"), "no line here");
        assert_eq!(
            without_line_numbers("line 1 and line 22x"),
            "line  and line x"
        );
    }
}
