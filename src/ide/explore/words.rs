//! A question in words (`how does the scheduler flush queued actions`) as names of the
//! workspace's definitions. Identifier-like tokens (`flush_queue`, `Scheduler.flush`,
//! `flushSync`) are taken as they are when they name definitions, else dropped; the other
//! words, English function words aside, are matched back to the words of the indexed names
//! (`flushQueuedActions` has `flush`, `queued` and `actions`), endings aside
//! (`index::word_stem`). Names are then picked one at a time, each the one that covers the
//! most specific words not yet covered: a word's weight is how rare it is among the
//! names; ties go to the name with the fewest words of its own, then the fewest
//! definitions, then the highest PageRank.
//!
//! Invariant: every picked name has a definition (`has_definitions`), and every word of
//! the question is either used (by the name it is reported with) or dropped.

use std::collections::HashMap;

use crate::{
    db::{Db, Workspace},
    engine::{
        rank::definition_ranks,
        reference_graph::{Node, reference_graph},
    },
    semantic::index::{WordMatch, split_words, symbol_index, word_stem},
};

/// Names one question brings at most (each with its most-used definitions).
pub const MAX_QUESTION_NAMES: usize = 4;

/// Words that say how a question is asked, not what it is about.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "an", "and", "any", "are", "as", "at", "be", "been", "before",
    "being", "between", "both", "but", "by", "can", "could", "did", "do", "does", "doing", "done",
    "each", "for", "from", "had", "has", "have", "he", "her", "here", "his", "how", "i", "if",
    "in", "into", "is", "it", "its", "me", "might", "more", "most", "must", "my", "no", "not",
    "of", "on", "once", "only", "or", "other", "our", "out", "over", "she", "should", "so", "some",
    "such", "than", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "those", "through", "to", "under", "until", "up", "was", "we", "were", "what", "when", "where",
    "which", "while", "who", "whom", "whose", "why", "will", "with", "would", "you", "your",
];

/// A name picked for a question, and the question's words it stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Picked {
    pub name: String,
    pub words: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reading {
    pub picked: Vec<Picked>,
    /// The words that led to no name, in the order the question has them.
    pub dropped: Vec<String>,
}

/// One word of the question: as written (lowercased), and its stem.
struct Word {
    text: String,
    stem: String,
}

