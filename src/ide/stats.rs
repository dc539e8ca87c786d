//! `stats`: what the workspace holds, per language.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::{
    db::{Db, SourceFile, Workspace},
    semantic::index::symbol_index,
};

#[derive(Clone, Debug, Default, Serialize, schemars::JsonSchema)]
pub struct LanguageStats {
    pub language: String,
    pub files: usize,
    pub bytes: usize,
    pub lines: usize,
    pub symbols: usize,
    /// Files that are not valid UTF-8 (analysed with invalid bytes replaced).
    pub lossy_files: usize,
}

#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct WorkspaceStats {
    pub files: usize,
    pub bytes: usize,
    /// The memory the texts take now: a text kept compressed (once indexed, see
    /// docs/memory.md) counts its compressed size.
    pub text_bytes_kept: usize,
    pub lines: usize,
    pub symbols: usize,
    pub languages: Vec<LanguageStats>,
}

pub(crate) fn workspace_stats(db: &dyn Db, workspace: Workspace) -> WorkspaceStats {
    let mut per_lang: BTreeMap<String, LanguageStats> = BTreeMap::new();
    // From the index, which a warm start reads whole, rather than from each file's symbols.
    let mut symbols: BTreeMap<&str, usize> = BTreeMap::new();
    for entry in symbol_index(db, workspace).entries() {
        *symbols.entry(&entry.lang.info().id).or_default() += 1;
    }
    let mut text_bytes_kept = 0;
    for &file in workspace.files(db).iter() {
        let lang = &file.lang(db).info().id;
        text_bytes_kept += file.stored_text(db).kept_bytes();
        let entry = per_lang
            .entry(lang.clone())
            .or_insert_with(|| LanguageStats {
                language: lang.clone(),
                ..Default::default()
            });
        entry.files += 1;
        entry.bytes += file.text_len(db);
        entry.lines += line_count(db, file);
        entry.lossy_files += usize::from(file.lossy_utf8(db));
    }
    let mut languages: Vec<LanguageStats> = per_lang.into_values().collect();
    for l in &mut languages {
        l.symbols = symbols.get(l.language.as_str()).copied().unwrap_or(0);
    }
    WorkspaceStats {
        files: languages.iter().map(|l| l.files).sum(),
        bytes: languages.iter().map(|l| l.bytes).sum(),
        text_bytes_kept,
        lines: languages.iter().map(|l| l.lines).sum(),
        symbols: languages.iter().map(|l| l.symbols).sum(),
        languages,
    }
}

/// A file's line count, memoized: a status asked often would otherwise read every text
/// (kept compressed on a large workspace) each time.
#[salsa::tracked]
pub(crate) fn line_count(db: &dyn Db, file: SourceFile) -> usize {
    file.text(db).lines().count()
}
