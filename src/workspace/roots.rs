//! What the servers of several roots share (`sextant mcp --root A --root B`, `sextant lsp`
//! given several workspace folders): each root's name, the root a path belongs to, one
//! answer merged from every root's, and the root answering for one definition by name.
//!
//! Invariant: a path belongs to the deepest root holding it, so that where roots nest a
//! file is answered by one root only; a merged list keeps each root's own order, ties
//! going to the roots in the order they were given; a name several roots define is never
//! answered from one of them.

use std::path::Path;

/// The index of the deepest of `roots` that `holds` a path (the one with the most
/// components; the first given of equals): the root a path belongs to where roots nest.
pub fn deepest_holding<'a>(
    roots: impl IntoIterator<Item = &'a Path>,
    holds: impl Fn(&Path) -> bool,
) -> Option<usize> {
    roots
        .into_iter()
        .enumerate()
        .filter(|(_, root)| holds(root))
        .max_by_key(|(i, root)| (root.components().count(), std::cmp::Reverse(*i)))
        .map(|(i, _)| i)
}

/// The items of several roots' lists as one list in the order `key` gives, each with its
/// root's index: every list must be in that order already, and each keeps its own order
/// (so a key that leaves ties does not reorder a root's answer); ties in the roots' order.
pub fn merge_ordered<T, K: Ord>(lists: Vec<Vec<T>>, key: impl Fn(&T) -> K) -> Vec<(usize, T)> {
    let mut lists: Vec<_> = lists
        .into_iter()
        .map(|l| l.into_iter().peekable())
        .collect();
    let mut merged = Vec::new();
    loop {
        let mut next: Option<(usize, K)> = None;
        for (i, list) in lists.iter_mut().enumerate() {
            if let Some(item) = list.peek() {
                let k = key(item);
                if next.as_ref().is_none_or(|(_, best)| k < *best) {
                    next = Some((i, k));
                }
            }
        }
        let Some((i, _)) = next else {
            return merged;
        };
        merged.extend(lists[i].next().map(|item| (i, item)));
    }
}

/// The root whose answer stands for a question about one definition by name, given each
/// root's definitions of the name: the one root defining it, once; `None` when no root
/// does, or several do, or one defines it several times (then the question is ambiguous,
/// and its candidates are all of them, each with its root: never a guess).
pub fn sole_definer<C>(definitions: &[Vec<C>]) -> Option<usize> {
    let mut defining = definitions
        .iter()
        .enumerate()
        .filter(|(_, d)| !d.is_empty());
    match (defining.next(), defining.next()) {
        (Some((root, found)), None) if found.len() == 1 => Some(root),
        _ => None,
    }
}

/// Each root's share of one budget of `total`, given what each `needs` (`usize::MAX`: as
/// much as it can get) and its `weight` (its size): half the budget shared evenly, half by
/// weight (so that a small root beside a large one still gets a part), a root needing less
/// than its share getting what it needs and leaving the rest to the others, shared again.
/// The shares never sum to more than `total`.
pub fn split_budget(total: usize, needs: &[usize], weights: &[usize]) -> Vec<usize> {
    let mut shares = vec![0; needs.len()];
    let mut open: Vec<usize> = (0..needs.len()).filter(|&i| needs[i] > 0).collect();
    let mut left = total;
    loop {
        // Root i's part of `left`: (w_i / W + 1 / n) / 2, as integers.
        let (n, sum) = (
            open.len() as u128,
            open.iter().map(|&i| weights[i] as u128).sum(),
        );
        let part = |i: usize| n * weights[i] as u128 + u128::max(sum, 1);
        let whole: u128 = open.iter().map(|&i| part(i)).sum();
        let share = |i: usize| (left as u128 * part(i) / whole.max(1)) as usize;
        let (met, unmet): (Vec<usize>, Vec<usize>) =
            open.iter().partition(|&&i| needs[i] <= share(i));
        if met.is_empty() {
            for i in unmet {
                shares[i] = share(i);
            }
            return shares;
        }
        for i in met {
            shares[i] = needs[i];
            left -= needs[i];
        }
        open = unmet;
    }
}

