//! The main loop: messages from the client, results from the workers, and timers.
//!
//! Invariant: one thread owns the server's state and handles every message in the order
//! the client sent it. Notifications (document changes, cancellation) are applied before
//! the next message is read; requests are parsed here and queued on the worker pool,
//! whose answers come back through this loop (so that nothing is written to the client
//! after the loop ends, and diagnostics can be checked against the current version).
//! The loop sleeps until a message, a result, the next timer (diagnostics due after their
//! debounce, or the next progress report), or a new revision of a workspace folder (each
//! folder's live workspace tells it as it publishes one): a change re-checks the folder's
//! open documents and re-runs held requests (a workspace pull with nothing new). A change of
//! the folders themselves (`workspace/didChangeWorkspaceFolders`) is applied here too, in
//! order: removed folders' requests and diagnostics stop, open documents move to the folder
//! holding them now, and held requests are answered so that the client asks the new folders.

use std::{
    collections::{HashMap, HashSet},
    path::PathBuf,
    sync::Arc,
    time::{Duration, Instant},
};

use crossbeam_channel::{Receiver, Select, Sender};
use lsp_server::{ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::{
    MessageType, ShowMessageParams, Uri, WorkspaceFolder,
    notification::{
        Cancel, DidChangeTextDocument, DidChangeWorkspaceFolders, DidCloseTextDocument,
        DidOpenTextDocument, DidSaveTextDocument, Exit, Notification as _, ShowMessage,
    },
    request::{
        CallHierarchyIncomingCalls, CallHierarchyOutgoingCalls, CallHierarchyPrepare,
        DocumentDiagnosticRequest, DocumentHighlightRequest, DocumentSymbolRequest,
        FoldingRangeRequest, GotoDefinition, GotoImplementation, HoverRequest, References,
        SelectionRangeRequest, Shutdown, TypeHierarchyPrepare, TypeHierarchySubtypes,
        TypeHierarchySupertypes, WorkspaceDiagnosticRequest, WorkspaceSymbolRequest,
    },
};

use super::{
    capabilities::ClientSupport,
    deep::{self, DeepDiagnostics},
    diagnostics::{self, Diagnostics, RunContext},
    dispatch::{NotificationDispatcher, RequestDispatcher},
    documents::Documents,
    folders::{Folder, Folders},
    handlers::{self, RequestSettings},
    line_index::PositionEncoding,
    progress::IndexingProgress,
    requests::{self, Cancelled, InFlightRequests, Reads, RequestWork},
    task_pool::TaskPool,
};
use crate::workspace::live::LiveWorkspace;

/// What a worker sends back to the main loop.
pub enum Task {
    Response(Response),
    Diagnostics(diagnostics::Computed),
    Deep(deep::Finished),
    /// A request with nothing to say yet (a workspace pull with every report unchanged):
    /// held until the workspace moves past `revision`.
    Hold(HeldRequest),
}

/// A request the loop holds open, with the work that answers it once run again.
pub struct HeldRequest {
    id: RequestId,
    method: &'static str,
    reads: Reads,
    work: RequestWork,
    revision: u64,
    /// The folders' generation when the request was queued: an answer held over folders
    /// since changed is given back to the client to ask again.
    generation: u64,
}

pub struct Server {
    pub(super) sender: Sender<Message>,
    pub(super) folders: Folders,
    pub(super) encoding: PositionEncoding,
    pub(super) documents: Documents,
    pub(super) diagnostics: Diagnostics,
    pub(super) deep: DeepDiagnostics,
    requests: InFlightRequests,
    pool: TaskPool,
    tasks: (Sender<Task>, Receiver<Task>),
    progress: Option<IndexingProgress>,
    /// The client takes work-done progress; how many rounds were started after the first.
    report_progress: bool,
    progress_rounds: u32,
    /// `shutdown` was answered: requests are refused, and `exit` means success.
    pub(super) shut_down: bool,
    /// `exit` arrived: the loop ends.
    pub(super) exit: bool,
    test_delay: Option<Arc<crate::workspace::live::TestDelay>>,
    /// Whether `sextant.toml`'s external formatters may run (`--allow-external-formatter`).
    pub(super) formatter_trust: crate::workspace::FormatterTrust,
    /// What the client's capabilities allow answers to use.
    pub(super) client: ClientSupport,
    /// The folders follow `workspace/didChangeWorkspaceFolders` (not with `--root`).
    pub(super) folders_change: bool,
    /// Each folder's revision its open documents' diagnostics were last scheduled for.
    seen_revisions: HashMap<PathBuf, u64>,
    held: Vec<HeldRequest>,
    /// Folders added after `initialize` whose first load's failure the client has not been
    /// told of yet.
    added_loading: HashSet<PathBuf>,
}

impl Server {
    /// `report_progress`: the client takes work-done progress (`window.workDoneProgress`).
    pub fn new(
        sender: Sender<Message>,
        folders: Folders,
        encoding: PositionEncoding,
        pool: TaskPool,
        report_progress: bool,
    ) -> Server {
        let progress = report_progress.then(|| IndexingProgress::start(&sender));
        let seen_revisions = folders
            .all()
            .iter()
            .map(|f| (f.root().to_path_buf(), 0))
            .collect();
        Server {
            sender,
            folders,
            encoding,
            documents: Documents::default(),
            diagnostics: Diagnostics::default(),
            deep: DeepDiagnostics::default(),
            requests: InFlightRequests::default(),
            pool,
            tasks: crossbeam_channel::unbounded(),
            progress,
            report_progress,
            progress_rounds: 0,
            shut_down: false,
            exit: false,
            test_delay: requests::request_delay_for_tests().map(Arc::new),
            formatter_trust: Default::default(),
            client: ClientSupport::default(),
            folders_change: false,
            seen_revisions,
            held: Vec::new(),
            added_loading: HashSet::new(),
        }
    }

    /// Serves until `exit` or until the connection ends, then cancels all work in flight.
    pub fn run(&mut self, client: &Receiver<Message>) {
        let tasks = self.tasks.1.clone();
        let subscribe = |folders: &Folders| -> Vec<Receiver<u64>> {
            folders.all().iter().map(|f| f.live.subscribe()).collect()
        };
        let mut revisions = subscribe(&self.folders);
        let mut subscribed = self.folders.generation();
        while !self.exit {
            // What a folder did before it was subscribed to is looked at once more at once.
            let resubscribed = subscribed != self.folders.generation();
            if resubscribed {
                revisions = subscribe(&self.folders);
                subscribed = self.folders.generation();
            }
            let wake = [
                self.diagnostics.next_due(),
                self.progress.as_ref().and_then(IndexingProgress::next_tick),
            ]
            .into_iter()
            .flatten()
            .min();
            let idle = Duration::from_secs(3600);
            let timeout = match resubscribed {
                true => Duration::ZERO,
                false => wake.map_or(idle, |at| {
                    at.saturating_duration_since(Instant::now()).min(idle)
                }),
            };
            let mut select = Select::new();
            let from_client = select.recv(client);
            let from_workers = select.recv(&tasks);
            for revision in &revisions {
                select.recv(revision);
            }
            if let Ok(ready) = select.select_timeout(timeout) {
                match ready.index() {
                    i if i == from_client => match ready.recv(client) {
                        Ok(message) => self.on_message(message),
                        Err(_) => break,
                    },
                    i if i == from_workers => {
                        if let Ok(task) = ready.recv(&tasks) {
                            self.on_task(task);
                        }
                    }
                    // `run_timers` reads the revisions themselves.
                    i => {
                        let _ = ready.recv(&revisions[i - from_workers - 1]);
                    }
                }
            }
            if self.shut_down {
                self.release_held();
            }
            self.run_timers();
        }
        self.requests.cancel_all();
        self.diagnostics.cancel_all();
        self.deep.cancel();
    }

    fn on_message(&mut self, message: Message) {
        match message {
            Message::Request(request) => self.on_request(request),
            Message::Notification(notification) => self.on_notification(notification),
            Message::Response(response) => {
                if let Some(progress) = &mut self.progress {
                    progress.on_response(&response, &self.sender);
                }
            }
        }
    }

    fn on_request(&mut self, request: Request) {
        if self.shut_down {
            let message = format!("{} after shutdown", request.method);
            self.respond(Response::new_err(
                request.id,
                ErrorCode::InvalidRequest as i32,
                message,
            ));
            return;
        }
        RequestDispatcher::new(self, request)
            .on_sync_mut::<Shutdown>(handlers::shutdown)
            .on::<DocumentSymbolRequest>(handlers::document_symbol)
            .on_every::<WorkspaceSymbolRequest, _>(
                handlers::workspace_symbol,
                Some(handlers::workspace_symbol_so_far),
                handlers::workspace_symbol_merge,
            )
            .on::<GotoDefinition>(handlers::goto_definition)
            .on::<References>(handlers::references)
            .on::<lsp_types::request::PrepareRenameRequest>(super::rename::prepare_rename)
            .on::<lsp_types::request::Rename>(super::rename::rename)
            .on::<DocumentHighlightRequest>(handlers::document_highlight)
            .on::<HoverRequest>(handlers::hover)
            .on::<CallHierarchyPrepare>(handlers::prepare_call_hierarchy)
            .on::<CallHierarchyIncomingCalls>(handlers::incoming_calls)
            .on::<CallHierarchyOutgoingCalls>(handlers::outgoing_calls)
            .on::<GotoImplementation>(handlers::goto_implementation)
            .on::<TypeHierarchyPrepare>(handlers::prepare_type_hierarchy)
            .on::<TypeHierarchySupertypes>(handlers::supertypes)
            .on::<TypeHierarchySubtypes>(handlers::subtypes)
            .on::<FoldingRangeRequest>(handlers::folding_range)
            .on::<SelectionRangeRequest>(handlers::selection_range)
            .on::<lsp_types::request::Formatting>(handlers::formatting)
            .on::<lsp_types::request::RangeFormatting>(handlers::range_formatting)
            .on::<lsp_types::request::CodeActionRequest>(super::code_action::code_action)
            .on::<DocumentDiagnosticRequest>(handlers::document_diagnostic)
            .on_every::<WorkspaceDiagnosticRequest, _>(
                handlers::workspace_diagnostic,
                None,
                handlers::workspace_diagnostic_merge,
            )
            .finish();
    }

    fn on_notification(&mut self, notification: Notification) {
        // didChangeWatchedFiles: sextant's own watcher sees the same changes; it falls
        // through to `finish`.
        NotificationDispatcher::new(self, notification)
            .on_sync_mut::<Exit>(handlers::exit)
            .on_sync_mut::<Cancel>(handlers::cancel)
            .on_sync_mut::<DidOpenTextDocument>(handlers::did_open)
            .on_sync_mut::<DidChangeTextDocument>(handlers::did_change)
            .on_sync_mut::<DidCloseTextDocument>(handlers::did_close)
            .on_sync_mut::<DidSaveTextDocument>(handlers::did_save)
            .on_sync_mut::<DidChangeWorkspaceFolders>(handlers::did_change_workspace_folders)
            .finish();
    }

    fn on_task(&mut self, task: Task) {
        match task {
            Task::Response(response) => self.respond(response),
            Task::Diagnostics(computed) => {
                self.diagnostics
                    .finished(computed, &self.documents, &self.sender)
            }
            Task::Deep(finished) => {
                if let Some(changed) = self.deep.finished(finished) {
                    self.diagnostics.show_deep(changed, &self.sender);
                }
            }
            Task::Hold(held) if held.generation != self.folders.generation() => {
                self.respond(folders_changed(held.id));
            }
            Task::Hold(held) => self.held.push(held),
        }
    }

    fn run_timers(&mut self) {
        for folder in self.folders.all() {
            let revision = folder.live.revision();
            let seen = self
                .seen_revisions
                .entry(folder.root().to_path_buf())
                .or_default();
            if revision != *seen {
                *seen = revision;
                self.diagnostics.recheck(&self.documents, |doc| {
                    doc.folder.as_ref().is_some_and(|f| Arc::ptr_eq(f, folder))
                });
            }
        }
        self.report_failed_loads();
        let revision = self.folders.revision();
        let (moved, still): (Vec<HeldRequest>, Vec<HeldRequest>) = std::mem::take(&mut self.held)
            .into_iter()
            .partition(|held| held.revision != revision);
        self.held = still;
        for held in moved {
            self.spawn_request(held.id, held.method, held.reads, held.work);
        }
        let ctx = RunContext {
            pool: &self.pool,
            encoding: self.encoding,
            results: &self.tasks.0,
            wrap: Task::Diagnostics,
        };
        self.diagnostics.run_due(&self.documents, &ctx);
        if let Some(progress) = &mut self.progress {
            let several = self.folders.all().len() > 1;
            progress.tick(self.folders.named(), several, &self.sender);
        }
    }

    /// `textDocument/didSave` of a workspace document: the deep check runs (if enabled).
    pub(super) fn saved(&mut self, uri: &Uri) {
        let Some((doc, folder)) = self
            .documents
            .get(uri)
            .and_then(|doc| Some((doc, doc.folder.as_ref()?)))
        else {
            return;
        };
        let (live, rel) = (folder.live.clone(), doc.rel.clone());
        self.deep
            .saved(&live, rel, self.encoding, &self.tasks.0, Task::Deep);
    }

    /// What a request takes of the session when it arrives.
    pub(super) fn request_settings(&self) -> RequestSettings {
        RequestSettings {
            encoding: self.encoding,
            formatter_trust: self.formatter_trust,
            client: self.client,
            versions: self.documents.versions().clone(),
            layout: self.folders.layout().clone(),
        }
    }

    pub(super) fn respond(&self, response: Response) {
        let _ = self.sender.send(Message::Response(response));
    }

    /// Queues a request on the worker pool, or answers it at once when it cannot be queued.
    pub(super) fn spawn_request(
        &mut self,
        id: RequestId,
        method: &'static str,
        reads: Reads,
        work: RequestWork,
    ) {
        // A held request is still in flight, though no longer registered as running.
        let held = self.held.iter().any(|held| held.id == id);
        let Some(request) = (!held)
            .then(|| self.requests.register(id.clone(), reads.clone()))
            .flatten()
        else {
            self.respond(Response::new_err(
                id.clone(),
                ErrorCode::InvalidRequest as i32,
                format!("request {id} is already in flight"),
            ));
            return;
        };
        let job = {
            // The test delay waits in the first folder's workspace.
            let (first, requests, tasks, request, id) = (
                self.folders.first().map(|f| f.live.clone()),
                self.requests.clone(),
                self.tasks.0.clone(),
                request.clone(),
                id.clone(),
            );
            let delay = self.test_delay.clone().filter(|d| d.what == method);
            let generation = self.folders.generation();
            Box::new(move || {
                let delay = first.as_deref().zip(delay.as_deref());
                let outcome = requests::run(&requests, &request, id.clone(), method, &work, delay);
                let task = match outcome {
                    Some(requests::Outcome::Answer(response)) => Task::Response(response),
                    Some(requests::Outcome::Hold { revision }) => Task::Hold(HeldRequest {
                        id,
                        method,
                        reads,
                        work,
                        revision,
                        generation,
                    }),
                    None => return,
                };
                let _ = tasks.send(task);
            })
        };
        match self.pool.try_spawn(job) {
            Ok(slot) => request.set_queue_slot(slot),
            Err(_) => {
                self.requests.finish(&id, &request);
                self.respond(Response::new_err(
                id,
                ErrorCode::ServerCancelled as i32,
                format!(
                    "{method}: the server is busy (its queue of {} requests is full); ask again",
                    self.pool.capacity()
                ),
            ));
            }
        }
    }

    /// `workspace/didChangeWorkspaceFolders`: the `removed` folders stop (their requests,
    /// diagnostics and deep checks with them; their workspaces wind down off this loop),
    /// the `added` ones start loading as at `initialize` (a folder that cannot be served is
    /// said in `window/showMessage`, the others going on), open documents move to the
    /// folder holding them now, and held requests are given back to be asked again.
    /// Removals come first, so a folder both removed and added starts again.
    pub(super) fn change_folders(
        &mut self,
        removed: &[WorkspaceFolder],
        added: &[WorkspaceFolder],
    ) {
        if !self.folders_change {
            // `--root` serves that root alone; the capability was not advertised.
            return;
        }
        let before = self.folders.generation();
        let mut gone = Vec::new();
        for folder in removed {
            let Some(root) = super::uri::uri_to_path(&folder.uri) else {
                continue;
            };
            if let Some(folder) = self.folders.remove(&root) {
                self.stop_requests_of(folder.root());
                let changed = self.deep.forget_folder(folder.root());
                self.diagnostics.show_deep(changed, &self.sender);
                self.seen_revisions.remove(folder.root());
                self.added_loading.remove(folder.root());
                gone.push(folder);
            }
        }
        let mut started = Vec::new();
        for folder in added {
            let root = super::uri::uri_to_path(&folder.uri)
                .ok_or_else(|| format!("{}: not a local file URI", folder.uri.as_str()))
                .and_then(|root| super::checked_root(&root));
            match root.and_then(|root| self.folders.add(&root)) {
                Ok(Some(folder)) => started.push(folder.root().to_path_buf()),
                Ok(None) => {}
                Err(reason) => self.show_message(
                    MessageType::WARNING,
                    format!("sextant: cannot serve a workspace folder: {reason}"),
                ),
            }
        }
        if self.folders.generation() == before {
            return;
        }
        self.rehome_documents();
        self.report_progress_of(&started);
        self.added_loading.extend(started);
        for held in std::mem::take(&mut self.held) {
            self.respond(folders_changed(held.id));
        }
        for folder in gone {
            retire(folder);
        }
    }

    /// Every open document goes to the deepest folder holding it now: its text moves
    /// there and is checked there, and one no folder holds any more has its diagnostics
    /// cleared.
    fn rehome_documents(&mut self) {
        let uris: Vec<Uri> = self.documents.iter().map(|(uri, _)| uri.clone()).collect();
        for uri in uris {
            let folder = self.folders.holding(&uri).cloned();
            if !self.documents.rehome(&uri, folder.as_ref()) {
                continue;
            }
            match folder {
                Some(_) => self.diagnostics.schedule_now(uri),
                None => self.diagnostics.clear(uri, &self.sender),
            }
        }
    }

    /// Work-done progress for folders just added: in the round under way, else in a new
    /// round of their own.
    fn report_progress_of(&mut self, started: &[PathBuf]) {
        if !self.report_progress || started.is_empty() {
            return;
        }
        if let Some(progress) = &mut self.progress
            && started.iter().all(|root| progress.include(root.clone()))
        {
            return;
        }
        self.progress_rounds += 1;
        self.progress = Some(IndexingProgress::start_round(
            &self.sender,
            self.progress_rounds,
            started.to_vec(),
        ));
    }

    /// A folder added after `initialize` whose first load failed: the client is told once.
    fn report_failed_loads(&mut self) {
        if self.added_loading.is_empty() {
            return;
        }
        let failed: Vec<(PathBuf, String)> = self
            .folders
            .all()
            .iter()
            .filter(|f| self.added_loading.contains(f.root()))
            .filter_map(|f| Some((f.root().to_path_buf(), f.live.load_error()?)))
            .collect();
        for (root, error) in failed {
            self.added_loading.remove(&root);
            self.show_message(
                MessageType::WARNING,
                format!(
                    "sextant: cannot load the workspace folder {}: {error}",
                    root.display()
                ),
            );
        }
        let ready: Vec<PathBuf> = self
            .folders
            .all()
            .iter()
            .filter(|f| f.live.is_ready())
            .map(|f| f.root().to_path_buf())
            .collect();
        for root in ready {
            self.added_loading.remove(&root);
        }
    }

    /// Stops every request reading the folder at `root`: one not started yet is answered
    /// here, a running one by its worker.
    fn stop_requests_of(&mut self, root: &std::path::Path) {
        for id in self.requests.cancel_reading(root) {
            self.respond(requests::folder_removed(id));
        }
    }

    fn show_message(&self, typ: MessageType, message: String) {
        eprintln!("{message}");
        let params = ShowMessageParams { typ, message };
        let _ = self.sender.send(Message::Notification(Notification::new(
            ShowMessage::METHOD.to_string(),
            params,
        )));
    }

    /// After `shutdown`, held requests are answered: nothing will change any more.
    fn release_held(&mut self) {
        for held in std::mem::take(&mut self.held) {
            self.respond(Response::new_err(
                held.id,
                ErrorCode::ServerCancelled as i32,
                "the server is shutting down".into(),
            ));
        }
    }

    /// `$/cancelRequest`: a queued request is answered now and never runs; a running one
    /// stops and its worker answers.
    pub(super) fn cancel_request(&mut self, id: RequestId) {
        if let Some(at) = self.held.iter().position(|held| held.id == id) {
            self.held.remove(at);
            self.respond(Response::new_err(
                id,
                ErrorCode::RequestCanceled as i32,
                "cancelled while waiting for a change".into(),
            ));
            return;
        }
        if self.requests.cancel(&id) == Cancelled::Withdrawn {
            self.respond(Response::new_err(
                id,
                ErrorCode::RequestCanceled as i32,
                "cancelled before it started".into(),
            ));
        }
    }
}

/// The answer to a request held over folders that changed since: the client asks again,
/// of the folders served now (`retriggerRequest`, as the protocol has it for diagnostics).
fn folders_changed(id: RequestId) -> Response {
    Response {
        id,
        response_result: Err(lsp_server::ResponseError {
            code: ErrorCode::ServerCancelled as i32,
            message: "the workspace folders changed; ask again".into(),
            data: Some(serde_json::json!({ "retriggerRequest": true })),
        }),
    }
}

/// Lets a removed folder's workspace wind down off the main loop: its writer may be in the
/// middle of a first index, which its drop stops and waits for. The workspace is dropped
/// once nothing else holds it (its requests and diagnostics were cancelled, and end soon);
/// then one line on stderr says that its work has ended, and how far its index had come.
fn retire(folder: Arc<Folder>) {
    let spawned = std::thread::Builder::new()
        .name("sextant-retire-folder".into())
        .spawn(move || {
            while Arc::strong_count(&folder) > 1 || Arc::strong_count(&folder.live) > 1 {
                std::thread::sleep(Duration::from_millis(50));
            }
            let root = folder.root().to_path_buf();
            // Nothing else holds them now.
            let cut_short = Arc::try_unwrap(folder)
                .ok()
                .and_then(|folder| Arc::try_unwrap(folder.live).ok())
                .is_some_and(LiveWorkspace::stop);
            let how = match cut_short {
                true => " (its first index stopped before the end)",
                false => "",
            };
            eprintln!(
                "sextant: lsp: the removed workspace folder {} has stopped{how}",
                root.display()
            );
        });
    if let Err(e) = spawned {
        eprintln!("sextant: lsp: winding down a removed workspace folder: {e}");
    }
}
