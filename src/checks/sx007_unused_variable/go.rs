//! SX007 for Go: a local variable declared and not used, the Go compiler's "declared and
//! not used" error, by its rule. A variable declared in a function body (`x := …`, `var x
//! T`, a new name of `a, b := …`, `for k, v := range …`, `case v := <-ch:`, `switch v :=
//! x.(type)`, in a function literal too) is reported when no identifier that resolves to it
//! is a use. Assigning to the variable itself is not a use (`x = …`, `(x) = …`, `for x =
//! range …`, `x` again on the left of `:=` in its own scope); everything else naming it is,
//! as the compiler has it: `x++` and `x += 1` (they read `x`), `x.f = …`, `x[i] = …`,
//! `*x = …`, `&x`, a read inside a closure. A type switch's variable is one per clause, and
//! is used when any clause uses it. A key of a struct literal names a field, not a
//! variable; a literal's keys are judged so only when its type is known to be a struct
//! (written as `struct{…}`, or a name every type declaration of the file gives a struct
//! type); any other key counts as a use (a map's key is an expression). Parameters, named
//! results, constants and package-level variables are never reported; `_` never.
//!
//! Names are resolved by Go's block rules over the file's own tree: each block, `if`, `for`,
//! `switch`, `select` and case clause is a scope; a function's parameters and its body's
//! top-level names share one; a local declaration takes effect after its statement (`x :=
//! x + 1` reads an outer `x`). A name no local scope binds belongs to the package block,
//! which reports nothing.
//!
//! Fixes (`go_fixes.rs`): the name becomes `_` or leaves its statement, the value evaluated as
//! before.
//!
//! Invariant: reads the file's own tree only (the check depends on its file alone).

use std::collections::{HashMap, HashSet};

use super::go_fixes as fixes;

use crate::checks::{Diagnostic, node_range, registry::ids};

pub(super) fn check(tree: &tree_sitter::Tree, text: &str) -> Vec<Diagnostic> {
    let root = tree.root_node();
    let mut walker = Walker {
        text,
        structs: struct_names(root, text),
        scopes: Vec::new(),
        vars: Vec::new(),
        steps: Vec::new(),
    };
    walker.walk(root);
    let declared: HashSet<usize> = walker.vars.iter().map(|v| v.node.id()).collect();
    walker
        .vars
        .iter()
        .filter(|v| !v.used)
        .map(|v| {
            // Without its declaration, an assignment elsewhere would assign nothing.
            let fix = match v.assigned {
                true => None,
                false => fixes::fix(v.node, text, &declared),
            };
            Diagnostic::new(
                ids::UNUSED_VARIABLE,
                node_range(v.node),
                format!("local variable '{}' is assigned to but never used", v.name),
            )
            .with_fix(fix)
        })
        .collect()
}

/// Type names every type declaration of the file gives a struct type (`type T struct{…}`,
/// also generic), and no type parameter or alias takes.
fn struct_names<'t>(root: tree_sitter::Node, text: &'t str) -> HashSet<&'t str> {
    let mut all_struct: HashMap<&'t str, bool> = HashMap::new();
    crate::checks::walk(root, &mut |node| {
        let name_of = |n: tree_sitter::Node| text.get(n.byte_range()).unwrap_or_default();
        match node.kind() {
            "type_spec" => {
                if let Some(name) = node.child_by_field_name("name") {
                    let is_struct = node
                        .child_by_field_name("type")
                        .is_some_and(|t| t.kind() == "struct_type");
                    *all_struct.entry(name_of(name)).or_insert(true) &= is_struct;
                }
            }
            "type_alias" | "type_parameter_declaration" => {
                let mut cursor = node.walk();
                for name in node.children_by_field_name("name", &mut cursor) {
                    all_struct.insert(name_of(name), false);
                }
            }
            _ => {}
        }
        true
    });
    all_struct
        .into_iter()
        .filter_map(|(name, is_struct)| is_struct.then_some(name))
        .collect()
}

struct Var<'t> {
    node: tree_sitter::Node<'t>,
    name: &'t str,
    used: bool,
    /// Assigned somewhere after its declaration (`x = …`, `x, err := …` again).
    assigned: bool,
}

/// What a local name is bound to: a variable the check judges, or anything else (a
/// parameter, a constant, a type), which only hides outer names.
#[derive(Clone, Copy)]
enum Binding {
    Var(usize),
    Other,
}

