; Scopes, bindings and name uses of JavaScript (captures: queries/README.md, `locals.scm`).
; TypeScript and TSX inherit these patterns after their own, so every node type and field
; used here must exist in their grammars too (class names are matched as `(_)`: an
; `identifier` here, a `type_identifier` there).
;
; A node takes the role of the earliest pattern that captures it, so definitions come
; first and the catch-all `(identifier) @reference` last.

; ---------------------------------------------------------------------------------------
; Scopes. Functions and classes bind their name in the scope around them (their `name`
; field); blocks hold `let`, `const`, `class` and (in strict code) function declarations,
; while `var` passes through them to the function (`@hoisted`).

[
  (function_declaration)
  (function_expression)
  (generator_function_declaration)
  (generator_function)
  (arrow_function)
  (method_definition)
] @scope

[
  (class_declaration)
  (class)
] @scope.class

; A function's body is the function's scope: its parameters and its top-level `let` are
; one scope (redeclaring a parameter there is an error anyway).
(function_declaration body: (_) @scope.transparent)
(function_expression body: (_) @scope.transparent)
(generator_function_declaration body: (_) @scope.transparent)
(generator_function body: (_) @scope.transparent)
(arrow_function body: (_) @scope.transparent)
(method_definition body: (_) @scope.transparent)

[
  (statement_block)
  (for_statement)
  (for_in_statement)
  (catch_clause)
  (switch_body)
] @scope.block

; ---------------------------------------------------------------------------------------
; Exports under another name: `export default f`, `export {a as b}`.

(export_statement
  "default" @export.name
  declaration: [
    (function_declaration name: (identifier) @definition.function)
    (generator_function_declaration name: (identifier) @definition.function)
    (class_declaration name: (_) @definition.class)
  ])

(export_statement
  "default" @export.name
  value: (identifier) @reference)

(export_statement
  !source
  (export_clause
    (export_specifier
      name: (identifier) @reference
      alias: (_) @export.name)))

; `export {a, b as c} from "m"`: names the module re-exports, bound here as imports are.
(export_statement
  (export_clause
    (export_specifier
      name: (identifier) @reference.imported
      alias: (identifier) @definition.import))
  source: (_))

(export_statement
  (export_clause
    (export_specifier
      name: (identifier) @definition.import
      !alias))
  source: (_))

; ---------------------------------------------------------------------------------------
; Imports.

(import_specifier
  name: (identifier) @reference.imported
  alias: (identifier) @definition.import)

(import_specifier
  name: (identifier) @definition.import
  !alias)

(import_clause (identifier) @definition.import)

(namespace_import (identifier) @definition.import)

