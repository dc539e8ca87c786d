; Scopes, bindings and name uses of Rust (captures: queries/README.md, `locals.scm`).
;
; Rust rules the query cannot say live in src/semantic/names/rust.rs (the prelude, the name
; a `use` binds) and in the resolver's Rust steps (src/semantic/names/resolve/rust.rs:
; members of a type live in its impl blocks, `Self`, paths from `crate`/`self`/`super`).
;
; Items (fn, struct, enum, union, trait, type, const, static, mod, macro_rules!) bind their
; name in the scope around them, seen from all of it whatever the order; a `let` binds in a
; scope of its own that starts after the statement (`@scope.let`), so `let x = x + 1` reads
; the earlier `x` and shadowing makes a new variable. A node takes the role of the earliest
; pattern that captures it: definitions first, the catch-all `(identifier) @reference` last.

; ---------------------------------------------------------------------------------------
; A written type naming an instance's type (`p: Foo`, `&mut Foo`, `Foo<T>`, `a::Foo`,
; and through `Box`, `Rc` and `Arc`: `Arc<Foo>`): its last name is the `@constructor`.
; define instance_type
[
  (type_identifier) @constructor
  (scoped_type_identifier) @constructor
  (generic_type
    type: (type_identifier) @_pointer
    type_arguments: (type_arguments . [(type_identifier) (scoped_type_identifier)] @constructor))
  (generic_type type: (_) @constructor)
  (reference_type type: [
    (type_identifier) @constructor
    (scoped_type_identifier) @constructor
    (generic_type
      type: (type_identifier) @_pointer
      type_arguments: (type_arguments . [(type_identifier) (scoped_type_identifier)] @constructor))
    (generic_type type: (_) @constructor)
  ])
]
(#any-of? @_pointer "Box" "Rc" "Arc")
(#not-any-of? @constructor "Box" "Rc" "Arc")
; end

; ---------------------------------------------------------------------------------------
; Scopes. Functions, closures, blocks and match arms hold their own names. Types, traits
; and impl blocks are class scopes: their methods do not see their items by plain name
; (`Self::new`, not `new`), only their type parameters.

[
  (function_item)
  (function_signature_item)
  (closure_expression)
  (block)
  (match_arm)
] @scope

; An inline module: its items are looked up as `m::name` from outside.
(mod_item body: (_)) @scope

[
  (struct_item)
  (enum_item)
  (union_item)
  (trait_item)
  (enum_variant body: (field_declaration_list))
] @scope.class

; An impl block: its items are members of the type it implements (`@impl.type`), and of a
; trait impl's trait (`@impl.trait`).
(impl_item
  trait: [
    (type_identifier) @impl.trait
    (scoped_type_identifier name: (_) @impl.trait)
    (generic_type type: [
      (type_identifier) @impl.trait
      (scoped_type_identifier name: (_) @impl.trait)
    ])
  ]
  type: [
    (type_identifier) @impl.type
    (scoped_type_identifier name: (_) @impl.type)
    (generic_type type: [
      (type_identifier) @impl.type
      (scoped_type_identifier name: (_) @impl.type)
    ])
  ]) @scope.class
(impl_item
  !trait
  type: [
    (type_identifier) @impl.type
    (scoped_type_identifier name: (_) @impl.type)
    (generic_type type: [
      (type_identifier) @impl.type
      (scoped_type_identifier name: (_) @impl.type)
    ])
  ]) @scope.class
(impl_item) @scope.class

; Names bound by a pattern are seen after it: a `let` from the end of its statement to the
; end of its block; `if let` / `while let` in their body (and the rest of a `let` chain);
; `for` in its body, not in the iterated value.
(let_declaration) @scope.let
(if_expression
  condition: (let_condition) @scope.let
  consequence: (_) @scope.to)
(if_expression
  condition: (let_chain (let_condition) @scope.let)
  consequence: (_) @scope.to)
(while_expression
  condition: (let_condition) @scope.let
  body: (_) @scope.to)
(while_expression
  condition: (let_chain (let_condition) @scope.let)
  body: (_) @scope.to)
(for_expression
  pattern: (_) @scope.let
  value: (_) @scope.from
  body: (_) @scope.to)

; ---------------------------------------------------------------------------------------
; Names that are none of these.

(lifetime (identifier) @skip)
(label (identifier) @skip)
; `Iterator<Item = u8>`: the trait's associated type.
(type_binding name: (type_identifier) @skip)
; An attribute's name (`derive`, `cfg`, `allow`), and what `cfg`-like attributes test.
(attribute [(identifier) (scoped_identifier)] @skip)
(attribute
  (identifier) @_attribute
  arguments: (token_tree [
    (identifier) @skip
    (token_tree (identifier) @skip)
    (token_tree (token_tree (identifier) @skip))
  ])
  (#any-of? @_attribute "cfg" "cfg_attr" "allow" "warn" "deny" "forbid" "expect" "doc" "feature" "repr" "inline" "must_use" "deprecated" "path" "macro_use" "macro_export" "target_feature"))
; `pub(crate)`, `pub(super)`, `pub(in a::b)`.
(visibility_modifier (_) @skip)
; `a.b` and `a.b(…)` inside a macro call's tokens (`assert!(set.is_empty())`,
; `format!("{}", self.name)`): a member of the name before the dot; after anything else
; (`f().x`, `a[0].x`) a member whose receiver is not known.
(token_tree
  [(identifier) (self)] @receiver
  .
  "."
  .
  (identifier) @member.call
  .
  (token_tree . "("))
(token_tree
  [(identifier) (self)] @receiver
  .
  "."
  .
  (identifier) @member)
(token_tree "." . (identifier) @member)

; ---------------------------------------------------------------------------------------
; Imports: each name a `use` binds (the alias, else the path's last name), `mod a;`,
; `extern crate`. A name imported under another is looked up in its module
; (`@reference.imported`).

(use_declaration argument: (identifier) @definition.import)
(use_declaration argument: (scoped_identifier name: (identifier) @definition.import))
(use_as_clause alias: (identifier) @definition.import)
(use_as_clause path: (identifier) @reference.imported)
(use_as_clause path: (scoped_identifier name: (identifier) @reference.imported))
(use_list (identifier) @definition.import)
(use_list (scoped_identifier name: (identifier) @definition.import))
; `use a::b::{self, c}` binds `b`.
(scoped_use_list
  path: [
    (identifier) @definition.import
    (scoped_identifier name: (identifier) @definition.import)
  ]
  list: (use_list (self)))
; A group's path inside another group (`a::{b::{c, d}}`): known only with the group's.
(use_list (scoped_use_list path: (identifier) @skip))
(use_list (scoped_identifier path: (identifier) @skip))
(use_list (use_as_clause path: (scoped_identifier path: (identifier) @skip)))
(use_list (self) @skip)

(extern_crate_declaration name: (identifier) @definition.import !alias)
(extern_crate_declaration name: (identifier) @skip alias: (identifier) @definition.import)

(mod_item name: (identifier) @definition.import !body)
(mod_item name: (identifier) @definition.module body: (_))

; ---------------------------------------------------------------------------------------
; Items.

(function_item
  name: (identifier) @definition.function
  return_type: (#splice! instance_type))
(function_item name: (identifier) @definition.function)
(function_signature_item
  name: (identifier) @definition.function
  return_type: (#splice! instance_type))
(function_signature_item name: (identifier) @definition.function)
(macro_definition name: (identifier) @definition.function)

(struct_item name: (type_identifier) @definition.type)
(union_item name: (type_identifier) @definition.type)
(enum_item name: (type_identifier) @definition.type)
(trait_item
  name: (type_identifier) @definition.type
  bounds: (trait_bounds [
    (type_identifier) @superclass
    (scoped_type_identifier) @superclass
    (generic_type type: (_) @superclass)
  ]))
(trait_item name: (type_identifier) @definition.type)
(type_item name: (type_identifier) @definition.type)
(associated_type name: (type_identifier) @definition.type)
(enum_variant name: (identifier) @definition.type)

(const_item
  name: (identifier) @definition.variable
  type: (#splice! instance_type))
(const_item name: (identifier) @definition.variable)
(static_item
  name: (identifier) @definition.variable
  type: (#splice! instance_type))
(static_item name: (identifier) @definition.variable)

; Fields, with the type their values are instances of.
(field_declaration
  name: (field_identifier) @definition.variable
  type: (#splice! instance_type))
(field_declaration name: (field_identifier) @definition.variable)

(type_parameter name: (type_identifier) @definition.type_parameter)
(const_parameter name: (identifier) @definition.type_parameter)

; ---------------------------------------------------------------------------------------
; Parameters and `let`, with the type their value is an instance of when it is written or
; made here (`Foo { … }`, `Foo(…)`, `Foo::new()`: what the callee returns).

(self_parameter (self) @definition.parameter)
(parameter pattern: (self) @definition.parameter)
(parameter
  pattern: (identifier) @definition.parameter
  type: (#splice! instance_type))
(parameter pattern: (identifier) @definition.parameter)
(closure_parameters (identifier) @definition.parameter)

(let_declaration
  pattern: (identifier) @definition.variable
  type: (#splice! instance_type))
(let_declaration
  pattern: (identifier) @definition.variable
  value: [
    (struct_expression name: [
      (type_identifier) @constructor
      (scoped_type_identifier) @constructor
    ])
    (call_expression function: [
      (identifier) @constructor
      (scoped_identifier) @constructor
      (field_expression) @constructor
    ])
  ])
(let_declaration pattern: (identifier) @definition.variable)

; Names a pattern binds, at any depth; a capitalised name in a pattern is a constant or a
; unit variant (`None`, `MAX`), not a binding.
(let_condition
  pattern: (identifier) @definition.variable
  (#match? @definition.variable "^[a-z_]"))
(for_expression
  pattern: (identifier) @definition.variable
  (#match? @definition.variable "^[a-z_]"))
(match_pattern
  .
  (identifier) @definition.variable
  (#match? @definition.variable "^[a-z_]"))

; A tuple struct or variant's name in a pattern (`Some(x)`, `E::W(x)`) is a use.
(tuple_struct_pattern type: (identifier) @reference.call)
(tuple_struct_pattern
  type: (scoped_identifier path: (_) @receiver name: (identifier) @member.call))
(tuple_struct_pattern
  (identifier) @definition.variable
  (#match? @definition.variable "^[a-z_]"))

(tuple_pattern (identifier) @definition.variable (#match? @definition.variable "^[a-z_]"))
(slice_pattern (identifier) @definition.variable (#match? @definition.variable "^[a-z_]"))
(ref_pattern (identifier) @definition.variable (#match? @definition.variable "^[a-z_]"))
(mut_pattern (identifier) @definition.variable (#match? @definition.variable "^[a-z_]"))
(reference_pattern (identifier) @definition.variable (#match? @definition.variable "^[a-z_]"))
(or_pattern (identifier) @definition.variable (#match? @definition.variable "^[a-z_]"))
(captured_pattern . (identifier) @definition.variable (#match? @definition.variable "^[a-z_]"))
(field_pattern pattern: (identifier) @definition.variable (#match? @definition.variable "^[a-z_]"))

; `Foo { x, y: b }`: `x` binds, `y` is Foo's field.
(struct_pattern
  type: (_) @receiver
  (field_pattern
    name: (field_identifier) @member))
(field_pattern name: (shorthand_field_identifier) @definition.variable)

; ---------------------------------------------------------------------------------------
; Paths: `crate`, `self` and `super` at the start name a module; each later part is looked
; up in what the part before it names (a module, a type's associated items, an enum's
; variants).

(scoped_identifier
  path: (super) @reference.module
  name: (super) @reference.module) @module.path
[
  (scoped_identifier path: [(crate) (self) (super)] @reference.module @module.path)
  (scoped_type_identifier path: [(crate) (self) (super)] @reference.module @module.path)
  (scoped_use_list path: [(crate) (self) (super)] @reference.module @module.path)
  (use_wildcard [(crate) (self) (super)] @reference.module @module.path)
]

; `Self` is the type an impl (or the type or trait around) is for; `self` the instance.
((type_identifier) @reference.self (#eq? @reference.self "Self"))
((identifier) @reference.self (#eq? @reference.self "Self"))
(self) @reference.self

; Calls of a member: `a::f()`, `x.m()`, `x.m::<T>()`, `Foo::<T>::new()`; what a call
; gives is an instance of the type its callee returns (`@receiver.called`).
(call_expression
  function: (scoped_identifier
    path: [
      (generic_type type: (_) @receiver)
      (_) @receiver
    ]
    name: (identifier) @member.call))
(call_expression
  function: (generic_function
    function: (scoped_identifier
      path: (_) @receiver
      name: (identifier) @member.call)))
(call_expression
  function: (field_expression
    value: [
      (call_expression function: (_) @receiver.called)
      (_) @receiver
    ]
    field: (field_identifier) @member.call))
(call_expression
  function: (generic_function
    function: (field_expression
      value: [
        (call_expression function: (_) @receiver.called)
        (_) @receiver
      ]
      field: (field_identifier) @member.call)))

(macro_invocation
  macro: (scoped_identifier path: (_) @receiver name: (identifier) @member.call))

(field_expression
  value: [
    (call_expression function: (_) @receiver.called)
    (_) @receiver
  ]
  field: (field_identifier) @member)

(scoped_identifier
  path: [
    (generic_type type: (_) @receiver)
    (_) @receiver
  ]
  name: (identifier) @member)
(scoped_type_identifier
  path: [
    (generic_type type: (_) @receiver)
    (_) @receiver
  ]
  name: (type_identifier) @member)

; `Foo { x: 1 }`: a field of Foo.
(struct_expression
  name: [
    (type_identifier) @receiver
    (scoped_type_identifier) @receiver
    (generic_type_with_turbofish type: (_) @receiver)
  ]
  body: (field_initializer_list
    (field_initializer field: (field_identifier) @member)))

; ---------------------------------------------------------------------------------------
; Uses.

(call_expression function: (identifier) @reference.call)
(call_expression function: (generic_function function: (identifier) @reference.call))
(macro_invocation macro: (identifier) @reference.call)

(type_identifier) @reference.type
(primitive_type) @reference.type
(identifier) @reference
