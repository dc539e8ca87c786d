//! Deep diagnostics: the projects' own type checkers (`workspace::typecheck`), run after
//! a save and published with the open documents' own diagnostics.
//!
//! Invariant: a checker runs only after `textDocument/didSave`, never on a keystroke, and
//! only when enabled (`initializationOptions.typecheck.deep`, else `[typecheck] deep` in
//! `sextant.toml`). One run at a time: a newer save cancels the running one, which kills
//! its checker's process group, and a superseded run's result is dropped. A run replaces
//! what the same checker last said about the same project, so a save that fixes an error
//! clears it, and a save in one project leaves another project's findings shown. Runs go
//! on a thread of their own, not the worker pool: a `cargo check` may take minutes, and
//! the pool answers requests. Each diagnostic's `source` is its tool's name.

use std::{
    collections::{BTreeMap, HashMap},
    sync::Arc,
};

use crossbeam_channel::Sender;
use lsp_types::{Diagnostic, Uri};

use super::{line_index::LineIndex, line_index::PositionEncoding, to_proto, uri};
use crate::{
    ide::DiagnosticInfo,
    workspace::{
        live::{LiveWorkspace, RequestCancel, Snapshot},
        typecheck,
    },
};

/// A checker's run on a project: (tool, the project's absolute path).
type RunKey = (String, String);

/// A run's outcome, sent back to the main loop.
pub struct Finished {
    run: Arc<RequestCancel>,
    /// Per checker run: its diagnostics, by document.
    reports: Vec<(RunKey, Vec<(Uri, Diagnostic)>)>,
}

#[derive(Default)]
pub struct DeepDiagnostics {
    /// `initializationOptions.typecheck.deep`; `None` leaves it to `sextant.toml`.
    pub enabled: Option<bool>,
    running: Option<Arc<RequestCancel>>,
    /// The root of the folder the running check is in.
    running_root: Option<std::path::PathBuf>,
    /// What each checker last said about each project.
    shown: BTreeMap<RunKey, Vec<(Uri, Diagnostic)>>,
}

impl DeepDiagnostics {
    /// `initializationOptions` as the client sent them: `{"typecheck": {"deep": true}}`.
    pub fn from_init(options: Option<&serde_json::Value>) -> DeepDiagnostics {
        let enabled = options
            .and_then(|o| o.get("typecheck"))
            .and_then(|t| t.get("deep"))
            .and_then(serde_json::Value::as_bool);
        DeepDiagnostics {
            enabled,
            ..DeepDiagnostics::default()
        }
    }

    /// `rel` was saved: the checkers of its projects run (if enabled), on a thread, the
    /// running one cancelled first.
    pub fn saved<T: Send + 'static>(
        &mut self,
        live: &Arc<LiveWorkspace>,
        rel: String,
        encoding: PositionEncoding,
        results: &Sender<T>,
        wrap: fn(Finished) -> T,
    ) {
        if let Some(running) = self.running.take() {
            running.cancel();
        }
        let run = Arc::new(RequestCancel::default());
        self.running = Some(run.clone());
        self.running_root = Some(live.root().to_path_buf());
        let (live, results, enabled) = (live.clone(), results.clone(), self.enabled);
        let spawned = std::thread::Builder::new()
            .name("sextant-deep-check".into())
            .spawn(move || {
                if let Some(finished) = check(&live, run, &rel, encoding, enabled) {
                    let _ = results.send(wrap(finished));
                }
            });
        if let Err(e) = spawned {
            eprintln!("sextant: lsp: starting a deep check: {e}");
        }
    }

    /// A run ended: if it is the latest, what it says replaces what its checkers said
    /// before, and the documents whose deep diagnostics changed are given them (by
    /// document, to be published with the document's own).
    // `Uri`'s parsed parts are cached inside it, never changing what it hashes as.
    #[allow(clippy::mutable_key_type)]
    pub fn finished(&mut self, finished: Finished) -> Option<Vec<(Uri, Vec<Diagnostic>)>> {
        let latest = self
            .running
            .as_ref()
            .is_some_and(|run| Arc::ptr_eq(run, &finished.run));
        if !latest {
            return None;
        }
        self.running = None;
        self.running_root = None;
        Some(self.changing(|shown| {
            for (key, report) in finished.reports {
                shown.insert(key, report);
            }
            shown.retain(|_, report| !report.is_empty());
        }))
    }

    /// The folder at `root` is no longer served: its running check stops, and what its
    /// checkers said is forgotten; gives the documents whose deep diagnostics changed.
    #[allow(clippy::mutable_key_type)]
    pub fn forget_folder(&mut self, root: &std::path::Path) -> Vec<(Uri, Vec<Diagnostic>)> {
        if self.running_root.as_deref() == Some(root) {
            self.cancel();
        }
        self.changing(|shown| {
            shown.retain(|(_, project), _| !std::path::Path::new(project).starts_with(root));
        })
    }

    /// Applies `change` to what is shown, and gives each document whose deep diagnostics
    /// it changed with their new list.
    #[allow(clippy::mutable_key_type)]
    fn changing(
        &mut self,
        change: impl FnOnce(&mut BTreeMap<RunKey, Vec<(Uri, Diagnostic)>>),
    ) -> Vec<(Uri, Vec<Diagnostic>)> {
        let before = self.by_document();
        change(&mut self.shown);
        let after = self.by_document();
        let mut changed: Vec<(Uri, Vec<Diagnostic>)> = Vec::new();
        for uri in before.keys().chain(after.keys()) {
            if before.get(uri) != after.get(uri) && !changed.iter().any(|(u, _)| u == uri) {
                changed.push((uri.clone(), after.get(uri).cloned().unwrap_or_default()));
            }
        }
        changed
    }

    #[allow(clippy::mutable_key_type)]
    fn by_document(&self) -> HashMap<Uri, Vec<Diagnostic>> {
        let mut by = HashMap::<Uri, Vec<Diagnostic>>::new();
        for (uri, d) in self.shown.values().flatten() {
            by.entry(uri.clone()).or_default().push(d.clone());
        }
        by
    }

    /// Stops the running check (the server is stopping).
    pub fn cancel(&mut self) {
        self.running_root = None;
        if let Some(running) = self.running.take() {
            running.cancel();
        }
    }
}

