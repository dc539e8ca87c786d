; inherits: javascript
;
; TypeScript-only definitions. The JavaScript patterns (classes, methods, fields, functions,
; module-level bindings, object literal methods, CommonJS assignments) are appended after
; these, so a pattern here wins over a JavaScript one for the same node. Each JavaScript
; pattern must still match somewhere in TypeScript code (the fixtures check it), so none
; is overridden wholesale here.

; ---------------------------------------------------------------------------------------
; Classes

(abstract_class_declaration name: (_) @name body: (_) @body) @definition.class

; Abstract methods, and bodiless method declarations (overloads, `declare class`).
(class_body
  [
    (abstract_method_signature
      name: (#splice! member_name))
    (method_signature
      name: (#splice! member_name))
  ] @definition.method)

; Parameter properties: `constructor(private readonly name: string)` declares a field of
; the class, so the class (not the constructor) is named as its container.
(_
  name: (_)? @container
  body: (class_body
    (method_definition
      name: (property_identifier) @_constructor
      parameters: (formal_parameters
        [
          (required_parameter
            [(accessibility_modifier) (override_modifier) "readonly"]
            pattern: (identifier) @name)
          (optional_parameter
            [(accessibility_modifier) (override_modifier) "readonly"]
            pattern: (identifier) @name)
        ] @definition.field)))
  (#eq? @_constructor "constructor"))

; ---------------------------------------------------------------------------------------
; Interfaces, object types, type aliases

(interface_declaration name: (_) @name body: (_) @body) @definition.interface

; Members of an interface, of `type T = { ... }`, and of the object type of a variable
; declared without a value (`declare var URL: { new (url: string): URL; canParse(...):
; boolean }` in declaration files). Object types elsewhere (parameters, nested types,
; locals with an initializer) define nothing.

; define in_object_type
[
  (interface_body $1)
  (type_alias_declaration value: (object_type $1))
  (variable_declarator !value type: (type_annotation (object_type $1)))
]
; end

(#splice! in_object_type (property_signature name: (#splice! member_name)) @definition.field)

; Method signatures, including `get size(): number` accessors.
(#splice! in_object_type (method_signature name: (#splice! member_name)) @definition.method)

; Construct signatures (`new (value: string): Url`) are the type's constructors, named `new`.
(#splice! in_object_type (construct_signature "new" @name) @definition.method)

(type_alias_declaration name: (_) @name) @definition.type

; ---------------------------------------------------------------------------------------
; Enums

(enum_declaration name: (_) @name body: (_) @body) @definition.enum

; A member without a value is just its name.
(enum_body
  name: [
    (property_identifier) @name @definition.variant
    (string (string_fragment) @name) @definition.variant
  ])

(enum_assignment
  name: [
    (property_identifier) @name
    (string (string_fragment) @name)
  ]) @definition.variant

; ---------------------------------------------------------------------------------------
; Namespaces and modules

; `namespace A.B {}`, `module M {}`, `declare module "pkg" {}`, `declare module "pkg";`
[
  (internal_module
    name: [(identifier) (nested_identifier)] @name
    body: (_) @body)
  (module
    name: [
      (identifier) @name
      (nested_identifier) @name
      (string (string_fragment) @name)
    ]
    body: (_)? @body)
] @definition.module

; `declare global { ... }`
(ambient_declaration "global" @name (statement_block) @body) @definition.module

; ---------------------------------------------------------------------------------------
; Functions

; Overload and ambient declarations: `function f(a: string): void;`, `declare function`.
; The signature stops before the `;`.
(function_signature name: (_) @name ";"? @body) @definition.function

; ---------------------------------------------------------------------------------------
; Bindings inside namespaces, `declare module` and `declare global` blocks, and ambient
; (`declare`) bindings at module level. Plain module-level bindings are matched by the
; JavaScript patterns. In a namespace, a function or class under a name must be claimed
; before the constant and variable patterns below (which come before the JavaScript ones).

; The statements of a namespace or `declare module` body, plain or exported.
; define in_namespace
[
  (internal_module body: (statement_block [$1 (export_statement declaration: $1)]))
  (module body: (statement_block [$1 (export_statement declaration: $1)]))
]
; end

; `namespace N { export const handler = () => {} }`
(#splice! in_namespace (_ (variable_declarator name: (identifier) @name value: (#splice! function_value)) @definition.function))

; `namespace N { export const Impl = class {} }`
(#splice! in_namespace (_ (variable_declarator name: (identifier) @name value: (class body: (_) @body)) @definition.class))

; `declare const VERSION: string`, `namespace N { export const MAX = 10 }`
; define const_declaration
(lexical_declaration kind: "const" (variable_declarator name: (identifier) @name) @definition.constant)
; end
; define any_declaration
(_ (variable_declarator name: (identifier) @name) @definition.variable)
; end
(program
  [
    (ambient_declaration (#splice! const_declaration))
    (export_statement (ambient_declaration (#splice! const_declaration)))
  ])
(#splice! in_namespace (#splice! const_declaration))
(ambient_declaration "global" (statement_block [(#splice! const_declaration) (export_statement declaration: (#splice! const_declaration))]))

; `declare var Array: ArrayConstructor`, `namespace N { let state = 0 }`
(program
  [
    (ambient_declaration (#splice! any_declaration))
    (export_statement (ambient_declaration (#splice! any_declaration)))
  ])
(#splice! in_namespace (#splice! any_declaration))
(ambient_declaration "global" (statement_block [(#splice! any_declaration) (export_statement declaration: (#splice! any_declaration))]))
