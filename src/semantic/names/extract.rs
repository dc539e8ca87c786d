//! [`extract`]: a file's [`FileNames`] from its tree and `locals.scm`, built in steps. Each
//! match of the query is sorted by what it captured, one [`Builder`] method per capture
//! family (scopes, flow, strings, roles, and the links from a name to others); strings that
//! hold code are parsed and queried for the names they use, and doc comments read for the
//! names their links point to (`{@link X}`, `@see X`); then the scopes are nested,
//! each occurrence placed in its scope, the links turned into occurrence ids, and the
//! lookup tables indexed.
//!
//! Invariant: the result depends on the text and its tree alone (`file_names` memoizes it
//! per file), and the steps run in the order the captures need: every match before any
//! scope is nested, scopes before occurrences, occurrences before the links between them.

use std::sync::Arc;

use foldhash::{HashMap, HashMapExt, HashSet, HashSetExt};

use super::{
    Callback, FileNames, FlowRegion, Impl, Occurrence, OccurrenceId, OptionalId, Role, Scope,
    ScopeId,
};
use crate::{
    lang::{Language, QueryKind},
    syntax::{self, TextRange},
};

/// The names of `text`, from `tree`, its parse (`None` when the parser gave up: no
/// names). `None` when interrupted.
pub(crate) fn extract(
    lang: &Language,
    text: Arc<str>,
    tree: Option<&tree_sitter::Tree>,
    interrupt: syntax::Interrupt,
) -> Option<FileNames> {
    let whole = TextRange::up_to((text.len() as u32).into());
    let mut names = FileNames {
        scopes: vec![Scope {
            parent: None,
            range: whole,
            is_class: false,
            is_block: false,
            named_by: None,
        }],
        ..FileNames::default()
    };
    let (Some(query), Some(tree)) = (lang.query(QueryKind::Locals), tree) else {
        names.text = text;
        return Some(names);
    };
    let mut builder = Builder::new(query.capture_names());
    let matched = syntax::run_query(lang, QueryKind::Locals, tree, &text, interrupt, |m| {
        builder.add_match(m)
    });
    if !matched || !builder.add_code_strings(lang, &text, interrupt) {
        return None;
    }
    builder.add_doc_links(&text);
    builder.finish(&mut names, &text, range_of(tree.root_node()));
    names.text = text;
    index_names(&mut names, &builder.class_members, &builder.type_only);
    names.shrink_to_fit();
    Some(names)
}

/// A scope as the query found it.
struct RawScope {
    range: TextRange,
    is_class: bool,
    is_block: bool,
    /// Its `name` child: a definition there is bound in the parent scope.
    name: Option<TextRange>,
    /// A pattern's scope (`@scope.let`): the node whose definitions it holds, though they
    /// are written before it starts.
    binds: Option<TextRange>,
}

fn range_of(node: tree_sitter::Node) -> TextRange {
    TextRange::new(
        (node.start_byte() as u32).into(),
        (node.end_byte() as u32).into(),
    )
}

/// What one match captured besides scopes, flow and strings: the name it is about, how
/// that name links to others, and the nodes bounding a pattern's scope or naming an impl.
#[derive(Default)]
struct Captured<'q> {
    /// The node a role capture named.
    named: Option<TextRange>,
    receiver: Option<(TextRange, bool)>,
    /// `@receiver.element`: the member is looked up on an element of the receiver.
    receiver_element: bool,
    constructor: Option<TextRange>,
    /// `@elements`: the binding's written type is an array of this type.
    elements: Option<TextRange>,
    /// `@element.of`: the binding holds an element of this value.
    element_of: Option<TextRange>,
    value: Option<TextRange>,
    superclass: Option<TextRange>,
    /// `@superclass.argument`: a type argument the base is given, by its position, and its
    /// type's name when it is one (`OptionalDef` of `OptionalDef<T>`).
    superclass_argument: Option<(u32, Option<TextRange>)>,
    /// `@written.generic` and `@written.argument`: the binding's written generic type (a
    /// variable's, a function's return type) and one of its type arguments, as above.
    written_generic: Option<TextRange>,
    written_argument: Option<(u32, Option<TextRange>)>,
    module_path: Option<TextRange>,
    after: Option<TextRange>,
    export: Option<TextRange>,
    hoist: bool,
    class_member: bool,
    type_only: bool,
    instance: Option<&'q str>,
    /// `@signature`: the parameter's written function type.
    signature: Option<TextRange>,
    /// `@callback` or `@callback.this` (with its position among the call's arguments and
    /// whether it takes its `this` from the callee), and `@callback.callee`.
    callback: Option<(TextRange, u32, bool)>,
    callback_callee: Option<TextRange>,
    /// `@scope.let` (and its node's parent), and the nodes bounding its scope.
    binder: Option<(TextRange, Option<TextRange>)>,
    scope_from: Option<TextRange>,
    scope_to: Option<TextRange>,
    /// `@impl.type`, `@impl.trait`, and the `@scope.class` they belong to.
    impl_type: Option<TextRange>,
    impl_trait: Option<TextRange>,
    class_scope: Option<TextRange>,
}

