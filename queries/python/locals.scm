; Scopes, bindings and uses of names (see queries/README.md, "locals.scm").
;
; Python rules the query cannot say live in src/semantic/names/python.rs: a name bound
; anywhere in a function is local to all of it, `global`/`nonlocal`, builtins, and which
; parameter is `self`.

; --- Scopes -----------------------------------------------------------------------------

(module) @scope
(function_definition) @scope
(lambda) @scope
(list_comprehension) @scope
(set_comprehension) @scope
(dictionary_comprehension) @scope
(generator_expression) @scope
; A class body's names are not seen from the functions inside it.
(class_definition) @scope.class

; --- Imports ---------------------------------------------------------------------------

; Imports bind their local name: the alias, the imported name, or the first part of
; `import a.b`.
(import_statement name: (dotted_name . (identifier) @definition.import))
(import_statement name: (aliased_import alias: (identifier) @definition.import))
(import_from_statement name: (dotted_name (identifier) @definition.import))
(import_from_statement name: (aliased_import alias: (identifier) @definition.import))

; --- Names that are not variables -------------------------------------------------------

; `f(key=1)`, `Point(x=0)` in a case pattern, `class C(metaclass=M)`: parameter names.
; `f(x, key=1)`: `key` names a parameter of what is called (the callee's last name is the
; receiver).
(call
  function: [
    (identifier) @receiver
    (attribute attribute: (identifier) @receiver)
  ]
  arguments: (argument_list
    (keyword_argument name: (identifier) @reference.keyword)))
(keyword_argument name: (identifier) @skip)
(keyword_pattern . (identifier) @skip)
; The parts of a module's name: each names the module up to it (`a.b` for `b` in
; `import a.b.c`); `@module.path` is the whole name they are part of.
(import_statement name: (dotted_name (identifier) @reference.module) @module.path)
(import_statement
  name: (aliased_import name: (dotted_name (identifier) @reference.module) @module.path))
(import_from_statement module_name: (dotted_name (identifier) @reference.module) @module.path)
(import_from_statement
  module_name: (relative_import (dotted_name (identifier) @reference.module)) @module.path)
; `from m import x as y`: `x` is looked up in `m`.
(import_from_statement
  name: (aliased_import name: (dotted_name . (identifier) @reference.imported .)))
(aliased_import name: (dotted_name (identifier) @skip))

; --- Definitions ------------------------------------------------------------------------

(function_definition name: (identifier) @definition.function)
(class_definition
  name: (identifier) @definition.class
  superclasses: (argument_list [(identifier) (attribute)] @superclass))
; A generic base, `Base[T]`, is `Base`.
(class_definition
  name: (identifier) @definition.class
  superclasses: (argument_list (subscript value: [(identifier) (attribute)] @superclass)))
(class_definition name: (identifier) @definition.class)

; Parameters.
(parameters (identifier) @definition.parameter)
(lambda_parameters (identifier) @definition.parameter)
; `def f() -> Point`: calling f gives an instance of Point.
(function_definition
  name: (identifier) @definition.function
  return_type: (type [(identifier) (attribute)] @constructor))

; `def f(p: Point)`: p is an instance of the class written.
(typed_parameter
  . (identifier) @definition.parameter
  type: (type [(identifier) (attribute)] @constructor))
(typed_default_parameter
  name: (identifier) @definition.parameter
  type: (type [(identifier) (attribute)] @constructor))
(typed_parameter . (identifier) @definition.parameter)
(default_parameter name: (identifier) @definition.parameter)
(typed_default_parameter name: (identifier) @definition.parameter)
(list_splat_pattern (identifier) @definition.parameter)
(dictionary_splat_pattern (identifier) @definition.parameter)

; `x = C(…)`: x holds what calling C gives. An assignment binds once it has run
; (`@effective.after`): `x = x + 1` reads the x bound before it.
(assignment
  left: (identifier) @definition.variable
  right: (call function: [(identifier) (attribute)] @constructor)) @effective.after
; `m = pyclbr`, `m = a.b`: m holds what the name names (`@value`: a module, a class).
(assignment
  left: (identifier) @definition.variable
  right: [(identifier) (attribute)] @value) @effective.after
; `x = []`, `x = "…"`: x holds an instance of a builtin type (`@instance.<type>`).
(assignment
  left: (identifier) @definition.variable
  right: [(list) (list_comprehension)] @instance.list) @effective.after
(assignment
  left: (identifier) @definition.variable
  right: [(dictionary) (dictionary_comprehension)] @instance.dict) @effective.after
(assignment
  left: (identifier) @definition.variable
  right: [(set) (set_comprehension)] @instance.set) @effective.after
(assignment
  left: (identifier) @definition.variable
  right: [(string) (concatenated_string)] @instance.str) @effective.after
(assignment
  left: (identifier) @definition.variable
  right: (tuple) @instance.tuple) @effective.after
(assignment
  left: (identifier) @definition.variable
  right: (integer) @instance.int) @effective.after
(assignment
  left: (identifier) @definition.variable
  right: (float) @instance.float) @effective.after
(assignment left: (identifier) @definition.variable) @effective.after
(assignment left: (pattern_list (identifier) @definition.variable)) @effective.after
(assignment left: (tuple_pattern (identifier) @definition.variable)) @effective.after
(assignment left: (list_pattern (identifier) @definition.variable)) @effective.after
(augmented_assignment left: (identifier) @definition.variable)
(named_expression name: (identifier) @definition.variable)
(for_statement left: (identifier) @definition.variable)
(for_in_clause left: (identifier) @definition.variable)
; `except E as e`: `e` holds an instance of `E`, for the members looked up on it.
(except_clause
  (as_pattern
    [(identifier) (attribute)] @constructor
    (as_pattern_target (identifier) @definition.variable)))
