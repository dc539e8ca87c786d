; Imports: one match per imported module or name.
;
; @import    the whole statement (where the import is)
; @module    the module as written: `a.b`, or for `from` imports `..a.b` / `.` (relative)
; @name      a name imported from the module (`from m import name`)
; @alias     the local name given with `as`
; @wildcard  `from m import *`
;
; Imports anywhere count (inside functions, `try`/`except ImportError`, `if TYPE_CHECKING:`).

(import_statement
  name: (dotted_name) @module) @import

(import_statement
  name: (aliased_import
    name: (dotted_name) @module
    alias: (identifier) @alias)) @import

(import_from_statement
  module_name: (_) @module
  name: (dotted_name) @name) @import

(import_from_statement
  module_name: (_) @module
  name: (aliased_import
    name: (dotted_name) @name
    alias: (identifier) @alias)) @import

(import_from_statement
  module_name: (_) @module
  (wildcard_import) @wildcard) @import