/// The locals query's matches of one file, gathered by capture until [`Builder::finish`]
/// turns them into scopes and occurrences. Pairs are by the nodes' ranges.
struct Builder<'q> {
    capture_names: &'q [&'q str],
    scopes: Vec<RawScope>,
    /// By range: the role from the earliest pattern that captured the node.
    roles: HashMap<TextRange, (usize, Option<Role>)>,
    /// (member, receiver, the receiver is called).
    receivers: Vec<(TextRange, TextRange, bool)>,
    /// (variable, callee).
    constructors: Vec<(TextRange, TextRange)>,
    /// (binding, the type of its elements).
    element_types: Vec<(TextRange, TextRange)>,
    /// (variable, the value it holds an element of).
    iterations: Vec<(TextRange, TextRange)>,
    /// Members looked up on an element of their receiver.
    element_receivers: Vec<TextRange>,
    /// (variable, the name it is assigned).
    values: Vec<(TextRange, TextRange)>,
    /// (class, base).
    bases: Vec<(TextRange, TextRange)>,
    /// (base, a type argument's position, its type's name).
    base_arguments: Vec<(TextRange, u32, TextRange)>,
    /// (binding, its written generic type's name, a type argument's position, its type's
    /// name).
    written_generics: Vec<(TextRange, TextRange, u32, Option<TextRange>)>,
    /// (part of a module's name, the whole name).
    module_paths: Vec<(TextRange, TextRange)>,
    /// (binding, the statement after which it takes effect).
    effective: Vec<(TextRange, TextRange)>,
    /// (local, the name it is exported as).
    exported: Vec<(TextRange, TextRange)>,
    hoisted: HashSet<TextRange>,
    class_members: HashSet<TextRange>,
    /// Bindings of a name as a type and nothing else (`@type.only`).
    type_only: HashSet<TextRange>,
    transparent: HashSet<TextRange>,
    /// (binding or member, the builtin type's name).
    instances: Vec<(TextRange, &'q str)>,
    /// (parameter, its written function type).
    signatures: Vec<(TextRange, TextRange)>,
    /// (function passed as an argument, the callee, the argument's position, `this` from
    /// the callee).
    callbacks: Vec<(TextRange, TextRange, u32, bool)>,
    /// (impl block, its type's name, its trait's name).
    impl_types: Vec<(TextRange, TextRange, Option<TextRange>)>,
    flow: Vec<FlowRegion>,
    /// `@string.code` minus `@string.value`: the insides of strings to parse as code.
    code_strings: Vec<tree_sitter::Range>,
    value_strings: HashSet<TextRange>,
    /// `@doc.links`: comments whose links name code.
    doc_comments: Vec<TextRange>,
}

/// The scopes of a file once nested: by their node's range, and how names find them.
struct NestedScopes {
    /// A scope's `name` child → the scope.
    by_name: HashMap<TextRange, ScopeId>,
    /// Pattern scopes by the pattern they hold the names of, in document order (patterns
    /// nest or are apart, as syntax nodes do).
    binders: Vec<(TextRange, ScopeId)>,
    by_range: HashMap<TextRange, ScopeId>,
}