/// The names `terms` (the parts of one question) stand for; `has_definitions` says
/// whether a name names a definition.
pub fn read_question(
    db: &dyn Db,
    workspace: Workspace,
    terms: &[String],
    has_definitions: &dyn Fn(&str) -> bool,
) -> Reading {
    let mut reading = Reading::default();
    let mut words: Vec<Word> = Vec::new();
    // Every distinct word in the question's order, and whether it is dropped whatever
    // the names have.
    let mut order: Vec<(String, bool)> = Vec::new();
    for term in terms {
        for token in tokens(term) {
            // Code names one thing: taken whole or dropped whole, never guessed at by its
            // words (`no_such_name` is not a question about `name`).
            if is_identifier_like(token) {
                if order.iter().any(|(seen, _)| seen == token) {
                    continue;
                }
                let named = has_definitions(token);
                order.push((token.to_string(), !named));
                if named && !reading.picked.iter().any(|p| p.name == token) {
                    reading.picked.push(Picked {
                        name: token.to_string(),
                        words: vec![token.to_string()],
                    });
                }
                continue;
            }
            for text in split_words(token) {
                if order.iter().any(|(seen, _)| *seen == text) {
                    continue;
                }
                let stop = STOP_WORDS.contains(&text.as_str()) || text.chars().count() < 2;
                order.push((text.clone(), stop));
                if stop {
                    continue;
                }
                let stem = word_stem(&text).to_string();
                if !words.iter().any(|w| w.stem == stem) {
                    words.push(Word { text, stem });
                }
            }
        }
    }
    words.truncate(64);
    let index = symbol_index(db, workspace);
    let stems: Vec<&str> = words.iter().map(|w| w.stem.as_str()).collect();
    let (matches, counts, names) = index.names_with_words(&stems);
    // How rare each word is among the names: a word most names have says little.
    let weight: Vec<f64> = counts
        .iter()
        .map(|&n| ((names as f64 + 1.0) / (n as f64 + 1.0)).ln())
        .collect();
    let score = |m: &WordMatch, covered: u64| -> f64 {
        (0..words.len())
            .filter(|&i| (m.words & !covered) & (1 << i) != 0)
            .map(|i| weight[i])
            .sum()
    };
    let graph = reference_graph(db, workspace);
    let ranks = definition_ranks(db, workspace);
    let mut rank_of: HashMap<usize, f64> = HashMap::new();
    let mut rank = |at: usize, m: &WordMatch| -> f64 {
        *rank_of.entry(at).or_insert_with(|| {
            m.entries
                .iter()
                .filter_map(|e| {
                    let file = graph.file_index(e.file)?;
                    let id = graph.node_id(Node {
                        file,
                        definition: Some(e.symbol),
                    });
                    ranks.0.get(id as usize).copied()
                })
                .fold(0.0, f64::max)
        })
    };
    let mut covered: u64 = 0;
    let mut refused: Vec<bool> = vec![false; matches.len()];
    while reading.picked.len() < MAX_QUESTION_NAMES {
        // The most specific name covering a word not yet covered; ties as the module says.
        let mut best: Option<(usize, f64)> = None;
        for (at, m) in matches.iter().enumerate() {
            if refused[at] || m.words & !covered == 0 {
                continue;
            }
            let this = score(m, covered);
            let better = match best {
                None => true,
                Some((b, best_score)) => {
                    let other = &matches[b];
                    let order = this
                        .total_cmp(&best_score)
                        .then_with(|| extra_words(other).cmp(&extra_words(m)))
                        .then_with(|| other.entries.len().cmp(&m.entries.len()));
                    let order = match order.is_eq() {
                        true => rank(at, m).total_cmp(&rank(b, other)),
                        false => order,
                    };
                    order.then_with(|| other.name.cmp(m.name)).is_gt()
                }
            };
            if better {
                best = Some((at, this));
            }
        }
        let Some((at, _)) = best else {
            break;
        };
        let m = &matches[at];
        if !has_definitions(m.name) {
            refused[at] = true;
            continue;
        }
        let new = m.words & !covered;
        covered |= m.words;
        reading.picked.push(Picked {
            name: m.name.to_string(),
            words: (0..words.len())
                .filter(|&i| new & (1 << i) != 0)
                .map(|i| words[i].text.clone())
                .collect(),
        });
    }
    let used = |text: &str| {
        let stem = word_stem(text);
        (0..words.len()).any(|i| covered & (1 << i) != 0 && words[i].stem == stem)
    };
    // `order`'s flag: a stop word, or code naming nothing; an identifier taken whole is
    // no word of `words` and is never dropped.
    let taken = |text: &str| reading.picked.iter().any(|p| p.name == text);
    reading.dropped = order
        .into_iter()
        .filter(|(text, dropped)| *dropped || !(used(text) || taken(text)))
        .map(|(text, _)| text)
        .collect();
    reading
}

/// The name's words beyond those of the question it has.
fn extra_words(m: &WordMatch) -> usize {
    m.word_count.saturating_sub(m.words.count_ones() as usize)
}

/// Runs of identifier characters and the separators of qualified names, trimmed of the
/// separators a sentence puts around them (`Scheduler.flush?` → `Scheduler.flush`).
fn tokens(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '.' | ':' | '$')))
        .map(|token| token.trim_matches(|c: char| matches!(c, '.' | ':')))
        .filter(|token| !token.is_empty())
}

/// Spelled as code rather than as a word: a separator, a capital after the first letter,
/// or a digit (`flush_queue`, `Parser.parse`, `flushSync`, `utf8`).
fn is_identifier_like(token: &str) -> bool {
    token.contains(['_', '.', ':', '$'])
        || token.chars().skip(1).any(|c| c.is_uppercase())
        || token.chars().any(|c| c.is_ascii_digit())
}
