//! Project files (manifests): which file names they are, and reading them into the
//! database's manifest inputs.
//!
//! Invariants:
//! - The walk decides which manifests exist (so ignore rules apply: a
//!   `node_modules/**/package.json` is seen only when `node_modules` is walked); the one
//!   exception is a file a tsconfig or jsconfig `extends`, which is read wherever it lies
//!   inside the root (a package's config in an ignored `node_modules`), and only if it is
//!   on disk — otherwise the query reports the link as unresolved.
//! - Every read goes through the host's [`System`] with [`MAX_MANIFEST_SIZE`]; a manifest
//!   that cannot be read is listed among the skipped files, not loaded.
//! - The inputs change only through [`Change::set_manifest`]/[`Change::remove_manifest`],
//!   and only for files whose kind or text differ, so an unchanged manifest invalidates
//!   nothing.

use std::{
    collections::{BTreeMap, HashMap, HashSet},
    sync::Arc,
};

use super::{
    Host, SkipReason, SkippedFile,
    load::{Candidate, decode},
    reader::ReadRefusal,
    system::System,
};
use crate::{
    ide::Change,
    ide::ManifestKind,
    ide::{extends_candidates, extends_specifiers},
};

/// File names that are manifests, and what they are.
pub const MANIFEST_FILES: &[(&str, ManifestKind)] = &[
    ("Cargo.toml", ManifestKind::CargoToml),
    ("pyproject.toml", ManifestKind::PyprojectToml),
    ("setup.cfg", ManifestKind::SetupCfg),
    ("setup.py", ManifestKind::SetupPy),
    ("package.json", ManifestKind::PackageJson),
    ("tsconfig.json", ManifestKind::TsConfig),
    ("jsconfig.json", ManifestKind::JsConfig),
    ("go.mod", ManifestKind::GoMod),
    ("go.work", ManifestKind::GoWork),
];

/// Manifests larger than this are skipped (and reported): real ones are a few kilobytes.
pub const MAX_MANIFEST_SIZE: u64 = 1024 * 1024;

/// Files a tsconfig's `extends` chains may pull in, at most (they are a handful in
/// practice; this bounds a pathological tree of `extends` arrays).
const MAX_EXTENDED_FILES: usize = 1000;

/// The kind of manifest a workspace-relative path names, by its file name.
pub fn manifest_kind(rel: &str) -> Option<ManifestKind> {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    MANIFEST_FILES
        .iter()
        .find(|(file, _)| *file == name)
        .map(|&(_, kind)| kind)
}

/// The walk's candidate for a file no language handles: a manifest, or nothing.
pub(super) fn candidate(rel: String) -> Option<Candidate> {
    manifest_kind(&rel).map(|_| Candidate::Manifest(rel))
}

/// The manifests a walk found (including `setup.py`, which is also a source file).
pub(super) fn found(candidates: &[Candidate]) -> Vec<String> {
    candidates
        .iter()
        .filter_map(|c| match c {
            Candidate::Manifest(rel) => Some(rel.clone()),
            Candidate::File { rel, .. } if manifest_kind(rel).is_some() => Some(rel.clone()),
            _ => None,
        })
        .collect()
}

fn is_tsconfig(kind: ManifestKind) -> bool {
    matches!(
        kind,
        ManifestKind::TsConfig | ManifestKind::JsConfig | ManifestKind::TsConfigBase
    )
}

/// What reading one manifest gave.
enum Read {
    Text(Arc<str>),
    /// No such file (or not a file): not a manifest, for `extends` try the next candidate.
    Absent,
    /// There, but refused (too large, outside the root, unreadable): reported as skipped.
    Refused,
}

/// Reads manifests for one refresh: known, untouched ones from the database, the rest from
/// disk; remembers what it read and what it had to skip.
struct Reads<'a> {
    host: &'a Host,
    known: &'a HashMap<String, (ManifestKind, Arc<str>)>,
    touched: &'a HashSet<&'a str>,
    read: HashSet<String>,
    skipped: Vec<SkippedFile>,
}

impl Reads<'_> {
    fn get(&mut self, rel: &str) -> Read {
        if let Some((_, text)) = self.known.get(rel)
            && !self.touched.contains(rel)
        {
            return Read::Text(text.clone());
        }
        self.read.insert(rel.to_string());
        let refused = |reason, detail: String| SkippedFile {
            path: rel.to_string(),
            reason,
            detail,
        };
        match self
            .host
            .system
            .read(&self.host.root.join(rel), MAX_MANIFEST_SIZE)
        {
            Ok(content) => Read::Text(decode(content.bytes).0.into()),
            Err(ReadRefusal::NotFound | ReadRefusal::NotRegularFile(_)) => Read::Absent,
            Err(refusal) => {
                let reason = match &refusal {
                    ReadRefusal::TooLarge { .. } => SkipReason::TooLarge,
                    ReadRefusal::OutsideWorkspace(_) => SkipReason::OutsideWorkspace,
                    ReadRefusal::SymlinkLoop => SkipReason::SymlinkLoop,
                    _ => SkipReason::Unreadable,
                };
                self.skipped
                    .push(refused(reason, format!("manifest: {refusal}")));
                Read::Refused
            }
        }
    }
}