impl<'q> Builder<'q> {
    fn new(capture_names: &'q [&'q str]) -> Builder<'q> {
        Builder {
            capture_names,
            scopes: Vec::new(),
            roles: HashMap::new(),
            receivers: Vec::new(),
            constructors: Vec::new(),
            element_types: Vec::new(),
            iterations: Vec::new(),
            element_receivers: Vec::new(),
            values: Vec::new(),
            bases: Vec::new(),
            base_arguments: Vec::new(),
            written_generics: Vec::new(),
            module_paths: Vec::new(),
            effective: Vec::new(),
            exported: Vec::new(),
            hoisted: HashSet::new(),
            class_members: HashSet::new(),
            type_only: HashSet::new(),
            transparent: HashSet::new(),
            instances: Vec::new(),
            signatures: Vec::new(),
            callbacks: Vec::new(),
            impl_types: Vec::new(),
            flow: Vec::new(),
            code_strings: Vec::new(),
            value_strings: HashSet::new(),
            doc_comments: Vec::new(),
        }
    }

    /// One match of the file's tree.
    fn add_match(&mut self, m: &tree_sitter::QueryMatch<'_, '_>) {
        let mut captured = Captured::default();
        for capture in m.captures() {
            let node = capture.node;
            let range = range_of(node);
            let name = self.capture_names[capture.index as usize];
            let _sorted = self.add_scope_capture(&mut captured, name, node, range)
                || add_callback_capture(&mut captured, name, node, range)
                || add_type_argument_capture(&mut captured, name, node)
                || self.add_flow_capture(name, node, range)
                || self.add_string_capture(name, node, range)
                || captured.add_link_capture(name, range)
                || self.add_role_capture(&mut captured, name, m.pattern_index, range);
        }
        self.add_pattern_scope(&captured);
        if let (Some((function, position, this)), Some(callee)) =
            (captured.callback, captured.callback_callee)
        {
            self.callbacks.push((function, callee, position, this));
        }
        if let (Some(scope), Some(ty)) = (captured.class_scope, captured.impl_type) {
            self.impl_types.push((scope, ty, captured.impl_trait));
        }
        self.add_links(captured);
    }

    /// `@scope…` and `@impl…`: scopes, a pattern's scope bounds, impl blocks.
    fn add_scope_capture(
        &mut self,
        captured: &mut Captured,
        name: &str,
        node: tree_sitter::Node,
        range: TextRange,
    ) -> bool {
        match name {
            kind @ ("scope" | "scope.class" | "scope.block") => {
                if kind == "scope.class" {
                    captured.class_scope = Some(range);
                }
                self.scopes.push(RawScope {
                    range,
                    is_class: kind == "scope.class",
                    is_block: kind == "scope.block",
                    name: node.child_by_field_name("name").map(range_of),
                    binds: None,
                })
            }
            "scope.let" => captured.binder = Some((range, node.parent().map(range_of))),
            "scope.from" => captured.scope_from = Some(range),
            "scope.to" => captured.scope_to = Some(range),
            "scope.transparent" => {
                self.transparent.insert(range);
            }
            "impl.type" => captured.impl_type = Some(range),
            "impl.trait" => captured.impl_trait = Some(range),
            _ => return false,
        }
        true
    }

    /// `@flow…`: code that runs on some paths only.
    fn add_flow_capture(&mut self, name: &str, node: tree_sitter::Node, range: TextRange) -> bool {
        match name {
            "flow.branch" => self.flow.push(FlowRegion {
                range,
                alternative_of: node.parent().map(range_of),
            }),
            "flow.loop" => self.flow.push(FlowRegion {
                range,
                alternative_of: None,
            }),
            _ => return false,
        }
        true
    }

    /// `@string…`: strings whose insides are code, and strings that are values.
    fn add_string_capture(
        &mut self,
        name: &str,
        node: tree_sitter::Node,
        range: TextRange,
    ) -> bool {
        match name {
            // An escape makes the text differ from what the language reads.
            "string.code" if node.child_count() == 0 => self.code_strings.push(node.range()),
            "string.code" => {}
            "string.value" => {
                self.value_strings.insert(range);
            }
            "doc.links" => self.doc_comments.push(range),
            _ => return false,
        }
        true
    }

    /// A role capture (`@definition.function`, `@reference`, `@member`…), or `@skip`: the
    /// earliest pattern's role wins.
    fn add_role_capture(
        &mut self,
        captured: &mut Captured,
        name: &str,
        pattern: usize,
        range: TextRange,
    ) -> bool {
        let Some(role) = Role::from_capture(name) else {
            return false;
        };
        let entry = self.roles.entry(range).or_insert((pattern, role));
        if pattern < entry.0 {
            *entry = (pattern, role);
        }
        captured.named = Some(range);
        true
    }

    /// A pattern's scope: from the end of the pattern (or of `@scope.from`) to the end of
    /// `@scope.to` (or of the pattern's parent: a `let`'s block).
    fn add_pattern_scope(&mut self, captured: &Captured) {
        if let Some((pattern, parent)) = captured.binder
            && let Some(end) = captured.scope_to.or(parent).map(|r| r.end())
        {
            let start = captured.scope_from.unwrap_or(pattern).end();
            if start < end {
                self.scopes.push(RawScope {
                    range: TextRange::new(start, end),
                    is_class: false,
                    is_block: false,
                    name: None,
                    binds: Some(pattern),
                });
            }
        }
    }

    /// The links of a match's named node to the other nodes it captured.
    fn add_links(&mut self, captured: Captured<'q>) {
        let Some(named) = captured.named else {
            return;
        };
        if let Some((r, called)) = captured.receiver {
            self.receivers.push((named, r, called));
            if captured.receiver_element {
                self.element_receivers.push(named);
            }
        }
        if let (Some(generic), Some((position, argument))) =
            (captured.written_generic, captured.written_argument)
        {
            self.written_generics
                .push((named, generic, position, argument));
        }
        if let Some(e) = captured.elements {
            self.element_types.push((named, e));
        }
        if let Some(e) = captured.element_of {
            self.iterations.push((named, e));
        }
        if let Some(v) = captured.value {
            self.values.push((named, v));
        }
        if let Some(c) = captured.constructor {
            self.constructors.push((named, c));
        }
        if let Some(b) = captured.superclass {
            self.bases.push((named, b));
            if let Some((position, Some(argument))) = captured.superclass_argument {
                self.base_arguments.push((b, position, argument));
            }
        }
        if let Some(p) = captured.module_path {
            self.module_paths.push((named, p));
        }
        if let Some(a) = captured.after {
            self.effective.push((named, a));
        }
        if let Some(e) = captured.export {
            self.exported.push((named, e));
        }
        if captured.hoist {
            self.hoisted.insert(named);
        }
        if captured.class_member {
            self.class_members.insert(named);
        }
        if captured.type_only {
            self.type_only.insert(named);
        }
        if let Some(type_name) = captured.instance {
            self.instances.push((named, type_name));
        }
        if let Some(signature) = captured.signature {
            self.signatures.push((named, signature));
        }
    }

    /// One match of a string's content parsed as code: only uses are taken from it (a
    /// string binds nothing and opens no scope), and what they are members of.
    fn add_string_match(&mut self, m: &tree_sitter::QueryMatch<'_, '_>) {
        let (mut named, mut receiver) = (None, None);
        for capture in m.captures() {
            let range = range_of(capture.node);
            match self.capture_names[capture.index as usize] {
                "receiver" => receiver = Some((range, false)),
                "receiver.called" => receiver = Some((range, true)),
                other => {
                    if let Some(Some(role)) = Role::from_capture(other)
                        && (role.reads_binding() || matches!(role, Role::Member | Role::MemberCall))
                    {
                        self.roles
                            .entry(range)
                            .or_insert((m.pattern_index, Some(role)));
                        named = Some(range);
                    }
                }
            }
        }
        if let (Some(named), Some((r, called))) = (named, receiver) {
            self.receivers.push((named, r, called));
        }
    }

    /// The names strings use when their insides are code (`@string.code` not also a
    /// `@string.value`): each parsed on its own and queried. `false` when interrupted.
    fn add_code_strings(
        &mut self,
        lang: &Language,
        text: &str,
        interrupt: syntax::Interrupt,
    ) -> bool {
        for string in std::mem::take(&mut self.code_strings) {
            let whole = TextRange::new(
                (string.start_byte as u32).into(),
                (string.end_byte as u32).into(),
            );
            if self.value_strings.contains(&whole) {
                continue;
            }
            let parsed = syntax::parse_range(
                lang,
                text,
                string.start_byte..string.end_byte,
                string.start_point,
                string.end_point,
                interrupt,
            );
            let finished = match parsed {
                Some(inside) if !inside.root_node().has_error() => {
                    syntax::run_query(lang, QueryKind::Locals, &inside, text, interrupt, |m| {
                        self.add_string_match(m)
                    })
                }
                None => !interrupt(),
                Some(_) => true,
            };
            if !finished {
                return false;
            }
        }
        true
    }

    /// The names doc comments (`/** … */`) point to: `{@link X}`, `{@linkcode X.y}`,
    /// `{@linkplain X#y label}`, `@see X` and a tag's type (`@param {X} x`). The first part is
    /// a [`Role::DocReference`] (in a type, a [`Role::DocType`]) in the scope around the
    /// comment, each further part a member of the part before it. A link to a URL or a module
    /// (`https://…`, `module:x`) names no code.
    fn add_doc_links(&mut self, text: &str) {
        for comment in std::mem::take(&mut self.doc_comments) {
            let start = usize::from(comment.start());
            let Some(body) = text.get(start..usize::from(comment.end())) else {
                continue;
            };
            if !body.starts_with("/**") {
                continue;
            }
            for DocName {
                start: offset,
                parts,
                in_type,
            } in doc_link_names(body)
            {
                let mut before: Option<TextRange> = None;
                for (part_start, part_end) in parts {
                    let range = TextRange::new(
                        ((start + offset + part_start) as u32).into(),
                        ((start + offset + part_end) as u32).into(),
                    );
                    let role = match before {
                        None if in_type => Role::DocType,
                        None => Role::DocReference,
                        Some(receiver) => {
                            self.receivers.push((range, receiver, false));
                            Role::Member
                        }
                    };
                    self.roles.entry(range).or_insert((usize::MAX, Some(role)));
                    before = Some(range);
                }
            }
        }
    }

    /// Flow regions, scopes, occurrences and their links into `names`, whose scope 0 is
    /// the file's; `root` is the tree's root node.
    fn finish(&mut self, names: &mut FileNames, text: &str, root: TextRange) {
        let mut flow = std::mem::take(&mut self.flow);
        flow.sort_by_key(|region| (region.range.start(), std::cmp::Reverse(region.range.end())));
        flow.dedup();
        names.flow = flow;
        let scopes = self.nest_scopes(names, root);
        let by_end = self.place_occurrences(names, &scopes);
        self.link(names, &scopes, &by_end, text);
    }

    /// Scopes, outermost first, each with its parent; the file's scope stays 0.
    fn nest_scopes(&mut self, names: &mut FileNames, root: TextRange) -> NestedScopes {
        let whole = names.scopes[0].range;
        let mut scopes = std::mem::take(&mut self.scopes);
        scopes.retain(|s| !self.transparent.contains(&s.range));
        scopes.sort_by_key(|s| (s.range.start(), std::cmp::Reverse(s.range.end())));
        scopes.dedup_by(|later, kept| {
            if later.range != kept.range {
                return false;
            }
            kept.binds = kept.binds.or(later.binds);
            kept.name = kept.name.or(later.name);
            true
        });
        let mut nested = NestedScopes {
            by_name: HashMap::new(),
            binders: Vec::new(),
            by_range: HashMap::new(),
        };
        let mut stack: Vec<ScopeId> = vec![0];
        // The root node starts after leading whitespace (a byte-order mark, a blank line),
        // so its range may be less than the file's; either way it is the file's scope.
        for raw in scopes {
            if raw.range == whole || raw.range == root {
                continue;
            }
            while let Some(&top) = stack.last() {
                if top == 0 || names.scopes[top as usize].range.contains_range(raw.range) {
                    break;
                }
                stack.pop();
            }
            let id = names.scopes.len() as ScopeId;
            names.scopes.push(Scope {
                parent: stack.last().copied(),
                range: raw.range,
                is_class: raw.is_class,
                is_block: raw.is_block,
                named_by: None,
            });
            if let Some(name) = raw.name {
                nested.by_name.insert(name, id);
            }
            if let Some(pattern) = raw.binds {
                nested.binders.push((pattern, id));
            }
            nested.by_range.insert(raw.range, id);
            stack.push(id);
        }
        nested
            .binders
            .sort_by_key(|(pattern, _)| (pattern.start(), std::cmp::Reverse(pattern.end())));
        nested
    }

    /// Occurrences in document order, each in the innermost scope around it; a scope's own
    /// name belongs to the scope around it. Returns each occurrence by where it ends.
    fn place_occurrences(
        &mut self,
        names: &mut FileNames,
        scopes: &NestedScopes,
    ) -> HashMap<u32, OccurrenceId> {
        let mut found: Vec<(TextRange, Role)> = std::mem::take(&mut self.roles)
            .into_iter()
            .filter_map(|(range, (_, role))| Some((range, role?)))
            .collect();
        found.sort_by_key(|(range, _)| range.start());
        let mut by_end: HashMap<u32, OccurrenceId> = HashMap::new();
        let mut stack: Vec<ScopeId> = vec![0];
        let mut next_scope = 1usize;
        let mut binder_stack: Vec<(TextRange, ScopeId)> = Vec::new();
        let mut next_binder = 0usize;
        for (range, role) in found {
            while next_scope < names.scopes.len()
                && names.scopes[next_scope].range.start() <= range.start()
            {
                stack.push(next_scope as ScopeId);
                next_scope += 1;
            }
            while let Some(&top) = stack.last() {
                if top == 0 || names.scopes[top as usize].range.contains_range(range) {
                    break;
                }
                stack.pop();
            }
            // The stack may hold a scope that starts later and was pushed early; keep only
            // scopes around this occurrence.
            let mut scope = *stack
                .iter()
                .rev()
                .find(|&&s| names.scopes[s as usize].range.contains_range(range))
                .unwrap_or(&0);
            let id = names.occurrences.len() as OccurrenceId;
            if let Some(&named) = scopes.by_name.get(&range) {
                names.scopes[named as usize].named_by = Some(id);
                scope = names.scopes[named as usize].parent.unwrap_or(0);
            }
            if self.hoisted.contains(&range) {
                while names.scopes[scope as usize].is_block {
                    scope = names.scopes[scope as usize].parent.unwrap_or(0);
                }
            }
            // A name a pattern binds belongs to the pattern's scope, unless a scope inside
            // the pattern's node holds it (a closure's parameter in a `let`'s value).
            while next_binder < scopes.binders.len()
                && scopes.binders[next_binder].0.start() <= range.start()
            {
                binder_stack.push(scopes.binders[next_binder]);
                next_binder += 1;
            }
            while binder_stack
                .last()
                .is_some_and(|(pattern, _)| !pattern.contains_range(range))
            {
                binder_stack.pop();
            }
            if let (Role::Definition(_), Some(&(pattern, bound_in))) = (role, binder_stack.last())
                && !pattern.contains_range(names.scopes[scope as usize].range)
            {
                scope = bound_in;
            }
            by_end.insert(range.end().into(), id);
            names.occurrences.push(Occurrence {
                range,
                scope,
                role,
                receiver: OptionalId::NONE,
                receiver_called: false,
                constructor: OptionalId::NONE,
                value: OptionalId::NONE,
                path_start: OptionalId::NONE,
                effective: range.end().into(),
            });
        }
        by_end
    }

    /// The links between nodes, as links between occurrences: receivers, values,
    /// constructors, where bindings take effect, builtin instances, exports, module paths,
    /// impl blocks and bases. A receiver, callee or base is known by its last name: the
    /// occurrence ending with it.
    fn link(
        &mut self,
        names: &mut FileNames,
        scopes: &NestedScopes,
        by_end: &HashMap<u32, OccurrenceId>,
        text: &str,
    ) {
        let by_range: HashMap<TextRange, OccurrenceId> = names
            .occurrences
            .iter()
            .enumerate()
            .map(|(i, o)| (o.range, i as OccurrenceId))
            .collect();
        let last_name = |range: TextRange| by_end.get(&u32::from(range.end())).copied();
        for (member, receiver, called) in self.receivers.drain(..) {
            if let (Some(&m), Some(r)) = (by_range.get(&member), last_name(receiver)) {
                let occurrence = &mut names.occurrences[m as usize];
                if occurrence.receiver.is_none() {
                    occurrence.receiver = OptionalId::some(r);
                    occurrence.receiver_called = called;
                }
            }
        }
        for member in self.element_receivers.drain(..) {
            if let Some(&m) = by_range.get(&member)
                && names.occurrences[m as usize].receiver.is_some()
            {
                names.element_receivers.insert(m);
            }
        }
        for (binding, element) in self.element_types.drain(..) {
            if let (Some(&b), Some(e)) = (by_range.get(&binding), last_name(element)) {
                names.element_types.insert(b, e);
            }
        }
        for (variable, iterated) in self.iterations.drain(..) {
            if let (Some(&v), Some(i)) = (by_range.get(&variable), last_name(iterated)) {
                names.iterated.insert(v, i);
            }
        }
        for (variable, value) in self.values.drain(..) {
            if let (Some(&v), Some(n)) = (by_range.get(&variable), last_name(value)) {
                names.occurrences[v as usize].value = OptionalId::some(n);
            }
        }
        for (variable, callee) in self.constructors.drain(..) {
            if let (Some(&v), Some(c)) = (by_range.get(&variable), last_name(callee)) {
                names.occurrences[v as usize].constructor = OptionalId::some(c);
                let occurrence = &names.occurrences[v as usize];
                if occurrence.role == Role::SelfReference {
                    names.this_types.insert(occurrence.scope, c);
                }
            }
        }
        for (binding, statement) in self.effective.drain(..) {
            if let Some(&b) = by_range.get(&binding) {
                names.occurrences[b as usize].effective = statement.end().into();
            }
        }
        for (occurrence, type_name) in self.instances.drain(..) {
            if let Some(&o) = by_range.get(&occurrence) {
                names.builtin_instances.insert(o, type_name.into());
            }
        }
        for (local, name) in self.exported.drain(..) {
            if let (Some(&l), Some(exported)) = (
                by_range.get(&local),
                text.get(usize::from(name.start())..usize::from(name.end())),
            ) {
                names.exports.entry(exported.into()).or_insert(l);
            }
        }
        for (part, path) in self.module_paths.drain(..) {
            if let Some(&p) = by_range.get(&part) {
                names.occurrences[p as usize].path_start = OptionalId::some(path.start().into());
            }
        }
        for (scope, ty, tr) in self.impl_types.drain(..) {
            if let (Some(&scope), Some(&self_type)) =
                (scopes.by_range.get(&scope), by_range.get(&ty))
            {
                names.impls.push(Impl {
                    scope,
                    self_type,
                    trait_name: tr.and_then(|t| by_range.get(&t).copied()),
                });
            }
        }
        for (parameter, signature) in self.signatures.drain(..) {
            if let (Some(&p), Some(&s)) =
                (by_range.get(&parameter), scopes.by_range.get(&signature))
            {
                names.signatures.insert(p, s);
            }
        }
        for (function, callee, position, this) in self.callbacks.drain(..) {
            if let (Some(&f), Some(c)) = (scopes.by_range.get(&function), last_name(callee)) {
                names.callbacks.insert(
                    f,
                    Callback {
                        callee: c,
                        argument: position,
                        binds_this: this,
                    },
                );
            }
        }
        for (binding, generic, position, argument) in self.written_generics.drain(..) {
            if let (Some(&b), Some(g)) = (by_range.get(&binding), last_name(generic)) {
                let (_, list) = names
                    .written_generics
                    .entry(b)
                    .or_insert_with(|| (g, Vec::new()));
                if list.len() <= position as usize {
                    list.resize(position as usize + 1, None);
                }
                list[position as usize] = argument.and_then(last_name);
            }
        }
        for (base, position, argument) in self.base_arguments.drain(..) {
            if let (Some(b), Some(a)) = (last_name(base), last_name(argument)) {
                let list = names.base_arguments.entry(b).or_default();
                if list.len() <= position as usize {
                    list.resize(position as usize + 1, None);
                }
                list[position as usize] = Some(a);
            }
        }
        for (class, base) in self.bases.drain(..) {
            if let (Some(&c), Some(b)) = (by_range.get(&class), last_name(base)) {
                let list = names.bases.entry(c).or_default();
                if !list.contains(&b) {
                    list.push(b);
                }
            }
        }
    }
}

