; Rust symbols. Specific patterns come first: the earliest pattern wins for a node.

; A named type, possibly generic or scoped (`Foo`, `Foo<T>`, `a::Foo`, `a::Foo<T>`).
; define type_name
[
  (type_identifier) @name
  (generic_type type: (type_identifier) @name)
  (scoped_type_identifier name: (_) @name)
  (generic_type type: (scoped_type_identifier name: (_) @name))
]
; end

; ---- Methods: functions directly inside an impl or trait body ----

(impl_item
  body: (declaration_list
    (function_item name: (_) @name body: (_) @body) @definition.method))

(trait_item
  body: (declaration_list
    (function_item name: (_) @name body: (_) @body) @definition.method))

; A trait method declared without a default body. Capturing the `;` as @body makes the
; signature the whole declaration on one line, even when its parameters span several.
(trait_item
  body: (declaration_list
    (function_signature_item name: (_) @name ";" @body) @definition.method))

; ---- Functions ----

; Free functions, and functions nested in function bodies.
(function_item name: (_) @name body: (_) @body) @definition.function

; Functions declared without a body: in `extern "C" { ... }` blocks.
(function_signature_item name: (_) @name ";" @body) @definition.function

; ---- Impl blocks, named after the implementing type ----
; `impl Foo`, `impl Trait for Foo`
(impl_item type: (type_identifier) @name body: (_) @body) @definition.impl

; `impl<T> Foo<T>`
(impl_item
  type: (generic_type type: (type_identifier) @name)
  body: (_) @body) @definition.impl

; `impl fmt::Display for crate::x::Foo`
(impl_item
  type: (scoped_type_identifier name: (_) @name)
  body: (_) @body) @definition.impl

; `impl<T> Trait for a::Foo<T>`
(impl_item
  type: (generic_type type: (scoped_type_identifier name: (_) @name))
  body: (_) @body) @definition.impl

; `impl<'a> Trait for &'a Foo`, `&mut Foo<T>`, `&a::Foo`: named after the referenced type.
(impl_item
  type: (reference_type
    type: (#splice! type_name))
  body: (_) @body) @definition.impl

; `impl dyn Trait`, `impl dyn Trait + Send + 'static`, `impl Tr for &dyn Trait`: named after
; the trait. `A + B + C` nests as ((A + B) + C), hence the levels.
(impl_item
  type: [
    (dynamic_type trait: (#splice! type_name))
    (reference_type type: (dynamic_type trait: (#splice! type_name)))
    (bounded_type . (dynamic_type trait: (#splice! type_name)))
    (bounded_type . (bounded_type . (dynamic_type trait: (#splice! type_name))))
    (bounded_type . (bounded_type . (bounded_type . (dynamic_type trait: (#splice! type_name)))))
  ]
  body: (_) @body) @definition.impl

; `impl Trait for &str`, `&[T]`, `&mut [T]`, `&(A, B)`: the referenced type's text.
(impl_item
  type: (reference_type type: (_) @name)
  body: (_) @body) @definition.impl

; Any other type (`u32`, `[T]`, `(A, B)`, `fn(T)`, `*const T`): named by its text.
(impl_item type: (_) @name body: (_) @body) @definition.impl

; ---- Types ----

(struct_item name: (_) @name body: (field_declaration_list) @body) @definition.struct
; Unit and tuple structs: the signature is the whole item (`pub struct Meters(pub f64)`).
(struct_item name: (_) @name ";" @body) @definition.struct

(union_item name: (_) @name body: (_) @body) @definition.union

(enum_item name: (_) @name body: (_) @body) @definition.enum

(enum_variant name: (_) @name body: (field_declaration_list) @body) @definition.variant
(enum_variant name: (_) @name) @definition.variant

; Named fields of structs, unions and struct-like variants (tuple fields have no name).
(field_declaration name: (_) @name) @definition.field

(trait_item name: (_) @name body: (_) @body) @definition.trait

; `type Alias = ...;`, and associated types in impls.
(type_item name: (_) @name ";" @body) @definition.type
; Associated types declared in traits: `type Item;`, `type Iter<'a>: Iterator where ...;`
(associated_type name: (_) @name ";" @body) @definition.type

; ---- Values ----
; The `;` as @body: the signature is the whole item on one line (capped by the engine).

; `const _: () = { ... };` (anonymous, for static assertions and scoping) defines no name.
(const_item name: (_) @name ";" @body (#not-eq? @name "_")) @definition.constant
(static_item name: (_) @name ";" @body) @definition.static

; ---- Modules and macros ----

(mod_item name: (_) @name body: (_) @body) @definition.module
; `mod foo;`
(mod_item name: (_) @name ";" @body) @definition.module

; `macro_rules! name { ... }` (or `( ... );`, `[ ... ];`): the signature stops at the delimiter.
(macro_definition name: (_) @name ["{" "(" "["] @body) @definition.macro

; Extern types (`extern "C" { pub type Foo; }`, as wasm_bindgen declares JS classes): the
; grammar has no rule for them with a visibility, so they parse as an ERROR node holding
; exactly `pub type Foo`.
(ERROR . (visibility_modifier) . "type" . (identifier) @name) @definition.type

; Macro calls at item level whose body is items: `cfg_rt! { pub fn spawn_blocking … }`,
; the norm in tokio and futures. `@items`: the token tree's inside is parsed again as
; Rust, and the definitions found there are the file's own (positions in the file). A body
; that does not parse cleanly as items (`quote! { fn #name() {} }`, bitflags'
; `struct Flags: u32 { … }`) is left alone. Only `{ … }` bodies count (`m!(…)` and `m![…]` are expressions): a token
; tree has a `{` child only when braces delimit it (nested braces are token trees).

(source_file
  (macro_invocation
    (token_tree "{") @items))

(declaration_list
  (macro_invocation
    (token_tree "{") @items))
