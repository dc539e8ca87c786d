; inherits: javascript
;
; TypeScript-only imports; the JavaScript patterns (queries/javascript/imports.scm, with
; the capture conventions) are appended after these. Type-only imports (`import type`,
; `import {type T}`, `export type {T} from`) also match a JavaScript pattern; the earliest
; pattern wins for the same import (or member), so the ones here, which add
; `@type_only`, are kept.
;
; @type_only  the `type` keyword: the import names types only (erased from the output)

; `import x = require("m")`
(import_statement
  (import_require_clause
    (identifier) @alias
    (#splice! source))) @import

; ---------------------------------------------------------------------------------------
; `import type …`: the whole statement is type-only

; `import type T from "m"`
(import_statement
  "type" @type_only
  (import_clause (identifier) @alias @default)
  (#splice! source)) @import

; `import type {T, U as V} from "m"`: its specifiers (members) are type-only too.
(import_statement
  "type" @type_only
  (import_clause (named_imports))
  (#splice! source)) @import

; `import type * as ns from "m"`
(import_statement
  "type" @type_only
  (import_clause
    (namespace_import (identifier) @alias) @wildcard)
  (#splice! source)) @import

; ---------------------------------------------------------------------------------------
; `export type {T} from "m"`: its specifiers (members) are type-only too.

(export_statement
  "type" @type_only
  (export_clause)
  (#splice! source)) @import @public

; ---------------------------------------------------------------------------------------
; Members (see queries/javascript/imports.scm): `type T` in `import {type T}` and
; `export {type T} from`.

(import_specifier
  "type" @type_only
  name: (#splice! export_name name)
  !alias)

(import_specifier
  "type" @type_only
  name: (#splice! export_name name)
  alias: (identifier) @alias)

(export_specifier
  "type" @type_only
  name: (#splice! export_name name)
  !alias)

(export_specifier
  "type" @type_only
  name: (#splice! export_name name)
  alias: (#splice! export_name alias))