impl Host {
    /// Reads the manifests the first walk found (one new revision).
    pub(super) fn load_manifests(&mut self, found: Vec<String>) {
        let mut change = Change::default();
        self.refresh_manifests(Some(found), &HashSet::new(), &mut change);
        self.analysis.apply_change(change);
    }

    /// A manifest the index does not hold appeared in a walked directory: only a walk
    /// can tell whether ignore rules leave it out.
    pub(super) fn is_new_manifest(&self, rel: &str) -> bool {
        manifest_kind(rel).is_some()
            && !self.analysis.has_manifest(rel)
            && self.under_walked_dir(rel)
    }

    /// Brings the manifest inputs in line with the disk, into `change`: `walked` is the set
    /// of manifests a new walk found (`None`: the set is unchanged), `touched` the paths
    /// the watcher reported (re-read; the others keep their text). The files tsconfigs
    /// extend are followed again from the current texts.
    pub(super) fn refresh_manifests(
        &mut self,
        walked: Option<Vec<String>>,
        touched: &HashSet<&str>,
        change: &mut Change,
    ) {
        let known: HashMap<String, (ManifestKind, Arc<str>)> = self
            .analysis
            .manifests()
            .map(|(path, kind, text)| (path.to_string(), (kind, text.clone())))
            .collect();
        if walked.is_none() && !touched.iter().any(|t| known.contains_key(*t)) {
            return;
        }
        let roots: Vec<(String, ManifestKind)> = match walked {
            Some(found) => found
                .into_iter()
                .filter_map(|rel| Some((rel.clone(), manifest_kind(&rel)?)))
                .collect(),
            None => known
                .iter()
                .filter(|(_, (kind, _))| *kind != ManifestKind::TsConfigBase)
                .map(|(path, (kind, _))| (path.clone(), *kind))
                .collect(),
        };
        let mut reads = Reads {
            host: self,
            known: &known,
            touched,
            read: HashSet::new(),
            skipped: Vec::new(),
        };
        let mut next: BTreeMap<String, (ManifestKind, Arc<str>)> = BTreeMap::new();
        for (rel, kind) in roots {
            if let Read::Text(text) = reads.get(&rel) {
                next.insert(rel, (kind, text));
            }
        }
        follow_extends(&mut reads, &mut next);
        let (read, skipped) = (reads.read, reads.skipped);

        for (path, (kind, text)) in &next {
            match known.get(path) {
                Some((k, t)) if k == kind && t == text => {}
                _ => change.set_manifest(path.clone(), *kind, text.to_string()),
            }
        }
        for path in known.keys().filter(|p| !next.contains_key(*p)) {
            change.remove_manifest(path.clone());
        }
        self.skipped.retain(|s| !read.contains(&s.path));
        self.skipped.extend(skipped);
        self.skipped.sort_by(|a, b| a.path.cmp(&b.path));
    }
}

/// Adds to `next` every file the tsconfigs in it extend, transitively, that exists.
fn follow_extends(reads: &mut Reads<'_>, next: &mut BTreeMap<String, (ManifestKind, Arc<str>)>) {
    let root = reads.host.root.clone();
    let mut queue: Vec<String> = next
        .iter()
        .filter(|(_, (kind, _))| is_tsconfig(*kind))
        .map(|(path, _)| path.clone())
        .collect();
    let mut visited: HashSet<String> = queue.iter().cloned().collect();
    let mut extended = 0;
    while let Some(config) = queue.pop() {
        let text = next[&config].1.clone();
        for spec in extends_specifiers(&text) {
            for candidate in extends_candidates(&root, &config, &spec) {
                if next.contains_key(&candidate) {
                    if visited.insert(candidate.clone()) {
                        queue.push(candidate);
                    }
                    break;
                }
                if extended >= MAX_EXTENDED_FILES {
                    return;
                }
                match reads.get(&candidate) {
                    Read::Text(text) => {
                        extended += 1;
                        next.insert(candidate.clone(), (ManifestKind::TsConfigBase, text));
                        visited.insert(candidate.clone());
                        queue.push(candidate);
                        break;
                    }
                    Read::Absent => continue,
                    Read::Refused => break,
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_decide_the_kind() {
        assert_eq!(manifest_kind("Cargo.toml"), Some(ManifestKind::CargoToml));
        assert_eq!(
            manifest_kind("web/app/package.json"),
            Some(ManifestKind::PackageJson)
        );
        assert_eq!(
            manifest_kind("a/jsconfig.json"),
            Some(ManifestKind::JsConfig)
        );
        assert_eq!(manifest_kind("go.work"), Some(ManifestKind::GoWork));
        assert_eq!(manifest_kind("tsconfig.base.json"), None);
        assert_eq!(manifest_kind("cargo.toml"), None);
        assert_eq!(manifest_kind("my-package.json"), None);
    }
}