/// Plans on a snapshot, runs the checkers without one, then converts positions over the
/// snapshot of the moment (the texts checked, unless the editor changed them since: then
/// the positions are the saved text's, as every editor's build diagnostics are). `None`
/// when cancelled or not enabled.
fn check(
    live: &LiveWorkspace,
    run: Arc<RequestCancel>,
    rel: &str,
    encoding: PositionEncoding,
    enabled: Option<bool>,
) -> Option<Finished> {
    let plan = live
        .read(&run, |s: &Snapshot| {
            let (config, state_dir) = &*s.typecheck;
            if !enabled.unwrap_or(config.deep) {
                return Ok(None);
            }
            let options = typecheck::DeepOptions {
                root: &s.root,
                config,
                state_dir: state_dir.clone(),
                read_only: false,
            };
            typecheck::plan(&s.analysis, &[rel.to_string()], &options).map(Some)
        })
        .ok()??;
    let outcome = plan.run(&|| run.is_cancelled());
    if run.is_cancelled() {
        return None;
    }
    let reports = live
        .read(&run, |s: &Snapshot| {
            let mut diagnostics = outcome.diagnostics.iter();
            let mut reports = Vec::new();
            for checker in &outcome.checkers {
                // A run's diagnostics follow the previous run's, as many as it counts.
                let found: Vec<&DiagnosticInfo> =
                    diagnostics.by_ref().take(checker.diagnostics).collect();
                if checker.status == typecheck::CheckerStatus::Cancelled {
                    continue;
                }
                // By the project's whole path: each workspace folder names its own `.`.
                let project = s.root.join(&checker.project).display().to_string();
                let key = (checker.tool.clone(), project);
                reports.push((key, in_lsp_terms(s, encoding, &checker.tool, &found)?));
            }
            Ok(reports)
        })
        .ok()?;
    Some(Finished { run, reports })
}

fn in_lsp_terms(
    s: &Snapshot,
    encoding: PositionEncoding,
    tool: &str,
    found: &[&DiagnosticInfo],
) -> Result<Vec<(Uri, Diagnostic)>, crate::ide::Cancelled> {
    let mut by_path = BTreeMap::<&str, Vec<DiagnosticInfo>>::new();
    for d in found {
        by_path.entry(&d.path).or_default().push((*d).clone());
    }
    let mut converted = Vec::new();
    for (path, infos) in by_path {
        let (Some(file), Some(uri)) = (s.file(path), uri::path_to_uri(&s.root.join(path))) else {
            continue;
        };
        let index = LineIndex {
            index: s.analysis.line_index(file)?,
            encoding,
        };
        let elsewhere = |path: &str, span: &crate::ide::Span| {
            to_proto::location(s, encoding, path, span).ok().flatten()
        };
        for mut d in to_proto::diagnostics(&index, &uri, &infos, &elsewhere) {
            d.source = Some(tool.to_string());
            converted.push((uri.clone(), d));
        }
    }
    Ok(converted)
}
