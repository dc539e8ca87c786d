//! A file's diagnostics from the persistent cache (`db::records`): [`recorded_diagnostics`],
//! keyed by the file's inputs and by every input a check of its language family can read.
//!
//! What a check reads, established from the code (the family's row, then what all share):
//!
//! - Python: `python_modules` (every file's language, the Python files' paths, the
//!   projects' source roots), `submodule`, `module_names` and `python_signatures` of Python
//!   files it resolves to, `definer_index(Python)` (`python_definitions` and `file_imports`
//!   of Python files, and their imports' resolution).
//! - JavaScript and TypeScript, one family since they import each other:
//!   `ecmascript_modules` (every file's language, their paths, `package.json` and tsconfig
//!   facts), `module_facts`, `module_exports` and `ecmascript_signatures` of JavaScript and
//!   TypeScript files, `workspace_globals` (the `module_facts` of every such file),
//!   `definer_index(Ecmascript)`, `keeps_unused_imports` (tsconfigs).
//! - Go: `go_packages` (every file's language, the Go files' paths), `go_file_facts` and
//!   `go_signatures` of the Go files of a package, `go.mod` and `go.work` through `projects`.
//! - Rust: `rust_modules` (every file's language, the Rust files' paths and `mod`
//!   declarations, `Cargo.toml` through `projects`), `file_symbols`, `symbol_summaries` and
//!   `file_imports` of the Rust files its imports resolve to.
//! - Every family: its own file's queries, `projects` (every manifest, the workspace's root,
//!   and through `python_src_dirs` every file's path).
//!
//! Every map over other files filters them by family before reading more than a path and a
//! language (`python_modules`, `ecmascript_modules`, `go_packages`, `rust_modules`,
//! `definer_index`, `workspace_globals`), and the targets of a resolution come from those
//! maps: no check reads the text, or anything computed from the text, of a file of another
//! family. So the key holds the root, every file's path and language, the full inputs of
//! the files of the checked file's family, and every manifest; an edit to a Python file
//! leaves the records of Rust files usable.
//!
//! Invariant: a record is used only under a key hashing everything [`file_diagnostics`]
//! reads for the file (a read of another family's texts added to a check must widen
//! [`InputFamily`]), and only in the first state of those inputs the process met, the one
//! the next start is likely to find again (`RecordStore::is_first_state`).

use std::sync::Arc;

use super::{Diagnostic, file_diagnostics};
use crate::{
    db::{Db, RecordKind, SourceFile, Workspace},
    lang::Family,
    semantic::persisted,
};

/// The files whose full inputs a check can read: those whose imports resolve by the same
/// rules as its own file's.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum InputFamily {
    Python,
    /// JavaScript and TypeScript: each imports the other.
    Ecma,
    Go,
    Rust,
}

impl InputFamily {
    fn of(family: Family) -> InputFamily {
        match family {
            Family::Python => InputFamily::Python,
            Family::Ecma { .. } => InputFamily::Ecma,
            Family::Go => InputFamily::Go,
            Family::Rust => InputFamily::Rust,
        }
    }

    /// Its name, the scope of its first state in the record store.
    fn name(self) -> &'static str {
        match self {
            InputFamily::Python => "python",
            InputFamily::Ecma => "ecmascript",
            InputFamily::Go => "go",
            InputFamily::Rust => "rust",
        }
    }
}

/// A hash of every input a check of a `family` file can read (see the module docs): the
/// root, each file's path and language, the whole inputs of `family`'s files, and every
/// manifest. Not re-run when only another family's texts change.
#[salsa::tracked(returns(copy))]
fn check_inputs_hash(db: &dyn Db, workspace: Workspace, family: InputFamily) -> [u8; 32] {
    let mut hasher = blake3::Hasher::new();
    let mut part = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    part(workspace.root(db).as_os_str().as_encoded_bytes());
    for &file in workspace.files(db).iter() {
        let lang = file.lang(db).info();
        if InputFamily::of(lang.family) == family {
            part(&persisted::file_input_hash(db, file));
        } else {
            part(file.path(db).as_bytes());
            part(lang.id.as_bytes());
        }
    }
    for manifest in workspace.manifests(db).iter() {
        part(manifest.path(db).as_bytes());
        part(format!("{:?}", manifest.kind(db)).as_bytes());
        part(manifest.text(db).as_bytes());
    }
    *hasher.finalize().as_bytes()
}

/// The file's diagnostics, from the persistent cache when an earlier process recorded them
/// under the inputs its check reads now and those are the first state of them this process
/// met, else [`file_diagnostics`]'s. What every whole-workspace check and every answer
/// reads.
#[salsa::tracked(returns(clone))]
pub fn recorded_diagnostics(
    db: &dyn Db,
    workspace: Workspace,
    file: SourceFile,
) -> Arc<[Diagnostic]> {
    let Some(records) = db.records() else {
        return file_diagnostics(db, workspace, file);
    };
    let family = InputFamily::of(file.lang(db).info().family);
    let inputs = check_inputs_hash(db, workspace, family);
    if !records.is_first_state(family.name(), inputs) {
        return file_diagnostics(db, workspace, file);
    }
    let this = persisted::file_input_hash(db, file);
    let found: Vec<Diagnostic> = persisted::recorded(
        db,
        RecordKind::FileDiagnostics,
        || [inputs.to_vec(), this.to_vec()],
        || file_diagnostics(db, workspace, file).to_vec(),
    );
    found.into()
}
