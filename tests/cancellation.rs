//! Work stops with its request: a cancelled query stops inside a long parse, not after it.

use std::{
    cell::Cell,
    sync::{
        Arc, OnceLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::Duration,
};

use sextant::{
    db::RootDatabase,
    ide::{self, AnalysisHost},
    lang::registry,
    syntax,
    workspace::{self, Host, LoadedFile},
};

/// About 900 KB of Python: parsing it takes far longer than the moment before the cancel.
fn heavy_python() -> String {
    "value = call(first, second, [third, {'key': fourth}])\n".repeat(15_000)
}

#[test]
fn the_parser_asks_the_interrupt_and_stops() {
    let lang = registry().by_id("python").unwrap();
    let asked = Cell::new(0);
    let interrupt = || {
        asked.set(asked.get() + 1);
        asked.get() > 3
    };
    assert!(syntax::parse_interruptible(lang, &heavy_python(), &interrupt).is_none());
    // Stopped at the fourth question, not at the end of the file.
    assert_eq!(
        asked.get(),
        5,
        "four during the parse, one to tell why it stopped"
    );
    let never = syntax::parse_interruptible(lang, "x = 1\n", syntax::NEVER).unwrap();
    assert_eq!(never.syntax().text().to_string(), "x = 1\n");
}

#[test]
fn cancelling_a_request_stops_its_parse_in_progress() {
    let lang = registry().by_id("python").unwrap();
    let (analysis, file) =
        workspace::standalone_source("big.py".into(), lang, heavy_python().into_bytes()).unwrap();
    let token = analysis.cancellation_token();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        token.cancel();
    });
    // Without an interruptible parse this would finish the parse and answer.
    let result = analysis.parse_tree(file, ide::ParseOptions::default());
    canceller.join().unwrap();
    assert!(matches!(result, Err(salsa::Cancelled::Local)), "{result:?}");
}

#[test]
fn cancelling_a_rename_stops_the_check_of_its_renamed_texts() {
    // The rename checks its renamed text on a scratch database of its own thread: the
    // diagnostics of the text before, then after the rename. The request is cancelled as
    // the first of the two starts; the second must never run.
    let diagnostics_runs = Arc::new(AtomicUsize::new(0));
    let token: Arc<OnceLock<salsa::CancellationToken>> = Arc::default();
    let (runs, cancel) = (diagnostics_runs.clone(), token.clone());
    let db = RootDatabase::with_event_callback(move |event| {
        if let salsa::EventKind::WillExecute { database_key } = event.kind
            && format!("{database_key:?}").starts_with("file_diagnostics")
            && runs.fetch_add(1, Ordering::SeqCst) == 0
        {
            cancel.get().expect("set before the rename").cancel();
        }
    });
    let text = format!(
        "def call(*args):\n    return args\n\n{}",
        "value = call(1, [2, {'key': 3}])\n".repeat(2_000)
    );
    let host = Host::from_files_in(
        AnalysisHost::with_database(db, "/big".into()),
        "/big".into(),
        vec![LoadedFile {
            path: "big.py".into(),
            lang: registry().by_id("python").unwrap().lang_id,
            text: text.into(),
            lossy_utf8: false,
            real_path: None,
        }],
    );
    let analysis = host.analysis();
    let file = host.file("big.py").unwrap();
    token.set(analysis.cancellation_token()).unwrap();
    let result = analysis.rename(file, 4, "invoke", ide::RenameOptions::default());
    assert!(
        matches!(result, Err(salsa::Cancelled::Local)),
        "answered {}",
        if result.is_ok() {
            "a rename"
        } else {
            "another error"
        }
    );
    assert_eq!(diagnostics_runs.load(Ordering::SeqCst), 1);
}
