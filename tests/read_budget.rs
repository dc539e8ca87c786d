//! `read` never exceeds its budget, on real code: random tasks (names, positions, line
//! ranges, whole files, outlines, in random order, with random budgets and encodings) over
//! this repository's own `src/`, each answer's count checked against its text.

use std::path::Path;

use proptest::{
    prelude::*,
    test_runner::{Config, TestRunner},
};
use sextant::{
    ide::{Budget, Encoding, FileId, NameScope, ReadRequest, ReadStatus, ReadTarget},
    workspace::{Host, LoadOptions},
};

/// The host over `src/`, its files, and names of definitions (and one that names nothing).
fn corpus() -> (Host, Vec<FileId>, Vec<String>) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let host = Host::load(&root, &LoadOptions::default()).unwrap();
    let analysis = host.analysis();
    let files: Vec<FileId> = analysis.files().collect();
    let mut names = Vec::new();
    for &file in files.iter().step_by(7) {
        let outline = analysis.outline(file, 40).unwrap();
        names.extend(outline.symbols.iter().map(|s| s.name.clone()));
    }
    names.push("no_such_definition_anywhere".into());
    (host, files, names)
}

/// One target, from indexes into the corpus's files and names.
fn target() -> impl Strategy<Value = (u8, usize, usize, u32, u32)> {
    (0u8..6, any::<usize>(), any::<usize>(), 1u32..400, 0u32..60)
}

fn make_target(
    files: &[FileId],
    names: &[String],
    (kind, a, b, line, span): (u8, usize, usize, u32, u32),
) -> ReadTarget {
    let file = files[a % files.len()];
    match kind {
        0 => ReadTarget::Symbol(names[b % names.len()].clone()),
        1 => ReadTarget::At {
            file,
            offset: b % 20_000,
        },
        2 => ReadTarget::Lines {
            file,
            start: line,
            end: line + span,
        },
        3 => ReadTarget::File(file),
        4 => ReadTarget::Line { file, line },
        _ => ReadTarget::Directory(file),
    }
}

#[test]
fn answers_stay_within_their_budget_and_count_their_own_text() {
    let (host, files, names) = corpus();
    let mut runner = TestRunner::new(Config {
        cases: sextant::testing::fuzz_cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let cases = (
        prop::collection::vec(target(), 1..8),
        1usize..6_000,
        0u32..4,
        any::<bool>(),
    );
    runner
        .run(&cases, |(targets, max_tokens, context_lines, cl100k)| {
            let encoding = if cl100k {
                Encoding::Cl100kBase
            } else {
                Encoding::O200kBase
            };
            let request = ReadRequest {
                targets: targets
                    .into_iter()
                    .map(|t| make_target(&files, &names, t))
                    .collect(),
                context_lines,
                path_prefix: None,
                names: NameScope::Workspace,
                budget: Budget {
                    encoding,
                    max_tokens,
                },
                cursor: None,
            };
            let Ok(answer) = host.analysis().read(&request).unwrap() else {
                // Only a request whose every target names nothing fails.
                prop_assert!(
                    request
                        .targets
                        .iter()
                        .all(|t| matches!(t, ReadTarget::Symbol(_)))
                );
                return Ok(());
            };
            prop_assert!(
                answer.tokens <= max_tokens,
                "{} > {max_tokens}",
                answer.tokens
            );
            prop_assert_eq!(answer.tokens, encoding.count(&answer.text));
            let order: Vec<usize> = answer.pieces.iter().map(|p| p.target).collect();
            prop_assert!(order.windows(2).all(|w| w[0] < w[1]), "{:?}", order);
            let complete = answer.status == ReadStatus::Complete;
            prop_assert_eq!(complete, answer.next_cursor.is_none());
            let nothing_cut = answer.omitted.is_empty() && !answer.pieces.iter().any(|p| p.cut);
            prop_assert_eq!(complete, nothing_cut);
            Ok(())
        })
        .unwrap();
}

/// Random packs: any mix of required and optional files and names, modes and priorities,
/// under any budget, is either within its budget (its count its text's) or refused whole.
#[test]
fn packs_stay_within_their_budget_or_are_refused_whole() {
    use sextant::ide::{PackEntry, PackError, PackMode, PackRequest, PackSource, PackStyle};
    let (host, files, names) = corpus();
    let mut runner = TestRunner::new(Config {
        cases: sextant::testing::fuzz_cases(),
        failure_persistence: None,
        ..Config::default()
    });
    let entry = (
        any::<bool>(),
        any::<usize>(),
        any::<bool>(),
        0u8..3,
        0u8..=100,
    );
    let cases = (prop::collection::vec(entry, 1..10), 1usize..20_000, 0u8..4);
    runner
        .run(&cases, |(entries, max_tokens, style)| {
            let entries: Vec<PackEntry> = entries
                .into_iter()
                .map(|(is_file, pick, required, mode, priority)| PackEntry {
                    task: pick % 2,
                    source: match is_file {
                        true => PackSource::File(files[pick % files.len()]),
                        false => PackSource::Symbol(names[pick % names.len()].clone()),
                    },
                    mode: match (mode, required) {
                        (0, _) => PackMode::Full,
                        (1, _) | (_, true) => PackMode::Skeleton,
                        _ => PackMode::Either,
                    },
                    required,
                    priority,
                })
                .collect();
            let style = [
                PackStyle::Markdown,
                PackStyle::Xml,
                PackStyle::Json,
                PackStyle::Plain,
            ][style as usize];
            let budget = Budget {
                encoding: Encoding::O200kBase,
                max_tokens,
            };
            let request = PackRequest {
                entries,
                budget,
                style,
                path_prefix: None,
            };
            match host.analysis().pack(&request).unwrap() {
                Ok(answer) => {
                    prop_assert!(answer.tokens <= max_tokens);
                    prop_assert_eq!(answer.tokens, Encoding::O200kBase.count(&answer.text));
                    let required = request.entries.iter().filter(|e| e.required).count();
                    let included_required = answer
                        .included
                        .iter()
                        .filter(|i| {
                            let task_entries: Vec<&PackEntry> = request
                                .entries
                                .iter()
                                .filter(|e| e.task == i.task)
                                .collect();
                            task_entries[i.entry].required
                        })
                        .count();
                    prop_assert_eq!(required, included_required);
                }
                Err(PackError::RequiredUnavailable(_)) => {
                    prop_assert!(request.entries.iter().any(|e| e.required));
                }
                Err(PackError::RequiredOverBudget { needed, .. }) => {
                    prop_assert!(needed > max_tokens);
                }
            }
            Ok(())
        })
        .unwrap();
}