impl<'q> Captured<'q> {
    /// A capture that links the match's named node to another, or marks it.
    fn add_link_capture(&mut self, name: &'q str, range: TextRange) -> bool {
        match name {
            "receiver" => self.receiver = Some((range, false)),
            "receiver.called" => self.receiver = Some((range, true)),
            "receiver.element" => {
                self.receiver = Some((range, false));
                self.receiver_element = true;
            }
            "constructor" => self.constructor = Some(range),
            "elements" => self.elements = Some(range),
            "element.of" => self.element_of = Some(range),
            "value" => self.value = Some(range),
            "superclass" => self.superclass = Some(range),
            "module.path" => self.module_path = Some(range),
            "effective.after" => self.after = Some(range),
            "export.name" => self.export = Some(range),
            "hoisted" => self.hoist = true,
            "class.member" => self.class_member = true,
            "type.only" => self.type_only = true,
            "signature" => self.signature = Some(range),
            other if other.starts_with("instance.") => {
                self.instance = other.strip_prefix("instance.");
            }
            _ => return false,
        }
        true
    }
}

/// `@callback` (`@callback.this`) and `@callback.callee`: a function passed as an
/// argument, known by its position among the call's arguments (comments not counted), and
/// the callee.
fn add_callback_capture(
    captured: &mut Captured,
    name: &str,
    node: tree_sitter::Node,
    range: TextRange,
) -> bool {
    match name {
        "callback" | "callback.this" => {
            let position = node.parent().map_or(0, |arguments| {
                let mut cursor = arguments.walk();
                arguments
                    .named_children(&mut cursor)
                    .filter(|argument| !argument.is_extra())
                    .take_while(|argument| argument.id() != node.id())
                    .count()
            });
            captured.callback = Some((range, position as u32, name == "callback.this"));
        }
        "callback.callee" => captured.callback_callee = Some(range),
        _ => return false,
    }
    true
}

