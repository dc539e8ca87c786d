; Imports: one match per import spec (a grouped `import ( … )` has one per line).
;
; @import    the import spec (the line of a grouped import, not the whole group)
; @module    the import path, without its quotes
; @alias     the package name given (`f "fmt"`), or `_` for a blank import
; @wildcard  a dot import (`. "strings"`): the package's names are used unqualified

; define import_path
path: [
  (interpreted_string_literal (interpreted_string_literal_content) @module)
  (raw_string_literal (raw_string_literal_content) @module)
]
; end

(import_spec
  !name
  (#splice! import_path)) @import

(import_spec
  name: [(package_identifier) (blank_identifier)] @alias
  (#splice! import_path)) @import

(import_spec
  name: (dot) @wildcard
  (#splice! import_path)) @import
