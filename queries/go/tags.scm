; Go symbols.
;
; Only package-level declarations are symbols: types, constants and variables declared
; inside function bodies are locals, so every type/const/var pattern is anchored on
; `source_file`. A declaration with one name is captured on its declaration node
; (`type X struct`, `const X = 1`: the signature keeps the keyword), or on its spec when it
; sits in a group `( ... )` (so the symbol starts on its own line). A spec that declares
; several names (`var a, b int`, `X, Y float64` in a struct) yields one symbol per name,
; captured on the name itself (so each gets its own range, not the whole spec's).

; ---------------------------------------------------------------------------------------
; Functions and methods

; `func _()` (a blank function, e.g. stringer's compile-time checks) declares no name.
(function_declaration
  name: (identifier) @name
  body: (block)? @body
  (#not-eq? @name "_")) @definition.function

; Methods are named after their receiver's base type: `func (l *List[T]) Push()` → List.Push.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @container
        (generic_type type: (type_identifier) @container)
        (pointer_type [
          (type_identifier) @container
          (generic_type type: (type_identifier) @container)])
        (parenthesized_type [
          (type_identifier) @container
          (generic_type type: (type_identifier) @container)
          (pointer_type [
            (type_identifier) @container
            (generic_type type: (type_identifier) @container)])])]))
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

; Any other receiver (more parentheses, syntax errors): still a method, without container.
(method_declaration
  name: (field_identifier) @name
  body: (block)? @body) @definition.method

; ---------------------------------------------------------------------------------------
; Types. Grouped specs first, so that the ungrouped patterns below (which also match
; groups) lose to them; struct and interface before the general `type`.

(source_file
  (type_declaration
    "("
    [
      (type_spec
        name: (type_identifier) @name
        type: (struct_type (field_declaration_list) @body)) @definition.struct
      (type_spec
        name: (type_identifier) @name
        type: (interface_type "{" @body)) @definition.interface
    ])
  (#not-eq? @name "_"))

(source_file
  [
    (type_declaration
      (type_spec
        name: (type_identifier) @name
        type: (struct_type (field_declaration_list) @body))) @definition.struct
    (type_declaration
      (type_spec
        name: (type_identifier) @name
        type: (interface_type "{" @body))) @definition.interface
  ]
  (#not-eq? @name "_"))

; Defined types and aliases (`type X = Y`) of any other form.
(source_file
  (type_declaration
    "("
    [
      (type_spec name: (type_identifier) @name)
      (type_alias name: (type_identifier) @name)
    ] @definition.type)
  (#not-eq? @name "_"))

(source_file
  (type_declaration
    [
      (type_spec name: (type_identifier) @name)
      (type_alias name: (type_identifier) @name)
    ]) @definition.type
  (#not-eq? @name "_"))

; ---------------------------------------------------------------------------------------
; Struct fields, in the struct types of package-level declarations only (locals such as
; a test's `tests := []struct{...}` are not symbols). A field list yields: each name of a
; multi-name field (`a, b int`, captured on the name), the single name of a field (`a int`),
; or an embedded field, named after its type (`*pkg.Base`, `List[T]`). Blank names (`_`
; padding) declare nothing.

; define fields
[
  (field_declaration (field_identifier) @name @definition.field (field_identifier))
  (field_declaration (field_identifier) (field_identifier) @name @definition.field)
  (field_declaration
    . name: (field_identifier) @name
    . type: (_ (field_declaration_list)? @body)) @definition.field
  (field_declaration
    !name
    type: [
      (type_identifier) @name
      (qualified_type name: (type_identifier) @name)
      (generic_type type: [
        (type_identifier) @name
        (qualified_type name: (type_identifier) @name)])]) @definition.field
]
; end

; Fields of `type X struct { ... }` (also of an alias `type X = struct { ... }`).
(source_file
  (type_declaration
    (_
      name: (type_identifier) @_type
      type: (struct_type
        (field_declaration_list
          (#splice! fields)))))
  (#not-eq? @_type "_")
  (#not-eq? @name "_"))

; Fields of anonymous structs one level down, nested under their field:
; `Server struct { Host string }`, `Items []struct { ... }`, `Ptr *struct { ... }`.
; (Deeper levels are not listed: two fields in the whole Go source tree.)
(source_file
  (type_declaration
    (_
      name: (type_identifier) @_type
      type: (struct_type
        (field_declaration_list
          (field_declaration
            type:
              [
                (struct_type
                  (field_declaration_list
                    (#splice! fields)))
                (_ (struct_type
                    (field_declaration_list
                      (#splice! fields))))
              ])))))
  (#not-eq? @_type "_")
  (#not-eq? @name "_"))

; Fields of a package-level variable of anonymous struct type: `var config struct { ... }`.
(source_file
  (var_declaration
    [
      (var_spec
        name: (identifier) @_var
        type: (struct_type
          (field_declaration_list
            (#splice! fields))))
      (var_spec_list
        (var_spec
          name: (identifier) @_var
          type: (struct_type
            (field_declaration_list
              (#splice! fields)))))
    ])
  (#not-eq? @_var "_")
  (#not-eq? @name "_"))

; Interface methods: `type Reader interface { Read(p []byte) (int, error) }`. Embedded
; interfaces and type-set terms (`io.Reader`, `~int | string`) declare no name.
(source_file
  (type_declaration
    (_
      name: (type_identifier) @_type
      type: (interface_type
        (method_elem name: (field_identifier) @name) @definition.method)))
  (#not-eq? @_type "_"))

; ---------------------------------------------------------------------------------------
; Constants (every name of `const ( A = iota; B; C )`) and variables, package level only.
; The names of a spec are its direct `identifier` children (a value or a type is another
; node). `const_spec` puts its commas in the `name` field too, which defeats `name:`
; patterns on later names, so the const patterns use no field.

; A name of a multi-name spec (`const KB, MB = ...`): the name itself.
(source_file
  (const_declaration
    [
      (const_spec (identifier) @name @definition.constant (identifier))
      (const_spec (identifier) (identifier) @name @definition.constant)
    ])
  (#not-eq? @name "_"))

; A single-name spec in a group: the spec.
(source_file
  (const_declaration
    "("
    (const_spec (identifier) @name) @definition.constant)
  (#not-eq? @name "_"))

; An ungrouped declaration (`const Pi = 3.14`): the declaration.
(source_file
  (const_declaration
    (const_spec (identifier) @name)) @definition.constant
  (#not-eq? @name "_"))

; Variables likewise; a group is a `var_spec_list`.
(source_file
  (var_declaration
    [
      (var_spec (identifier) @name @definition.variable (identifier))
      (var_spec (identifier) (identifier) @name @definition.variable)
      (var_spec_list (var_spec (identifier) @name @definition.variable (identifier)))
      (var_spec_list (var_spec (identifier) (identifier) @name @definition.variable))
    ])
  (#not-eq? @name "_"))

(source_file
  (var_declaration
    (var_spec_list
      (var_spec name: (identifier) @name) @definition.variable))
  (#not-eq? @name "_"))

(source_file
  (var_declaration
    (var_spec name: (identifier) @name)) @definition.variable
  (#not-eq? @name "_"))