/// `@superclass.argument`, `@written.argument`: a type argument of a base or of a written
/// generic type, known by its position among the type arguments, and by its type's name
/// when it is a named type (`T`, `Def<T>`, `ns.T`); and `@written.generic`.
fn add_type_argument_capture(captured: &mut Captured, name: &str, node: tree_sitter::Node) -> bool {
    match name {
        "superclass.argument" | "written.argument" => {}
        "written.generic" => {
            captured.written_generic = Some(range_of(node));
            return true;
        }
        _ => return false,
    }
    let position = node.parent().map_or(0, |arguments| {
        let mut cursor = arguments.walk();
        arguments
            .named_children(&mut cursor)
            .filter(|argument| !argument.is_extra())
            .take_while(|argument| argument.id() != node.id())
            .count()
    });
    let named = match node.kind() {
        "type_identifier" | "nested_type_identifier" => Some(node),
        "generic_type" => node.child_by_field_name("name"),
        _ => None,
    };
    let argument = Some((position as u32, named.map(range_of)));
    if name == "written.argument" {
        captured.written_argument = argument;
    } else {
        captured.superclass_argument = argument;
    }
    true
}

/// A name a doc comment points to.
struct DocName {
    /// Where it starts in the comment.
    start: usize,
    /// Its parts' ranges from `start` (`X`, `y` of `X.y` or `X#y`).
    parts: Vec<(usize, usize)>,
    /// In a tag's type (`@param {X} x`) rather than a link.
    in_type: bool,
}

