//! Diagnostics for open documents (syntax errors and every enabled check, with their
//! codes): when to compute them and which to publish.
//!
//! Invariant: diagnostics are published only for the version of a document the editor
//! still has: a result computed for an older version, or for a document that changed
//! again (it is due again) or was closed, is dropped, and the run that would produce it is
//! cancelled as soon as it is superseded. Opening a document computes at once; a change
//! waits for [`DEBOUNCE`] of quiet. Runs go through the worker pool like requests; when
//! its queue is full the run is put off by another debounce, never dropped. When the
//! workspace changes otherwise (a file on disk, another document, `sextant.toml`), every
//! open document is checked again, and what changed is published. The deep check's
//! diagnostics of a document (`deep`, after a save) are published with its own, and alone
//! for a document that is not open.

use std::{
    collections::HashMap,
    sync::Arc,
    time::{Duration, Instant},
};

use crossbeam_channel::Sender;
use lsp_server::{Message, Notification};
use lsp_types::{
    Diagnostic, PublishDiagnosticsParams, Uri,
    notification::{Notification as _, PublishDiagnostics},
};

use super::{
    documents::{Document, Documents},
    line_index::{LineIndex, PositionEncoding},
    task_pool::TaskPool,
    to_proto,
};
use crate::workspace::live::{LiveWorkspace, ReadError, RequestCancel, Snapshot};

/// Quiet time after an edit before diagnostics are computed.
pub const DEBOUNCE: Duration = Duration::from_millis(30);

/// A run's outcome, sent back to the main loop.
pub struct Computed {
    uri: Uri,
    version: i32,
    run: Arc<RequestCancel>,
    diagnostics: Result<Vec<Diagnostic>, ReadError>,
}

/// What a run needs besides the document (which names its folder).
pub struct RunContext<'a, T> {
    pub pool: &'a TaskPool,
    pub encoding: PositionEncoding,
    /// Where the result goes (wrapped by `wrap`: the main loop's task type).
    pub results: &'a Sender<T>,
    pub wrap: fn(Computed) -> T,
}

#[derive(Default)]
pub struct Diagnostics {
    due: HashMap<Uri, Instant>,
    /// The latest run per document.
    running: HashMap<Uri, Arc<RequestCancel>>,
    /// What was last published per open document, so that a re-check that finds the same
    /// sends nothing.
    published: HashMap<Uri, (i32, Vec<Diagnostic>)>,
    /// The deep check's diagnostics per document, published after its own.
    deep: HashMap<Uri, Vec<Diagnostic>>,
}

impl Diagnostics {
    pub fn schedule_now(&mut self, uri: Uri) {
        self.schedule(uri, Instant::now());
    }

    pub fn schedule_debounced(&mut self, uri: Uri) {
        self.schedule(uri, Instant::now() + DEBOUNCE);
    }

    fn schedule(&mut self, uri: Uri, at: Instant) {
        // A run for the previous text would be dropped anyway: stop it now.
        if let Some(run) = self.running.remove(&uri) {
            run.cancel();
        }
        self.due.insert(uri, at);
    }

    /// The document was closed, or no folder holds it any more: nothing more is computed
    /// for it, and the editor is told to clear what it shows.
    pub fn clear(&mut self, uri: Uri, client: &Sender<Message>) {
        self.due.remove(&uri);
        self.published.remove(&uri);
        if let Some(run) = self.running.remove(&uri) {
            run.cancel();
        }
        let deep = self.deep.get(&uri).cloned().unwrap_or_default();
        publish(client, uri, deep, None);
    }

    /// The deep check changed what it says about these documents: each is published again,
    /// an open one with its own diagnostics and version.
    pub fn show_deep(&mut self, changed: Vec<(Uri, Vec<Diagnostic>)>, client: &Sender<Message>) {
        for (uri, deep) in changed {
            if deep.is_empty() {
                self.deep.remove(&uri);
            } else {
                self.deep.insert(uri.clone(), deep.clone());
            }
            let (version, mut all) = match self.published.get(&uri) {
                Some((version, own)) => (Some(*version), own.clone()),
                None => (None, Vec::new()),
            };
            all.extend(deep);
            publish(client, uri, all, version);
        }
    }

