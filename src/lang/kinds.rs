//! Which node kinds can hold which, from the grammar's `node-types.json`: a walk looking for
//! some kinds can then skip the subtrees that cannot hold any of them.
//!
//! Invariant: [`KindGraph::holders_of`] only ever errs towards "may hold". A kind the file
//! does not describe may hold anything, unless the registry's `aliases` says which kind it
//! is an alias of (the file names an alias of a supertype without describing it: Python's
//! `as_pattern_target`, whose "may hold anything" would reach every expression); any kind
//! may when an extra (a comment, which the parser may put under any node) can hold a
//! target. What the file cannot describe, a tree with an error in it, the walk itself
//! answers with `has_error()`.

use std::collections::{HashMap, HashSet};

use serde::Deserialize;

/// One entry of `node-types.json`.
#[derive(Deserialize)]
struct NodeType {
    #[serde(rename = "type")]
    kind: String,
    named: bool,
    #[serde(default)]
    extra: bool,
    #[serde(default)]
    root: bool,
    /// Present on supertypes only: the kinds they stand for.
    subtypes: Option<Vec<KindRef>>,
    children: Option<ChildTypes>,
    #[serde(default)]
    fields: HashMap<String, ChildTypes>,
}

#[derive(Deserialize)]
struct ChildTypes {
    types: Vec<KindRef>,
}

#[derive(Deserialize, Clone, PartialEq, Eq, Hash)]
struct KindRef {
    #[serde(rename = "type")]
    kind: String,
    named: bool,
}

/// The "may be a child of" relation between a grammar's node kinds, by kind id.
#[derive(Debug)]
pub struct KindGraph {
    /// For each kind id, the ids of the kinds a node of it may be a direct child of.
    containers: Vec<Vec<u16>>,
    /// Kinds the file describes; of any other, nothing is known.
    listed: Vec<bool>,
    /// Kinds that may sit under any node: the file's extras, and named kinds no other kind
    /// lists as a child (older files, TypeScript's, do not mark their extras).
    extras: Vec<u16>,
}

impl KindGraph {
    /// Reads `node_types` (the grammar's `node-types.json`), with `aliases`: (named kind the
    /// file does not describe, the named kind or supertype it is an alias of).
    pub fn new(
        grammar: &tree_sitter::Language,
        node_types: &str,
        aliases: &[(String, String)],
    ) -> Result<KindGraph, String> {
        let mut types: Vec<NodeType> =
            serde_json::from_str(node_types).map_err(|e| e.to_string())?;
        for (alias, of) in aliases {
            let described = types.iter().find(|t| t.named && t.kind == *alias);
            if described.is_some() {
                return Err(format!("alias {alias:?} is described by node-types.json"));
            }
            let target = types
                .iter()
                .find(|t| t.named && t.kind == *of)
                .ok_or_else(|| format!("alias {alias:?}: {of:?} is no named kind"))?;
            types.push(target.aliased_as(alias));
        }
        let count = grammar.node_kind_count();
        // Aliases and hidden copies can give one (name, named) several ids.
        let mut ids: HashMap<(&str, bool), Vec<u16>> = HashMap::new();
        for id in 0..count as u16 {
            if let Some(name) = grammar.node_kind_for_id(id) {
                ids.entry((name, grammar.node_kind_is_named(id)))
                    .or_default()
                    .push(id);
            }
        }
        let ids_of = |r: &KindRef| -> Vec<u16> {
            ids.get(&(r.kind.as_str(), r.named))
                .cloned()
                .unwrap_or_default()
        };
        let supertypes: HashMap<KindRef, &[KindRef]> = types
            .iter()
            .filter_map(|t| Some((t.kind_ref(), t.subtypes.as_deref()?)))
            .collect();
        let mut containers = vec![Vec::new(); count];
        let mut listed = vec![false; count];
        let mut referenced: HashSet<KindRef> = HashSet::new();
        for node_type in types.iter().filter(|t| t.subtypes.is_none()) {
            let parents = ids_of(&node_type.kind_ref());
            for &id in &parents {
                listed[id as usize] = true;
            }
            let child_refs = node_type
                .children
                .iter()
                .chain(node_type.fields.values())
                .flat_map(|c| &c.types);
            for child in child_refs {
                for concrete in concrete_kinds(child, &supertypes) {
                    for id in ids_of(&concrete) {
                        containers[id as usize].extend_from_slice(&parents);
                    }
                    referenced.insert(concrete);
                }
            }
        }
        let extras = types
            .iter()
            .filter(|t| {
                t.subtypes.is_none()
                    && (t.extra || (t.named && !t.root && !referenced.contains(&t.kind_ref())))
            })
            .flat_map(|t| ids_of(&t.kind_ref()))
            .collect();
        Ok(KindGraph {
            containers,
            listed,
            extras,
        })
    }

    /// For each kind id, whether a node of that kind may hold, at any depth below it, a
    /// node of a kind in `targets` (by id). `None` when every kind may: an extra can hold a
    /// target, or is one.
    pub fn holders_of(&self, targets: &[bool]) -> Option<Vec<bool>> {
        let is_target = |id: u16| targets.get(id as usize).copied().unwrap_or(false);
        let mut holds: Vec<bool> = self.listed.iter().map(|listed| !listed).collect();
        // What holds a kind the file does not list may hold anything too.
        let mut pending: Vec<u16> = (0..self.containers.len() as u16)
            .filter(|&id| is_target(id) || holds[id as usize])
            .collect();
        while let Some(id) = pending.pop() {
            for &container in &self.containers[id as usize] {
                if !holds[container as usize] {
                    holds[container as usize] = true;
                    pending.push(container);
                }
            }
        }
        let anywhere = self
            .extras
            .iter()
            .any(|&id| is_target(id) || holds[id as usize]);
        (!anywhere).then_some(holds)
    }
}