/// The names a doc comment's text points to: `{@link X}` (and `linkcode`, `linkplain`),
/// `@see X`, and the names in a tag's type (`@param {X} x`, `@throws {Y<X>}`).
fn doc_link_names(comment: &str) -> Vec<DocName> {
    let mut found = Vec::new();
    let mut at = 0;
    while let Some(i) = comment[at..].find('@') {
        let tag_start = at + i;
        let tag_end = comment[tag_start + 1..]
            .find(|c: char| !c.is_ascii_alphanumeric())
            .map_or(comment.len(), |n| tag_start + 1 + n);
        let tag = &comment[tag_start + 1..tag_end];
        at = tag_end.max(tag_start + 1);
        let inline = comment[..tag_start].ends_with('{');
        let rest = &comment[tag_end..];
        let name_start = tag_end + (rest.len() - rest.trim_start().len());
        if tag.is_empty() || name_start == tag_end {
            continue;
        }
        match tag {
            "link" | "linkcode" | "linkplain" | "see" if inline == (tag != "see") => {
                if let Some((parts, end)) = entity_name(comment, name_start) {
                    found.push(DocName {
                        start: name_start,
                        parts,
                        in_type: false,
                    });
                    at = end;
                }
            }
            _ if !inline
                && comment[name_start..].starts_with('{')
                && !comment[name_start + 1..].starts_with('@') =>
            {
                at = type_expression_names(comment, name_start, &mut found);
            }
            _ => {}
        }
    }
    found
}

