//! SX006 in Go: an import whose package name appears nowhere in the file outside the import
//! declarations (a compile error in Go). The name is only judged when it is known: an
//! alias, the one `package` clause of the workspace package's files built everywhere (not
//! tests), or the last element of a standard library path (`grammars/go-std.txt`; `…/v2`
//! skipped); `_`, `.` and `"C"` imports never, nor an import of a workspace package that
//! does not exist (SX003 says so).
//!
//! Invariant: reads the file's own tree and, of other files, only position-free facts: the
//! package map (`go_packages`), manifests, and `go_file_facts` (which backdates when an edit
//! changes no package-level name).

pub(super) use crate::checks::sx003_unresolved_import::go::unused_imports as check;
