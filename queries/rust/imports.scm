; Imports: one match per statement that imports; a `use` tree is expanded in code
; (`semantic/imports/rust.rs`) into one import per leaf.
;
; @import     the whole statement (where the import is)
; @use_tree   the tree of a `use` declaration (`a::b::c`, `a::{b, c as d}`, `a::*`)
; @module     `extern crate foo`: the crate named
; @alias      `extern crate foo as bar`: the local name
; @mod_name   `mod foo;` (no body): a module in a file of its own
; @public     plain `pub` (not `pub(crate)` and the like): a public re-export
;
; Each statement kind comes twice: once with a plain `pub`, once with any other visibility
; or none, so the two never match the same statement.

(use_declaration
  (visibility_modifier) @public (#eq? @public "pub")
  argument: (_) @use_tree) @import

(use_declaration
  (visibility_modifier)? @_visibility (#not-eq? @_visibility "pub")
  argument: (_) @use_tree) @import

(extern_crate_declaration
  (visibility_modifier) @public (#eq? @public "pub")
  name: (identifier) @module
  alias: (identifier)? @alias) @import

(extern_crate_declaration
  (visibility_modifier)? @_visibility (#not-eq? @_visibility "pub")
  name: (identifier) @module
  alias: (identifier)? @alias) @import

(mod_item
  (visibility_modifier) @public (#eq? @public "pub")
  name: (identifier) @mod_name
  !body) @import

(mod_item
  (visibility_modifier)? @_visibility (#not-eq? @_visibility "pub")
  name: (identifier) @mod_name
  !body) @import