/// Words of a JSDoc type that are TypeScript's, not names.
const TYPE_KEYWORDS: &[&str] = &[
    "typeof",
    "keyof",
    "import",
    "readonly",
    "function",
    "new",
    "null",
    "undefined",
    "void",
    "true",
    "false",
    "infer",
    "is",
    "asserts",
    "unique",
];

/// The names in the type `{ … }` opening at `open` of `comment` (`X` and `Y` in
/// `{Array<X> | Y.Z}`), not counting quoted text and record keys; returns where it ends.
fn type_expression_names(comment: &str, open: usize, found: &mut Vec<DocName>) -> usize {
    let mut depth = 0u32;
    let mut quote: Option<char> = None;
    let mut at = open;
    while let Some(c) = comment[at..].chars().next() {
        let width = c.len_utf8();
        match (quote, c) {
            (Some(q), _) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '"' | '\'' | '`') => quote = Some(c),
            (None, '{') => depth += 1,
            (None, '}') => {
                depth -= 1;
                if depth == 0 {
                    return at + width;
                }
            }
            (None, '*') if comment[at..].starts_with("*/") => return at,
            (None, _)
                if !comment[..at].ends_with(|p: char| {
                    p == '.' || p == '#' || super::identifiers::is_identifier_part(p)
                }) =>
            {
                if let Some((parts, end)) = entity_name(comment, at) {
                    let word = &comment[at..at + parts[0].1];
                    if !TYPE_KEYWORDS.contains(&word) {
                        found.push(DocName {
                            start: at,
                            parts,
                            in_type: true,
                        });
                    }
                    at = end;
                    continue;
                }
            }
            (None, _) => {}
        }
        at += width;
    }
    at
}