impl NodeType {
    /// A node of kind `alias` standing for one of this kind: a supertype's node holds one
    /// of its subtypes, any other kind's holds its children.
    fn aliased_as(&self, alias: &str) -> NodeType {
        let children = match &self.subtypes {
            Some(_) => vec![self.kind_ref()],
            None => self
                .children
                .iter()
                .chain(self.fields.values())
                .flat_map(|c| c.types.iter().cloned())
                .collect(),
        };
        NodeType {
            kind: alias.to_string(),
            named: true,
            extra: false,
            root: false,
            subtypes: None,
            children: Some(ChildTypes { types: children }),
            fields: HashMap::new(),
        }
    }

    fn kind_ref(&self) -> KindRef {
        KindRef {
            kind: self.kind.clone(),
            named: self.named,
        }
    }
}

/// The kinds a child type stands for: itself, or a supertype's subtypes (themselves
/// possibly supertypes), which never appear in a tree.
fn concrete_kinds(kind: &KindRef, supertypes: &HashMap<KindRef, &[KindRef]>) -> Vec<KindRef> {
    let mut concrete = Vec::new();
    let mut pending = vec![kind.clone()];
    let mut seen: HashSet<KindRef> = HashSet::new();
    while let Some(kind) = pending.pop() {
        if !seen.insert(kind.clone()) {
            continue;
        }
        match supertypes.get(&kind) {
            Some(subtypes) => pending.extend(subtypes.iter().cloned()),
            None => concrete.push(kind),
        }
    }
    concrete
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A kind the file names but does not describe, and the registry does not alias, may
    /// hold anything: correct, but it makes every kind that can hold it unskippable.
    #[test]
    fn every_kind_a_grammar_names_is_described_or_aliased() {
        for lang in crate::lang::registry().all() {
            let types: Vec<NodeType> = serde_json::from_str(lang.node_types).unwrap();
            let described: HashSet<KindRef> = types.iter().map(NodeType::kind_ref).collect();
            let undescribed: Vec<String> = types
                .iter()
                .flat_map(|t| t.children.iter().chain(t.fields.values()))
                .flat_map(|c| &c.types)
                .filter(|r| !described.contains(r))
                .filter(|r| !lang.kind_aliases.iter().any(|(alias, _)| *alias == r.kind))
                .map(|r| r.kind.clone())
                .collect();
            assert_eq!(undescribed, Vec::<String>::new(), "{}", lang.id);
            let graph = lang.kind_graph();
            assert!(
                graph.is_some_and(|g| g.listed.iter().any(|l| *l)),
                "{}",
                lang.id
            );
        }
    }

    #[test]
    fn an_alias_of_a_supertype_holds_what_its_subtypes_hold() {
        let lang = crate::lang::registry().by_id("python").unwrap();
        let id = |name: &str| {
            (0..lang.grammar.node_kind_count() as u16)
                .find(|&id| {
                    lang.grammar.node_kind_is_named(id)
                        && lang.grammar.node_kind_for_id(id) == Some(name)
                })
                .unwrap()
        };
        let mut targets = vec![false; lang.grammar.node_kind_count()];
        targets[id("lambda") as usize] = true;
        let holders = lang.kind_graph().unwrap().holders_of(&targets).unwrap();
        // The target is any expression, a lambda too.
        assert!(holders[id("as_pattern_target") as usize]);
        assert!(holders[id("as_pattern") as usize]);
        assert!(!holders[id("identifier") as usize]);
        targets[id("lambda") as usize] = false;
        targets[id("function_definition") as usize] = true;
        let holders = lang.kind_graph().unwrap().holders_of(&targets).unwrap();
        assert!(!holders[id("as_pattern_target") as usize]);
        assert!(holders[id("block") as usize]);
    }

    #[test]
    fn an_alias_the_file_describes_or_of_no_kind_is_refused() {
        let lang = crate::lang::registry().by_id("python").unwrap();
        let graph = |alias: &str, of: &str| {
            KindGraph::new(
                &lang.grammar,
                lang.node_types,
                &[(alias.to_string(), of.to_string())],
            )
            .map(|_| ())
        };
        assert_eq!(
            graph("call", "expression"),
            Err("alias \"call\" is described by node-types.json".to_string())
        );
        assert_eq!(
            graph("as_pattern_target", "no_such_kind"),
            Err("alias \"as_pattern_target\": \"no_such_kind\" is no named kind".to_string())
        );
    }

    #[test]
    fn an_extra_that_holds_a_target_leaves_no_kind_skippable() {
        let lang = crate::lang::registry().by_id("python").unwrap();
        let comment = (0..lang.grammar.node_kind_count() as u16)
            .find(|&id| lang.grammar.node_kind_for_id(id) == Some("comment"))
            .unwrap();
        let mut targets = vec![false; lang.grammar.node_kind_count()];
        targets[comment as usize] = true;
        assert!(lang.kind_graph().unwrap().holders_of(&targets).is_none());
    }
}