/// Each path's last component, with as many parents as it takes to tell it from the
/// others (`app`, or `team-a/app` and `team-b/app`); the whole path when nothing shorter
/// is unique.
pub fn unique_names(paths: &[&Path]) -> Vec<String> {
    let tail = |path: &Path, n: usize| -> String {
        let parts: Vec<String> = path
            .components()
            .rev()
            .filter_map(|c| match c {
                std::path::Component::Normal(s) => Some(s.to_string_lossy().into_owned()),
                _ => None,
            })
            .take(n)
            .collect();
        if parts.len() < n || parts.is_empty() {
            return path.display().to_string();
        }
        parts.into_iter().rev().collect::<Vec<_>>().join("/")
    };
    paths
        .iter()
        .map(|path| {
            let depth = path.components().count();
            (1..=depth)
                .map(|n| tail(path, n))
                .find(|name| {
                    paths
                        .iter()
                        .filter(|other| (1..=depth).any(|n| tail(other, n) == *name))
                        .count()
                        == 1
                })
                .unwrap_or_else(|| path.display().to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_the_shortest_unique_tails() {
        let paths = [
            Path::new("/src/team-a/app"),
            Path::new("/src/team-b/app"),
            Path::new("/src/tools"),
        ];
        assert_eq!(unique_names(&paths), ["team-a/app", "team-b/app", "tools"]);
        assert_eq!(unique_names(&[Path::new("/")]), ["/"]);
        assert_eq!(
            unique_names(&[Path::new("/a/x"), Path::new("/x")]),
            ["a/x", "/x"]
        );
    }

    #[test]
    fn merged_lists_keep_each_roots_order_and_break_ties_by_root() {
        let first = vec![(1, "a"), (3, "b"), (2, "c")];
        let second = vec![(1, "x"), (2, "y")];
        let merged = merge_ordered(vec![first, second], |item| item.0);
        assert_eq!(
            merged,
            [
                (0, (1, "a")),
                (1, (1, "x")),
                (1, (2, "y")),
                (0, (3, "b")),
                (0, (2, "c"))
            ]
        );
    }

    #[test]
    fn a_budget_is_shared_by_weight_and_what_a_root_leaves_goes_to_the_others() {
        // Half evenly, half by weight, when every root wants more than its share.
        assert_eq!(split_budget(100, &[usize::MAX; 2], &[3, 1]), [62, 37]);
        assert_eq!(split_budget(100, &[usize::MAX; 2], &[1, 0]), [75, 25]);
        // The small root needs 10 of its 50: the other gets the rest.
        assert_eq!(split_budget(100, &[10, usize::MAX], &[1, 1]), [10, 90]);
        // Everyone's needs met: no more than they need.
        assert_eq!(split_budget(100, &[10, 20], &[5, 1]), [10, 20]);
        // A root needing nothing (no map) has no share.
        assert_eq!(
            split_budget(9, &[0, usize::MAX, usize::MAX], &[0, 0, 2]),
            [0, 2, 6]
        );
    }

    #[test]
    fn one_definition_in_one_root_stands_alone() {
        assert_eq!(sole_definer(&[vec![], vec!["b"]]), Some(1));
        assert_eq!(sole_definer::<&str>(&[vec![], vec![]]), None);
        assert_eq!(sole_definer(&[vec!["a"], vec!["b"]]), None);
        assert_eq!(sole_definer(&[vec!["a1", "a2"], vec![]]), None);
    }

    #[test]
    fn the_deepest_root_holding_a_path_answers_for_it() {
        let roots = [
            Path::new("/src"),
            Path::new("/src/app"),
            Path::new("/other"),
        ];
        let holding = |path: &str| deepest_holding(roots, |r| Path::new(path).starts_with(r));
        assert_eq!(holding("/src/app/main.py"), Some(1));
        assert_eq!(holding("/src/lib.rs"), Some(0));
        assert_eq!(holding("/other/x.go"), Some(2));
        assert_eq!(holding("/elsewhere/y.ts"), None);
        // The same root given twice: the first answers.
        let twice = [Path::new("/src"), Path::new("/src")];
        assert_eq!(deepest_holding(twice, |_| true), Some(0));
    }
}
