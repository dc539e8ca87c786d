; inherits: javascript
;
; TypeScript-only imports; the JavaScript patterns (queries/javascript/imports.scm, with
; the capture conventions) are appended after these. Type-only imports (`import type`,
; `import {type T}`, `export type {T} from`) also match a JavaScript pattern; the earliest
; pattern wins for the same import, so the ones here, which add `@type_only`, are kept.
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

; `import type {T} from "m"`
(import_statement
  "type" @type_only
  (import_clause
    (named_imports
      (import_specifier
        name: (#splice! export_name name)
        !alias)))
  (#splice! source)) @import

; `import type {T as U} from "m"`
(import_statement
  "type" @type_only
  (import_clause
    (named_imports
      (import_specifier
        name: (#splice! export_name name)
        alias: (identifier) @alias)))
  (#splice! source)) @import

; `import type * as ns from "m"`
(import_statement
  "type" @type_only
  (import_clause
    (namespace_import (identifier) @alias) @wildcard)
  (#splice! source)) @import

; ---------------------------------------------------------------------------------------
; `import {type T} from "m"`: one specifier is type-only

(import_statement
  (import_clause
    (named_imports
      (import_specifier
        "type" @type_only
        name: (#splice! export_name name)
        !alias)))
  (#splice! source)) @import

(import_statement
  (import_clause
    (named_imports
      (import_specifier
        "type" @type_only
        name: (#splice! export_name name)
        alias: (identifier) @alias)))
  (#splice! source)) @import

; ---------------------------------------------------------------------------------------
; `export type {T} from "m"` and `export {type T} from "m"`

(export_statement
  "type" @type_only
  (export_clause
    (export_specifier
      name: (#splice! export_name name)
      !alias))
  (#splice! source)) @import @public

(export_statement
  "type" @type_only
  (export_clause
    (export_specifier
      name: (#splice! export_name name)
      alias: (#splice! export_name alias)))
  (#splice! source)) @import @public

(export_statement
  (export_clause
    (export_specifier
      "type" @type_only
      name: (#splice! export_name name)
      !alias))
  (#splice! source)) @import @public

(export_statement
  (export_clause
    (export_specifier
      "type" @type_only
      name: (#splice! export_name name)
      alias: (#splice! export_name alias)))
  (#splice! source)) @import @public
