//! Work stops with its request: a cancelled query stops inside a long parse, not after it.

use std::{cell::Cell, time::Duration};

use sextant::{ide, lang::registry, syntax, workspace};

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