(as_pattern_target (identifier) @definition.variable)
(case_pattern (as_pattern (identifier) @definition.variable))
(case_pattern (dotted_name . (identifier) @definition.variable .))
(splat_pattern (identifier) @definition.variable)
; `case Point(x=px)`: `px` is bound (`x` names the attribute, skipped above).
(keyword_pattern (dotted_name . (identifier) @definition.variable .))
; PEP 695: `def first[T](…)`, `class Box[T]` (seen from the class's methods too), and the
; alias a `type` statement defines.
(function_definition
  type_parameters: (type_parameter (type (identifier) @definition.type_parameter)))
(class_definition
  type_parameters: (type_parameter (type (identifier) @definition.type_parameter)))
(type_alias_statement left: (type (identifier) @definition.type))
(type_alias_statement left: (type (generic_type . (identifier) @definition.type)))
(delete_statement (identifier) @reference.write)

; Unpacking targets, nested: `a, (b, *c) = …`, `for k, v in …`, `with f() as (u, v)`.
(pattern_list (identifier) @definition.variable)
(tuple_pattern (identifier) @definition.variable)
(list_pattern (identifier) @definition.variable)
(as_pattern_target (tuple (identifier) @definition.variable))
(as_pattern_target (list (identifier) @definition.variable))

(global_statement (identifier) @declaration.global)
(nonlocal_statement (identifier) @declaration.nonlocal)

; --- Members ----------------------------------------------------------------------------

; define attribute_target
left: (attribute
  object: (_) @receiver
  attribute: (identifier) @member.definition)
; end

; `obj.attr = …`: defines the member on what `obj` is; what it holds, as for variables.
(assignment
  (#splice! attribute_target)
  right: (call function: [(identifier) (attribute)] @constructor))
(assignment
  (#splice! attribute_target)
  right: [(list) (list_comprehension)] @instance.list)
(assignment
  (#splice! attribute_target)
  right: [(dictionary) (dictionary_comprehension)] @instance.dict)
(assignment
  (#splice! attribute_target)
  right: [(set) (set_comprehension)] @instance.set)
(assignment
  (#splice! attribute_target)
  right: [(string) (concatenated_string)] @instance.str)
(assignment
  (#splice! attribute_target))
; `", ".join(…)`: a member of a literal's builtin type.
(call
  function: (attribute
    object: [(string) (concatenated_string)] @instance.str
    attribute: (identifier) @member.call))
(attribute
  object: [(string) (concatenated_string)] @instance.str
  attribute: (identifier) @member)
; `C().name`: a member of what calling C gives.
(call
  function: (attribute
    object: (call function: (_) @receiver.called)
    attribute: (identifier) @member.call))
(attribute
  object: (call function: (_) @receiver.called)
  attribute: (identifier) @member)
(call
  function: (attribute
    object: (_) @receiver
    attribute: (identifier) @member.call))
(attribute
  object: (_) @receiver
  attribute: (identifier) @member)

; --- Uses -------------------------------------------------------------------------------

(call function: (identifier) @reference.call)
(decorator (identifier) @reference.call)
(type (identifier) @reference.type)
(identifier) @reference

; --- Names written in strings ---------------------------------------------------------
; Strings Python reads as type expressions: a string annotation (`x: "Foo"`, `-> "list[Foo]"`),
; `X: TypeAlias = "…"` and the type given to `cast("Foo", v)`. Their names are uses.
; Not code although in a type (`@string.value`): the values of `Literal[…]` and the metadata
; of `Annotated[…]` after its type.
(generic_type (identifier) @_literal (#eq? @_literal "Literal")
  (type_parameter (type (string (string_content) @string.value))))
(generic_type (identifier) @_annotated (#eq? @_annotated "Annotated")
  (type_parameter (type) (type (string (string_content) @string.value))))
(subscript
  value: (attribute attribute: (identifier) @_literal) (#eq? @_literal "Literal")
  subscript: (string (string_content) @string.value))
(subscript
  value: (attribute attribute: (identifier) @_annotated) (#eq? @_annotated "Annotated")
  subscript: (_) subscript: (string (string_content) @string.value))
(type (string (string_content) @string.code))
(type (subscript subscript: (string (string_content) @string.code)))
(assignment
  type: (type) @_alias (#match? @_alias "TypeAlias$")
  right: (string (string_content) @string.code))
(call
  function: (identifier) @_cast (#eq? @_cast "cast")
  arguments: (argument_list . (string (string_content) @string.code)))
(call
  function: (attribute
    object: (identifier) @_typing (#match? @_typing "^(typing|typing_extensions|t)$")
    attribute: (identifier) @_cast (#eq? @_cast "cast"))
  arguments: (argument_list . (string (string_content) @string.code)))

; --- Flow -------------------------------------------------------------------------------
; Code that runs on some paths only: goto lists every assignment that may hold at a use.
; An alternative's statement is its parent node (`if`, `try`, a `match` body).
(if_statement consequence: (block) @flow.branch)
(elif_clause) @flow.branch
(else_clause) @flow.branch
(except_clause) @flow.branch
(case_clause) @flow.branch
(for_statement body: (block) @flow.loop)
(while_statement body: (block) @flow.loop)