; `const x = require("m")`
(variable_declarator
  name: (identifier) @definition.import
  value: (call_expression
    function: (identifier) @_require
    arguments: (arguments . (string) .))
  (#eq? @_require "require"))

; ---------------------------------------------------------------------------------------
; Declarations.

(function_declaration name: (identifier) @definition.function)
(generator_function_declaration name: (identifier) @definition.function)
(function_expression name: (identifier) @definition.function)
(generator_function name: (identifier) @definition.function)
(class_declaration name: (_) @definition.class)
(class name: (_) @definition.class)

(class_declaration
  name: (_) @definition.class
  (class_heritage (_) @superclass))
(class
  name: (_) @definition.class
  (class_heritage (_) @superclass))

; Methods and fields belong to the class; an object literal's methods bind nothing.
(object
  (method_definition
    name: [(property_identifier) (private_property_identifier)] @skip))

(method_definition
  name: [(property_identifier) (private_property_identifier)] @definition.function)

; Fields (`x = 1`, `#count;`), matched through their name's node type: the node is
; JavaScript's `field_definition` but TypeScript's `public_field_definition`.
(class_body
  (_ [(property_identifier) (private_property_identifier)] @definition.variable))

; `var` is the function's (or the module's), however deep its block.
(variable_declaration
  (variable_declarator
    name: (identifier) @definition.variable) @hoisted)

(variable_declarator
  name: (identifier) @definition.variable
  value: (new_expression
    constructor: (_) @constructor))

; `const x = f()`: what f's written return type says (TypeScript).
(variable_declarator
  name: (identifier) @definition.variable
  value: (call_expression
    function: (_) @constructor))

; `const def = this._def`: the variable holds what that name holds.
(variable_declarator
  name: (identifier) @definition.variable
  value: [(identifier) (member_expression)] @value)

(variable_declarator
  name: (identifier) @definition.variable)

; `for (const x of xs)`: x holds one of xs's elements.
(for_in_statement
  kind: ["let" "const" "var"]
  left: (identifier) @definition.variable
  operator: "of"
  right: (_) @element.of)

(for_in_statement
  kind: "var" @hoisted
  left: (identifier) @definition.variable)

(for_in_statement
  kind: ["let" "const"]
  left: (identifier) @definition.variable)

; Parameters (a single arrow parameter `x => …` too).
; A plain parameter is an `identifier` child in JavaScript (TypeScript wraps it in
; `required_parameter`; its own patterns come first).
(formal_parameters
  (_) @definition.parameter
  (#match? @definition.parameter "^[A-Za-z_$][A-Za-z0-9_$]*$"))
(arrow_function parameter: (identifier) @definition.parameter)
(catch_clause parameter: (identifier) @definition.parameter)

; `const { x } = obj`: x is also the member `x` of what obj is (its receiver).
(variable_declarator
  name: (object_pattern (shorthand_property_identifier_pattern) @definition.variable)
  value: (_) @receiver)

; A destructuring assignment (`[a, b] = f()`, `({a, b: c} = obj)`) writes names bound
; elsewhere; it binds none (its direct elements; deeper ones are taken for bindings below).
(assignment_expression
  left: (array_pattern (identifier) @reference.write))
(assignment_expression
  left: (object_pattern (shorthand_property_identifier_pattern) @reference.write))
(assignment_expression
  left: (object_pattern (pair_pattern value: (identifier) @reference.write)))

; Names bound by destructuring, at any depth of the pattern.
(shorthand_property_identifier_pattern) @definition.variable
(pair_pattern value: (identifier) @definition.variable)
(array_pattern (identifier) @definition.variable)
(rest_pattern (identifier) @definition.variable)
(assignment_pattern left: (identifier) @definition.variable)
(object_assignment_pattern left: (shorthand_property_identifier_pattern) @definition.variable)

; ---------------------------------------------------------------------------------------
; Members: `obj.name`, `obj.name()`, `obj.name = …`; the receiver is the object's last name
; (`this` too), or a call or `new` of a name.

(this) @reference.self

; `xs[i].m`: a member of one of xs's elements.
(call_expression
  function: (member_expression
    object: (subscript_expression object: (_) @receiver.element)
    property: [(property_identifier) (private_property_identifier)] @member.call))
(member_expression
  object: (subscript_expression object: (_) @receiver.element)
  property: [(property_identifier) (private_property_identifier)] @member)

(call_expression
  function: (member_expression
    object: [
      (call_expression function: (_) @receiver.called)
      (new_expression constructor: (_) @receiver.called)
      (_) @receiver
    ]
    property: [(property_identifier) (private_property_identifier)] @member.call))

(assignment_expression
  left: (member_expression
    object: (_) @receiver
    property: [(property_identifier) (private_property_identifier)] @member.definition))

(member_expression
  object: [
    (call_expression function: (_) @receiver.called)
    (new_expression constructor: (_) @receiver.called)
    (_) @receiver
  ]
  property: [(property_identifier) (private_property_identifier)] @member)

; A function passed as an argument (`operate((source, subscriber) => …)`, `new
; Observable((subscriber) => …)`): a parameter of it without a written type has the type
; the callee's parameter gives that position (TypeScript's `@signature`). A `function`
; (`@callback.this`), unlike an arrow function, also takes its `this` from there.
(call_expression
  function: (_) @callback.callee
  arguments: (arguments (arrow_function) @callback))
(new_expression
  constructor: (_) @callback.callee
  arguments: (arguments (arrow_function) @callback))
(call_expression
  function: (_) @callback.callee
  arguments: (arguments (function_expression) @callback.this))
(new_expression
  constructor: (_) @callback.callee
  arguments: (arguments (function_expression) @callback.this))

; ---------------------------------------------------------------------------------------
; Uses.

(call_expression function: (identifier) @reference.call)
(new_expression constructor: (identifier) @reference.call)

(assignment_expression left: (identifier) @reference.write)
(augmented_assignment_expression left: (identifier) @reference.write)
(update_expression argument: (identifier) @reference.write)
(for_in_statement !kind left: (identifier) @reference.write)

(shorthand_property_identifier) @reference

; JSX tags are identifiers here, so `<Foo />` reads `Foo` (the TypeScript grammar has no
; JSX nodes, and it inherits this file; queries/tsx/locals.scm refines tags for TSX).

(identifier) @reference

; Doc comments: the names `{@link X}`, `{@link X.y}` and `@see X` point to, found in the
; comment's text (`semantic/names/extract.rs`, which reads `/** … */` comments only) and
; resolved in the scope around it.
(comment) @doc.links
