; Imports: one match per imported module or name (see queries/README.md, "imports.scm").
; TypeScript and TSX inherit these patterns after their own (queries/typescript/imports.scm).
;
; @import    the statement: the import or export statement, the `const`/`let`/`var`
;            declaration of a `require`, else the `require(…)` or `import(…)` call itself
; @module    the specifier: the string's content, without quotes (only plain strings:
;            one fragment, no escapes)
; @name      a name imported or re-exported (`a` in `import {a as b}`)
; @default   the module's default export is imported (`import x from "m"`): the name is
;            `default`, and the node is the local name
; @alias     the local name (`b` in `import {a as b}`, `ns` in `import * as ns`, `x` in
;            `const x = require("m")`)
; @wildcard  the whole namespace (`import * as ns`, `export * from`)
; @public    a re-export (`export … from`)
; Specifiers of `import {…}` and `export {…} from` are members (below): matches without
; `@import` and `@module`, which take both from the statement's own match.
;
; A module imported for its effect only (`import "m"`, a bare `require("m")`) has no name.
; A `require` call is matched anywhere; the declarations that bind what it returns
; (`const x = require("m")`, `const {a, b: c} = require("m")`) are matched too, and then
; say more than the call alone, which is dropped (see `imports/mod.rs`).

; define source
source: (string . (string_fragment) @module .)
; end

; The name of an import or export specifier, or of `export * as name`: an identifier, a
; string (`import {"a-b" as c}`) or `default`. `$1` is the capture.
; define export_name
[
  (identifier) @$1
  (string . (string_fragment) @$1 .)
  "default" @$1
]
; end

; define require_call
(call_expression
  function: (identifier) @_require
  arguments: (arguments . (string . (string_fragment) @module .) .)
  (#eq? @_require "require"))
; end

; define declared
[
  (lexical_declaration $1)
  (variable_declaration $1)
]
; end

; ---------------------------------------------------------------------------------------
; ES modules

; `import x from "m"` (also the `x` of `import x, {a} from "m"`)
(import_statement
  (import_clause (identifier) @alias @default)
  (#splice! source)) @import

; `import {a, b as c} from "m"`: the statement, and each specifier as a member (below).
(import_statement
  (import_clause (named_imports))
  (#splice! source)) @import

; `import * as ns from "m"`
(import_statement
  (import_clause
    (namespace_import (identifier) @alias) @wildcard)
  (#splice! source)) @import

; `import "m"`: nothing named (the string is the statement's first named child).
(import_statement
  .
  (#splice! source)) @import

; `export {a, b as c} from "m"`: the statement, and each specifier as a member (below).
(export_statement
  (export_clause)
  (#splice! source)) @import @public

; `export * from "m"`
(export_statement
  "*" @wildcard
  (#splice! source)) @import @public

; `export * as ns from "m"`
(export_statement
  (namespace_export (#splice! export_name alias)) @wildcard
  (#splice! source)) @import @public

; ---------------------------------------------------------------------------------------
; Members: the specifiers of `import {…} from` and `export {…} from`, without `@import` and
; `@module`, which they take from the statement above that holds them. One pattern from
; the statement down to each specifier would keep a partial match per specifier alive
; until the module string after them: quadratic in `export {a1, …, a5000}` (generated
; declaration files), minutes for one file. A specifier of `export {a}` without `from`
; joins nothing and is dropped.

; `a`, `default as x` in `import {a, default as x}`
(import_specifier
  name: (#splice! export_name name)
  !alias)

(import_specifier
  name: (#splice! export_name name)
  alias: (identifier) @alias)

; `a`, `b as c` in `export {a, b as c} from`
(export_specifier
  name: (#splice! export_name name)
  !alias)

(export_specifier
  name: (#splice! export_name name)
  alias: (#splice! export_name alias))

; ---------------------------------------------------------------------------------------
; Calls: dynamic `import("m")` and CommonJS `require("m")`, anywhere in the file

; `import("m")`, `await import("m")`
(call_expression
  function: (import)
  arguments: (arguments . (string . (string_fragment) @module .))) @import

; `require("m")` in any expression
(#splice! require_call) @import

; `const x = require("m")`
(#splice! declared
  (variable_declarator
    name: (identifier) @alias
    value: (#splice! require_call))) @import

; `const {a} = require("m")`
(#splice! declared
  (variable_declarator
    name: (object_pattern (shorthand_property_identifier_pattern) @name)
    value: (#splice! require_call))) @import

; `const {a: b} = require("m")`
(#splice! declared
  (variable_declarator
    name: (object_pattern
      (pair_pattern
        key: (property_identifier) @name
        value: (identifier) @alias))
    value: (#splice! require_call))) @import
