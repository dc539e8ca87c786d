; JavaScript definitions. TypeScript and TSX inherit these patterns (see
; queries/typescript/tags.scm), so every node type and field used here must exist in
; those grammars too: class fields are matched through their name's node type, because
; JavaScript's `field_definition` is TypeScript's `public_field_definition`.
;
; Module-level bindings (`const`, `let`, `var`) are definitions only at the top of the
; file (possibly exported); locals inside functions are not, unless they name a function
; or a class (`const onClick = () => {}` is a nested function, like a nested function
; declaration). `require(...)` bindings are imports, not definitions, and are left out.

; Fragments (see queries/README.md): the names a member or property may have, and the
; function values that make a binding or property a function.
; define member_name
[
  (property_identifier) @name
  (private_property_identifier) @name
  (computed_property_name) @name
  (number) @name
  (string (string_fragment) @name)
]
; end
; define key_name
[
  (property_identifier) @name
  (computed_property_name) @name
  (number) @name
  (string (string_fragment) @name)
]
; end
; define function_value
[
  (arrow_function body: (_) @body)
  (function_expression body: (_) @body)
  (generator_function body: (_) @body)
]
; end

; ---------------------------------------------------------------------------------------
; Classes and their members

; Methods, including getters, setters, static, async, generator and #private ones.
(class_body
  (method_definition
    name: (#splice! member_name)
    body: (_) @body) @definition.method)

; Fields holding a function (`onClick = (e) => {...}`) behave as methods.
(class_body
  (_
    [(property_identifier) (private_property_identifier)] @name
    value: (#splice! function_value)) @definition.method)

; Other fields (`x = 1`, `static #count`, `y;`). Methods also have such a name child, but
; the method patterns above come first and win.
(class_body
  (_ [(property_identifier) (private_property_identifier)] @name) @definition.field)

; `const Foo = class {...}` (anywhere: a class is never a mere local value).
(variable_declarator
  name: (identifier) @name
  value: (class body: (_) @body)) @definition.class

; Class declarations and named class expressions.
[
  (class_declaration name: (_) @name body: (_) @body)
  (class name: (_) @name body: (_) @body)
] @definition.class

; `export default class {}`: the module's default export, named `default`.
(export_statement
  "default" @name
  value: (class !name body: (_) @body)) @definition.class

; ---------------------------------------------------------------------------------------
; Functions

[
  (function_declaration name: (_) @name body: (_) @body)
  (generator_function_declaration name: (_) @name body: (_) @body)
] @definition.function

; `export default function () {}`, `export default async () => {}`: named `default`.
(export_statement
  "default" @name
  value: [
    (function_expression !name body: (_) @body)
    (generator_function !name body: (_) @body)
    (arrow_function body: (_) @body)
  ]) @definition.function

; `const f = () => {}`, `let g = function* () {}`, `var h = function () {}`: a function
; under a name, at any level (like a nested function declaration).
(variable_declarator
  name: (identifier) @name
  value: (#splice! function_value)) @definition.function

; ---------------------------------------------------------------------------------------
; Methods of object literals that are named: the value of a binding, a property, an
; export or a property assignment (`const api = { get() {} }`, `exports.x = { f() {} }`);
; not those of an object passed as an argument or assigned to a plain variable.

; define in_named_object
[
  (_ value: (object $1))
  (assignment_expression left: (member_expression) right: (object $1))
]
; end

(#splice! in_named_object (method_definition name: (#splice! key_name) body: (_) @body) @definition.method)

(#splice! in_named_object (pair key: (#splice! key_name) value: (#splice! function_value)) @definition.method)

; ---------------------------------------------------------------------------------------
; Module-level bindings, plain or exported

; define exported_or_not
[
  $1
  (export_statement declaration: $1)
]
; end

; `const MAX = 10`
(program
  (#splice! exported_or_not (lexical_declaration kind: "const" (variable_declarator name: (identifier) @name value: (_)? @_value) @definition.constant))
  (#not-match? @_value "^require\\s*\\("))

; `let state`, `var cache = {}`
(program
  (#splice! exported_or_not (_ (variable_declarator name: (identifier) @name value: (_)? @_value) @definition.variable))
  (#not-match? @_value "^require\\s*\\("))

; Destructured module-level bindings, one level deep: `const { isArray } = Array`,
; `let [first, ...rest] = list` (not `const { join } = require("path")`). Each name is a
; `$1`.
; define destructured_names
[
  (object_pattern
    [
      (shorthand_property_identifier_pattern) @name @definition.$1
      (object_assignment_pattern
        left: (shorthand_property_identifier_pattern) @name) @definition.$1
      (pair_pattern
        value: [
          (identifier) @name
          (assignment_pattern left: (identifier) @name)
        ]) @definition.$1
      (rest_pattern (identifier) @name) @definition.$1
    ])
  (array_pattern
    [
      (identifier) @name @definition.$1
      (assignment_pattern left: (identifier) @name) @definition.$1
      (rest_pattern (identifier) @name) @definition.$1
    ])
]
; end

(program
  (#splice! exported_or_not (lexical_declaration kind: "const" (variable_declarator name: (#splice! destructured_names constant) value: (_) @_value)))
  (#not-match? @_value "^require\\s*\\("))

(program
  (#splice! exported_or_not (_ (variable_declarator name: (#splice! destructured_names variable) value: (_) @_value)))
  (#not-match? @_value "^require\\s*\\("))

; ---------------------------------------------------------------------------------------
; CommonJS exports and prototype assignments

; `exports.f = function () {}`, `module.exports.f = () => {}` (at any level: UMD wrappers).
(assignment_expression
  left: [
    (member_expression
      object: (identifier) @_exports
      property: (property_identifier) @name)
    (member_expression
      object: (member_expression
        object: (identifier) @_module
        property: (property_identifier) @_exports)
      property: (property_identifier) @name)
  ]
  right: (#splice! function_value)
  (#eq? @_exports "exports")
  (#eq? @_module "module")) @definition.function

; `module.exports = function parse() {}`
(assignment_expression
  left: (member_expression
    object: (identifier) @_module
    property: (property_identifier) @_exports)
  right: [
    (function_expression name: (identifier) @name body: (_) @body)
    (generator_function name: (identifier) @name body: (_) @body)
  ] @definition.function
  (#eq? @_module "module")
  (#eq? @_exports "exports"))

; `Foo.prototype.bar = function () {}` (at any level): a method of Foo.
(assignment_expression
  left: (member_expression
    object: (member_expression
      object: (identifier) @container
      property: (property_identifier) @_prototype)
    property: (property_identifier) @name)
  right: (#splice! function_value)
  (#eq? @_prototype "prototype")) @definition.method

; `Foo.create = function () {}`, `util.converters.toInt = (v) => {}` at module level: a
; function named within its object.
(program
  (expression_statement
    (assignment_expression
      left: (member_expression
        object: [(identifier) (member_expression)] @container
        property: (property_identifier) @name)
      right: (#splice! function_value)) @definition.function)
  (#not-eq? @container "module"))

; `exports.VERSION = "1.0"`, `module.exports.defaults = {...}` at module level; not
; re-exports of another binding (`exports.parse = parse`, `exports.x = require("./x")`)
; nor compiled TypeScript's `exports.a = exports.b = void 0` preamble.
(program
  (expression_statement
    (assignment_expression
      left: [
        (member_expression
          object: (identifier) @_exports
          property: (property_identifier) @name)
        (member_expression
          object: (member_expression
            object: (identifier) @_module
            property: (property_identifier) @_exports)
          property: (property_identifier) @name)
      ]
      right: (_) @_value) @definition.variable)
  (#eq? @_exports "exports")
  (#eq? @_module "module")
  (#not-match? @_value "^(require\\s*\\(|void 0$|[\\w$.]+$|[\\w$.]+\\s*=[^=>])"))