/// One step of the walk. The walk keeps its own stack of steps rather than recursing, so
/// a tree of any depth (a long `+` chain) is walked on any thread's stack.
enum Step<'t> {
    Visit(tree_sitter::Node<'t>),
    PushScope,
    PopScope,
    /// A new variable named by the node, bound in the innermost scope.
    DeclareVar(tree_sitter::Node<'t>),
    /// A name that is not a variable (a parameter, a constant, a type) named by the node.
    BindOther(tree_sitter::Node<'t>),
    /// The type switch variable `vars[index]`, bound again in a clause's scope.
    BindVar(&'t str, usize),
    /// The left side of `:=`.
    ShortVarNames(tree_sitter::Node<'t>),
    /// The left side of `=`.
    Assigned(tree_sitter::Node<'t>),
    /// A literal's elements, with its type when known.
    Literal(tree_sitter::Node<'t>, Option<tree_sitter::Node<'t>>),
}

struct Walker<'t> {
    text: &'t str,
    structs: HashSet<&'t str>,
    /// The local scopes around the walk, innermost last; empty at package level.
    scopes: Vec<Vec<(&'t str, Binding)>>,
    vars: Vec<Var<'t>>,
    /// Steps still to take, the next last.
    steps: Vec<Step<'t>>,
}

impl<'t> Walker<'t> {
    fn name(&self, node: tree_sitter::Node) -> &'t str {
        self.text.get(node.byte_range()).unwrap_or_default()
    }

    fn lookup(&self, name: &str) -> Option<Binding> {
        self.scopes.iter().rev().find_map(|scope| {
            scope
                .iter()
                .rev()
                .find(|(n, _)| *n == name)
                .map(|&(_, binding)| binding)
        })
    }

    fn bind(&mut self, name: &'t str, binding: Binding) {
        if name == "_" {
            return;
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.push((name, binding));
        }
    }

    fn new_var(&mut self, node: tree_sitter::Node<'t>) -> usize {
        self.vars.push(Var {
            node,
            name: self.name(node),
            used: false,
            assigned: false,
        });
        self.vars.len() - 1
    }

    /// Takes `steps` in their order (before anything already waiting).
    fn then(&mut self, steps: impl IntoIterator<Item = Step<'t>>) {
        let at = self.steps.len();
        self.steps.extend(steps);
        self.steps[at..].reverse();
    }

    fn walk(&mut self, root: tree_sitter::Node<'t>) {
        self.steps.push(Step::Visit(root));
        while let Some(step) = self.steps.pop() {
            match step {
                Step::Visit(node) => self.visit(node),
                Step::PushScope => self.scopes.push(Vec::new()),
                Step::PopScope => {
                    self.scopes.pop();
                }
                Step::DeclareVar(node) => {
                    if self.name(node) != "_" && !self.scopes.is_empty() {
                        let index = self.new_var(node);
                        self.bind(self.name(node), Binding::Var(index));
                    }
                }
                Step::BindOther(node) => self.bind(self.name(node), Binding::Other),
                Step::BindVar(name, index) => self.bind(name, Binding::Var(index)),
                Step::ShortVarNames(left) => self.short_var_names(left),
                Step::Assigned(left) => self.assigned(left),
                Step::Literal(value, ty) => self.literal(value, ty),
            }
        }
    }

    fn visit(&mut self, node: tree_sitter::Node<'t>) {
        let field = |name: &str| node.child_by_field_name(name);
        match node.kind() {
            "identifier" | "type_identifier" | "package_identifier" => {
                if let Some(Binding::Var(index)) = self.lookup(self.name(node)) {
                    self.vars[index].used = true;
                }
            }
            "field_identifier" | "label_name" | "comment" => {}
            "function_declaration" | "method_declaration" | "func_literal" => self.function(node),
            // A function type's parameter names bind nothing a body sees.
            "parameter_declaration" | "variadic_parameter_declaration" => {
                self.then(field("type").map(Step::Visit));
            }
            "block"
            | "if_statement"
            | "for_statement"
            | "expression_switch_statement"
            | "select_statement"
            | "expression_case"
            | "default_case"
            | "type_case"
            | "communication_case" => {
                let mut steps = vec![Step::PushScope];
                steps.extend(named_children(node).map(Step::Visit));
                steps.push(Step::PopScope);
                self.then(steps);
            }
            "type_switch_statement" => self.type_switch(node),
            "short_var_declaration" => {
                let right = field("right").map(Step::Visit);
                let left = field("left").map(Step::ShortVarNames);
                self.then(right.into_iter().chain(left));
            }
            "range_clause" | "receive_statement" => {
                let mut steps: Vec<Step> = field("right").map(Step::Visit).into_iter().collect();
                match field("left") {
                    Some(left) if operator(node) == Some(":=") => {
                        steps.extend(named_children(left).map(|target| {
                            if target.kind() == "identifier" {
                                Step::DeclareVar(target)
                            } else {
                                Step::Visit(target)
                            }
                        }));
                    }
                    Some(left) => steps.push(Step::Assigned(left)),
                    None => {}
                }
                self.then(steps);
            }
            "assignment_statement" => {
                let plain = field("operator").is_some_and(|o| o.kind() == "=");
                let right = field("right").map(Step::Visit);
                let left = field("left").map(|left| {
                    if plain {
                        Step::Assigned(left)
                    } else {
                        Step::Visit(left)
                    }
                });
                self.then(right.into_iter().chain(left));
            }
            "var_spec" | "const_spec" => {
                let mut steps: Vec<Step> = ["type", "value"]
                    .into_iter()
                    .filter_map(|f| field(f).map(Step::Visit))
                    .collect();
                let mut cursor = node.walk();
                let names = node
                    .children_by_field_name("name", &mut cursor)
                    .filter(|n| n.kind() == "identifier");
                if node.kind() == "var_spec" {
                    steps.extend(names.map(Step::DeclareVar));
                } else {
                    steps.extend(names.map(Step::BindOther));
                }
                self.then(steps);
            }
            "type_spec" | "type_alias" => {
                // A type's name takes effect at its name (a type may refer to itself).
                let name = field("name");
                let mut steps: Vec<Step> = name.map(Step::BindOther).into_iter().collect();
                steps.extend(
                    named_children(node)
                        .filter(|c| Some(*c) != name)
                        .map(Step::Visit),
                );
                self.then(steps);
            }
            "type_parameter_declaration" => self.then(field("type").map(Step::Visit)),
            "composite_literal" => {
                let ty = field("type");
                let body = field("body").map(|body| Step::Literal(body, ty));
                self.then(ty.map(Step::Visit).into_iter().chain(body));
            }
            "selector_expression" => self.then(field("operand").map(Step::Visit)),
            _ => self.then(named_children(node).map(Step::Visit)),
        }
    }

    /// A function declaration or literal: its type parameters, receiver, parameters and
    /// results are bound in the scope its body's top-level names share.
    fn function(&mut self, node: tree_sitter::Node<'t>) {
        let mut steps = vec![Step::PushScope];
        for field in ["type_parameters", "receiver", "parameters", "result"] {
            let Some(list) = node.child_by_field_name(field) else {
                continue;
            };
            if !matches!(list.kind(), "parameter_list" | "type_parameter_list") {
                // A result written as a type alone.
                steps.push(Step::Visit(list));
                continue;
            }
            for declaration in named_children(list) {
                steps.push(Step::Visit(declaration));
                let mut cursor = declaration.walk();
                steps.extend(
                    declaration
                        .children_by_field_name("name", &mut cursor)
                        .map(Step::BindOther),
                );
            }
        }
        if let Some(body) = node.child_by_field_name("body") {
            steps.extend(named_children(body).map(Step::Visit));
        }
        steps.push(Step::PopScope);
        self.then(steps);
    }

    /// `switch v := x.(type) { … }`: one `v` per clause, all standing for one variable, used
    /// when any clause uses it.
    fn type_switch(&mut self, node: tree_sitter::Node<'t>) {
        let mut steps = vec![Step::PushScope];
        steps.extend(
            ["initializer", "value"]
                .into_iter()
                .filter_map(|f| node.child_by_field_name(f).map(Step::Visit)),
        );
        let alias = node
            .child_by_field_name("alias")
            .and_then(|list| list.named_child(0))
            .filter(|n| n.kind() == "identifier" && self.name(*n) != "_");
        let var = match alias {
            Some(alias) if !self.scopes.is_empty() => Some((self.name(alias), self.new_var(alias))),
            _ => None,
        };
        for clause in
            named_children(node).filter(|c| matches!(c.kind(), "type_case" | "default_case"))
        {
            steps.push(Step::PushScope);
            if let Some((name, index)) = var {
                steps.push(Step::BindVar(name, index));
            }
            steps.extend(named_children(clause).map(Step::Visit));
            steps.push(Step::PopScope);
        }
        steps.push(Step::PopScope);
        self.then(steps);
    }

    /// The left side of `:=`: a name already bound in the innermost scope is assigned (not
    /// used), any other is a new variable (once: a name repeated on the left is an error).
    fn short_var_names(&mut self, left: tree_sitter::Node<'t>) {
        let mut steps = Vec::new();
        let mut seen = HashSet::new();
        for target in named_children(left) {
            if target.kind() != "identifier" {
                steps.push(Step::Visit(target));
                continue;
            }
            let name = self.name(target);
            let redeclared = self
                .scopes
                .last()
                .is_some_and(|scope| scope.iter().any(|(n, _)| *n == name));
            if seen.insert(name) && !redeclared {
                steps.push(Step::DeclareVar(target));
            } else if redeclared {
                self.mark_assigned(name);
            }
        }
        self.then(steps);
    }

    fn mark_assigned(&mut self, name: &str) {
        if let Some(Binding::Var(index)) = self.lookup(name) {
            self.vars[index].assigned = true;
        }
    }

    /// The left side of `=`: a bare (or parenthesized) name is assigned, not used; any
    /// other target (`x.f`, `x[i]`, `*p`) uses what it names.
    fn assigned(&mut self, left: tree_sitter::Node<'t>) {
        let mut steps = Vec::new();
        for target in named_children(left) {
            let mut bare = target;
            while bare.kind() == "parenthesized_expression"
                && bare.named_child_count() == 1
                && let Some(inner) = bare.named_child(0)
            {
                bare = inner;
            }
            if bare.kind() != "identifier" {
                steps.push(Step::Visit(target));
            } else {
                self.mark_assigned(self.name(bare));
            }
        }
        self.then(steps);
    }

    /// A literal's elements, `ty` its type when written (or known from the literal around).
    fn literal(&mut self, value: tree_sitter::Node<'t>, ty: Option<tree_sitter::Node<'t>>) {
        let is_struct = ty.is_some_and(|t| self.is_struct(t));
        let element_type = ty.and_then(element_type);
        let key_type = ty
            .filter(|t| t.kind() == "map_type")
            .and_then(|t| t.child_by_field_name("key"));
        let mut steps = Vec::new();
        for element in named_children(value) {
            match element.kind() {
                "keyed_element" => {
                    if let Some(key) = element.child_by_field_name("key") {
                        let field_name = is_struct
                            && key.named_child_count() == 1
                            && key.named_child(0).is_some_and(|k| k.kind() == "identifier");
                        if !field_name {
                            steps.push(element_step(key, key_type));
                        }
                    }
                    if let Some(value) = element.child_by_field_name("value") {
                        steps.push(element_step(value, element_type));
                    }
                }
                "literal_element" => steps.push(element_step(element, element_type)),
                _ => steps.push(Step::Visit(element)),
            }
        }
        self.then(steps);
    }

    /// Whether a literal of type `ty` is a struct's (its keys are field names).
    fn is_struct(&self, ty: tree_sitter::Node) -> bool {
        match ty.kind() {
            "struct_type" => true,
            "type_identifier" => self.structs.contains(self.name(ty)),
            "generic_type" => ty
                .child_by_field_name("type")
                .is_some_and(|t| t.kind() == "type_identifier" && self.is_struct(t)),
            // An element written `{…}` in a literal of `[]*T` is a `&T{…}`.
            "pointer_type" | "parenthesized_type" => {
                ty.named_child(0).is_some_and(|t| self.is_struct(t))
            }
            _ => false,
        }
    }
}

/// A literal's element: a literal of its own, whose type is `ty` (`{…}` in `[]T{{…}}`), or
/// an expression.
fn element_step<'t>(element: tree_sitter::Node<'t>, ty: Option<tree_sitter::Node<'t>>) -> Step<'t> {
    match element.named_child(0) {
        Some(inner) if element.named_child_count() == 1 && inner.kind() == "literal_value" => {
            Step::Literal(inner, ty)
        }
        _ => Step::Visit(element),
    }
}

fn named_children<'t>(node: tree_sitter::Node<'t>) -> impl Iterator<Item = tree_sitter::Node<'t>> {
    (0..node.named_child_count()).filter_map(move |i| node.named_child(i as u32))
}

/// The type of a collection literal's elements (a map's values).
fn element_type(ty: tree_sitter::Node) -> Option<tree_sitter::Node> {
    match ty.kind() {
        "slice_type" | "array_type" | "implicit_length_array_type" => {
            ty.child_by_field_name("element")
        }
        "map_type" => ty.child_by_field_name("value"),
        _ => None,
    }
}

/// The `:=` or `=` of a range clause or a receive statement.
fn operator<'t>(node: tree_sitter::Node<'t>) -> Option<&'t str> {
    let mut cursor = node.walk();
    node.children(&mut cursor)
        .find(|c| !c.is_named() && matches!(c.kind(), ":=" | "="))
        .map(|c| c.kind())
}