    /// The workspace changed under the open documents that `changed` says yes to: each is
    /// checked again after a debounce (a document already due keeps its time).
    pub fn recheck(&mut self, documents: &Documents, changed: impl Fn(&Document) -> bool) {
        let at = Instant::now() + DEBOUNCE;
        for (uri, doc) in documents.iter() {
            if changed(doc) && !self.due.contains_key(uri) {
                self.schedule(uri.clone(), at);
            }
        }
    }

    /// When the main loop must wake up next for diagnostics.
    pub fn next_due(&self) -> Option<Instant> {
        self.due.values().min().copied()
    }

    /// Starts a run on the pool for every document whose time has come.
    pub fn run_due<T: Send + 'static>(&mut self, documents: &Documents, ctx: &RunContext<T>) {
        let now = Instant::now();
        let due: Vec<Uri> = self
            .due
            .iter()
            .filter(|(_, at)| **at <= now)
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in due {
            self.due.remove(&uri);
            let Some((doc, folder)) = documents
                .get(&uri)
                .and_then(|doc| Some((doc, doc.folder.as_ref()?)))
            else {
                continue;
            };
            let run = Arc::new(RequestCancel::default());
            let job = {
                let (uri, rel, version, run) =
                    (uri.clone(), doc.rel.clone(), doc.version, run.clone());
                let (live, encoding, results, wrap) = (
                    folder.live.clone(),
                    ctx.encoding,
                    ctx.results.clone(),
                    ctx.wrap,
                );
                Box::new(move || {
                    let diagnostics = compute(&live, &run, &uri, &rel, encoding);
                    let _ = results.send(wrap(Computed {
                        uri,
                        version,
                        run,
                        diagnostics,
                    }));
                })
            };
            match ctx.pool.try_spawn(job) {
                Ok(_) => {
                    self.running.insert(uri, run);
                }
                Err(_) => {
                    self.due.insert(uri, now + DEBOUNCE);
                }
            }
        }
    }

    /// Publishes a run's result if it is still the latest for the document's current
    /// version.
    pub fn finished(
        &mut self,
        computed: Computed,
        documents: &Documents,
        client: &Sender<Message>,
    ) {
        let latest = self
            .running
            .get(&computed.uri)
            .is_some_and(|run| Arc::ptr_eq(run, &computed.run));
        if !latest {
            return;
        }
        self.running.remove(&computed.uri);
        let current = documents
            .get(&computed.uri)
            .is_some_and(|doc| doc.version == computed.version);
        if !current || self.due.contains_key(&computed.uri) {
            return;
        }
        // A cancelled or failed run has nothing to show; the next change runs again.
        if let Ok(diagnostics) = computed.diagnostics {
            let unchanged =
                self.published
                    .get(&computed.uri)
                    .is_some_and(|(last_version, last)| {
                        *last_version == computed.version && *last == diagnostics
                    });
            if unchanged {
                return;
            }
            self.published.insert(
                computed.uri.clone(),
                (computed.version, diagnostics.clone()),
            );
            let mut all = diagnostics;
            all.extend(self.deep.get(&computed.uri).into_iter().flatten().cloned());
            publish(client, computed.uri, all, Some(computed.version));
        }
    }

    /// Stops every run (the server is stopping).
    pub fn cancel_all(&mut self) {
        self.due.clear();
        for (_, run) in self.running.drain() {
            run.cancel();
        }
    }
}

fn compute(
    live: &LiveWorkspace,
    run: &RequestCancel,
    uri: &Uri,
    rel: &str,
    encoding: PositionEncoding,
) -> Result<Vec<Diagnostic>, ReadError> {
    live.read(run, |s: &Snapshot| {
        let Some(file) = s.file(rel) else {
            return Ok(Vec::new());
        };
        let found = s
            .analysis
            .diagnostics(file, &crate::ide::CodeSelection::default())?;
        let index = LineIndex {
            index: s.analysis.line_index(file)?,
            encoding,
        };
        Ok(to_proto::diagnostics(&index, uri, &found, &|path, span| {
            to_proto::location(s, encoding, path, span).ok().flatten()
        }))
    })
}

fn publish(client: &Sender<Message>, uri: Uri, diagnostics: Vec<Diagnostic>, version: Option<i32>) {
    let params = PublishDiagnosticsParams {
        uri,
        diagnostics,
        version,
    };
    let _ = client.send(Message::Notification(Notification::new(
        PublishDiagnostics::METHOD.to_string(),
        params,
    )));
}