/// The dotted name starting at `start` of `comment` (`X`, `X.y`, `X#y`): its parts' ranges
/// from `start`, and where it ends. `None` when no name starts there, or when it is a URL's
/// or a module's (`https://…`, `module:x`) or a record's key (`{a: T}`).
fn entity_name(comment: &str, start: usize) -> Option<(Vec<(usize, usize)>, usize)> {
    if !comment[start..]
        .chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_' || c == '$')
    {
        return None;
    }
    let mut parts = Vec::new();
    let mut part_start = start;
    let mut end = start;
    for (i, c) in comment[start..].char_indices() {
        let here = start + i;
        if super::identifiers::is_identifier_part(c) {
            end = here + c.len_utf8();
        } else if (c == '.' || c == '#') && end == here && end > part_start {
            parts.push((part_start - start, end - start));
            part_start = here + 1;
        } else {
            break;
        }
    }
    if end > part_start {
        parts.push((part_start - start, end - start));
    }
    let next = comment[end..]
        .trim_start_matches([' ', '\t'])
        .chars()
        .next();
    (!matches!(next, Some(':' | '/'))).then_some((parts, end))
}

/// The lookup tables of `names` (its text set): occurrences by name, `global` and
/// `nonlocal` declarations by scope, and bindings by name and scope. `class_members` are
/// the definitions that are members of the class around too (a constructor's `private x`).
fn index_names(
    names: &mut FileNames,
    class_members: &HashSet<TextRange>,
    type_only: &HashSet<TextRange>,
) {
    for id in 0..names.occurrences.len() as OccurrenceId {
        let occurrence = &names.occurrences[id as usize];
        let range = occurrence.range;
        if type_only.contains(&range) {
            names.type_only.insert(id);
        }
        if let role @ (Role::Global | Role::Nonlocal) = occurrence.role {
            let scope = occurrence.scope;
            let list = names
                .declarations
                .entry(Box::from(names.name(id)))
                .or_default();
            if !list.iter().any(|(s, _)| *s == scope) {
                list.push((scope, role));
            }
        }
    }
    for id in 0..names.occurrences.len() as OccurrenceId {
        let occurrence = &names.occurrences[id as usize];
        if let Role::Definition(_) = occurrence.role {
            let name = Box::<str>::from(names.name(id));
            // `global x` then `x = …` in a function binds the module's x.
            let scope = match names.declaration(occurrence.scope, &name) {
                Some(Role::Global) => 0,
                _ => occurrence.scope,
            };
            // A constructor's `private x: T` is a member of the class too.
            let class = class_members
                .contains(&occurrence.range)
                .then(|| names.enclosing_class(scope))
                .flatten();
            let scopes = names.bindings.entry(name).or_default();
            for scope in std::iter::once(scope).chain(class) {
                match scopes.iter_mut().find(|(s, _)| *s == scope) {
                    Some((_, sites)) => sites.push(id),
                    None => scopes.push((scope, vec![id])),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::doc_link_names;

    /// Each name a comment points to, written out (`X.y` for parts), with `: type` for a
    /// tag's type.
    fn names(comment: &str) -> Vec<String> {
        doc_link_names(comment)
            .into_iter()
            .map(|found| {
                let parts: Vec<&str> = found
                    .parts
                    .iter()
                    .map(|&(a, b)| &comment[found.start + a..found.start + b])
                    .collect();
                let kind = if found.in_type { ": type" } else { "" };
                format!("{}{kind}", parts.join("."))
            })
            .collect()
    }

    #[test]
    fn links_see_tags_and_tag_types_name_code() {
        assert_eq!(
            names(
                "/** {@link A} {@linkcode B.c | label} {@linkplain D#e}\n * @see F\n * @param {G<H>} x\n */"
            ),
            ["A", "B.c", "D.e", "F", "G: type", "H: type"]
        );
    }

    #[test]
    fn urls_modules_keys_keywords_and_other_tags_name_nothing() {
        assert_eq!(
            names(
                "/** {@link https://a.b/C} {@link module:d} @seeAlso E a@see.f\n * @type {{ key: K, 'q': typeof V }} */"
            ),
            ["K: type", "V: type"]
        );
        assert_eq!(names("/** @see {@link X} */"), ["X"]);
        assert_eq!(names("/** @returns {"), Vec::<String>::new());
        assert_eq!(names("/** @see ñé.{@link} ü# @"), ["ñé"]);
    }
}
