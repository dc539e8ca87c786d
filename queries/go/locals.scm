; Scopes, bindings and name uses of Go (captures: queries/README.md, `locals.scm`).
;
; A node takes the role of the earliest pattern that captures it: the blank identifier
; first (it binds and reads nothing), then definitions, members, and the catch-all
; `(identifier) @reference` last. The file's scope is the package's share of the package
; block: names other files of the package declare, imported packages, and predeclared
; names are found by `semantic/names/go.rs` and the resolver, not here. A local name is
; seen only after its declaration (`@effective.after` says where it takes effect).
;
; A type declaration is a class: its scope holds its struct fields or interface methods,
; so `x.Field` finds them on a value of the type; embedded fields are its bases (their
; fields and methods are promoted). A method is not a name of any scope: its name is a
; member definition on its receiver's type, which the resolver finds in every file of the
; package.

((identifier) @skip
  (#eq? @skip "_"))

(package_clause (package_identifier) @skip)

; ---------------------------------------------------------------------------------------
; Fragments.

; A type whose values are instances of a named type: `T`, `pkg.T`, `T[int]`, `*T`.
; (A qualified type is known by its last name, the `T` of `pkg.T`.)
; define named_types
  (type_identifier) @constructor
  (qualified_type) @constructor
  (generic_type type: [(type_identifier) (qualified_type)] @constructor)
  (pointer_type [
    (type_identifier) @constructor
    (qualified_type) @constructor
    (generic_type type: [(type_identifier) (qualified_type)] @constructor)
  ])
; end

; define instance_type
[
  (#splice! named_types)
]
; end

; A collection's elements are looked up as values of its element type: a slice, array or
; map of `T` (Go selects nothing on a collection itself, so only `xs[i].f` and range
; variables read this).
; define typed
[
  (#splice! named_types)
  (slice_type element: (#splice! instance_type))
  (array_type element: (#splice! instance_type))
  (map_type value: (#splice! instance_type))
]
; end

; A value that is an instance of a named type: `T{…}`, `&T{…}`, `v.(*T)` (`new(T)` is
; matched apart); a call's result is what its callee returns (`NewServer()`, `pkg.New()`,
; `T(x)`).
; define instance_value
[
  (composite_literal type: [
    (type_identifier) @constructor
    (qualified_type) @constructor
    (generic_type type: [(type_identifier) (qualified_type)] @constructor)
  ])
  (unary_expression operand: (composite_literal type: [
    (type_identifier) @constructor
    (qualified_type) @constructor
    (generic_type type: [(type_identifier) (qualified_type)] @constructor)
  ]))
  (call_expression function: [(identifier) (selector_expression)] @constructor)
  (type_assertion_expression type: (#splice! instance_type))
]
; end

; ---------------------------------------------------------------------------------------
; Scopes. A function's body is the function's scope (its parameters and its top-level
; names are one block); every block, `if`, `for`, `switch` and `select` (with their short
; statements) and each case clause is a scope of its own.

[
  (function_declaration)
  (method_declaration)
  (func_literal)
  (function_type)
  (method_elem)
  (block)
  (if_statement)
  (for_statement)
  (expression_switch_statement)
  (type_switch_statement)
  (select_statement)
  (expression_case)
  (type_case)
  (default_case)
  (communication_case)
] @scope

(function_declaration body: (_) @scope.transparent)
(method_declaration body: (_) @scope.transparent)
(func_literal body: (_) @scope.transparent)

; A type declaration holds its members; a struct or interface type written elsewhere
; (`var cfg struct{ … }`) holds its own, unnamed.
(type_spec) @scope.class
[
  (struct_type)
  (interface_type)
] @scope.class
(type_spec type: [(struct_type) (interface_type)] @scope.transparent)

; A field's type is not looked up among the fields (`Config Config`): it is a scope of its
; own, which sees the type's type parameters only.
(field_declaration
  type: [
    (type_identifier)
    (qualified_type)
    (generic_type)
    (pointer_type)
    (slice_type)
    (array_type)
    (map_type)
    (channel_type)
    (function_type)
    (parenthesized_type)
  ] @scope)

; ---------------------------------------------------------------------------------------
; Imports: a named import binds its name (`f "fmt"`); an unnamed one binds the package's
; own name, which is not written here (`semantic/names/go.rs`); `_` and `.` bind nothing.

(import_spec name: (package_identifier) @definition.import)

; ---------------------------------------------------------------------------------------
; Functions and methods. A function returning a named type (first among its results) makes
; instances of it: `s := NewServer()` is one.

(function_declaration
  name: (identifier) @definition.function
  result: (#splice! typed))
(function_declaration
  name: (identifier) @definition.function
  result: (parameter_list . (parameter_declaration type: (#splice! typed))))
(function_declaration name: (identifier) @definition.function)

; `func (s *Server[T]) Start()`: `Start` is a member of `Server`, and the receiver's type
; arguments are the method's type parameters.
(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (type_identifier) @receiver
        (generic_type type: (type_identifier) @receiver)
        (pointer_type [
          (type_identifier) @receiver
          (generic_type type: (type_identifier) @receiver)
        ])
        (parenthesized_type [
          (type_identifier) @receiver
          (pointer_type (type_identifier) @receiver)
        ])
      ]))
  name: (field_identifier) @member.definition)
(method_declaration name: (field_identifier) @member.definition)

; What a method returns, as for functions (`c.Root().Name()`).
(method_declaration
  name: (field_identifier) @member.definition
  result: (#splice! typed))
(method_declaration
  name: (field_identifier) @member.definition
  result: (parameter_list . (parameter_declaration type: (#splice! typed))))

(method_declaration
  receiver: (parameter_list
    (parameter_declaration
      type: [
        (generic_type type_arguments: (type_arguments
          (type_elem (type_identifier) @definition.type_parameter)))
        (pointer_type (generic_type type_arguments: (type_arguments
          (type_elem (type_identifier) @definition.type_parameter))))
      ])))

; Parameters and named results, with the type they are an instance of.
(parameter_declaration
  name: (identifier) @definition.parameter
  type: (#splice! typed))
(parameter_declaration name: (identifier) @definition.parameter)
(variadic_parameter_declaration
  name: (identifier) @definition.parameter
  type: (#splice! instance_type))
(variadic_parameter_declaration name: (identifier) @definition.parameter)

(type_parameter_declaration name: (identifier) @definition.type_parameter)

; ---------------------------------------------------------------------------------------
; Types: every type declaration is a class; embedded fields and embedded interfaces are its
; bases. Fields and interface methods are its members.

(type_spec
  name: (type_identifier) @definition.type
  type: (struct_type (field_declaration_list (field_declaration
    !name
    type: [
      (type_identifier) @superclass
      (qualified_type) @superclass
      (generic_type type: [(type_identifier) (qualified_type)] @superclass)
      (pointer_type [
        (type_identifier) @superclass
        (qualified_type) @superclass
        (generic_type type: [(type_identifier) (qualified_type)] @superclass)
      ])
    ]))))

(type_spec
  name: (type_identifier) @definition.type
  type: (interface_type (type_elem
    .
    [
      (type_identifier) @superclass
      (qualified_type) @superclass
    ]
    .)))

(type_spec name: (type_identifier) @definition.type)
(type_alias name: (type_identifier) @definition.type)

(field_declaration
  name: (field_identifier) @definition.variable
  type: (#splice! typed))
(field_declaration name: (field_identifier) @definition.variable)

(method_elem name: (field_identifier) @definition.function)

; ---------------------------------------------------------------------------------------
; Variables and constants; a local one takes effect after its statement (`x := x + 1` reads
; the `x` from outside).

(short_var_declaration
  left: (expression_list . (identifier) @definition.variable)
  right: (expression_list . (call_expression
    function: (identifier) @_new
    arguments: (argument_list . (#splice! instance_type))))
  (#eq? @_new "new")) @effective.after

(short_var_declaration
  left: (expression_list . (identifier) @definition.variable)
  right: (expression_list . (#splice! instance_value))) @effective.after

(short_var_declaration
  left: (expression_list (identifier) @definition.variable)) @effective.after

(var_spec
  (identifier) @definition.variable
  type: (#splice! typed)) @effective.after

(var_spec
  . (identifier) @definition.variable
  value: (expression_list . (#splice! instance_value))) @effective.after

(var_spec (identifier) @definition.variable) @effective.after

(const_spec (identifier) @definition.variable) @effective.after

; `for k, v := range m`, `case v, ok := <-ch:`, `switch v := x.(type)`. The value of a
; range over a collection is one of its elements.
(range_clause
  left: (expression_list . (_) . (identifier) @definition.variable)
  ":="
  right: [
    (call_expression function: (_) @constructor)
    (_) @constructor
  ]) @effective.after

(range_clause
  left: (expression_list (identifier) @definition.variable)
  ":=") @effective.after

(receive_statement
  left: (expression_list (identifier) @definition.variable)
  ":=") @effective.after

(type_switch_statement alias: (expression_list (identifier) @definition.variable))

; ---------------------------------------------------------------------------------------
; Members: `x.Name`, `x.Method()`, `pkg.Name`, `pkg.Type`; the receiver is the operand's
; last name, the callee of a call (`NewServer().Start()`), or the asserted type
; (`v.(*Server).Start()`). Keys of a struct literal are members of its type.

(call_expression
  function: (selector_expression
    operand: [
      (call_expression function: (_) @receiver.called)
      (index_expression operand: (_) @receiver)
      (type_assertion_expression type: [
        (type_identifier) @receiver
        (qualified_type) @receiver
        (pointer_type [(type_identifier) (qualified_type)] @receiver)
      ])
      (_) @receiver
    ]
    field: (field_identifier) @member.call))

(selector_expression
  operand: [
    (call_expression function: (_) @receiver.called)
    (index_expression operand: (_) @receiver)
    (type_assertion_expression type: [
      (type_identifier) @receiver
      (qualified_type) @receiver
      (pointer_type [(type_identifier) (qualified_type)] @receiver)
    ])
    (_) @receiver
  ]
  field: (field_identifier) @member)

(qualified_type
  package: (package_identifier) @receiver
  name: (type_identifier) @member)

(composite_literal
  type: [
    (type_identifier) @receiver
    (qualified_type) @receiver
    (generic_type type: [(type_identifier) (qualified_type)] @receiver)
  ]
  body: (literal_value (keyed_element . (literal_element (identifier) @member))))

; A key of a nested literal whose type is not written (`[]Point{{X: 1}}`).
(literal_element
  (literal_value (keyed_element . (literal_element (identifier) @member))))

; ---------------------------------------------------------------------------------------
; Uses.

(call_expression function: (identifier) @reference.call)

(assignment_statement left: (expression_list (identifier) @reference.write))
(inc_statement (identifier) @reference.write)
(dec_statement (identifier) @reference.write)
(range_clause left: (expression_list (identifier) @reference.write) "=")
(receive_statement left: (expression_list (identifier) @reference.write) "=")

(type_identifier) @reference.type
(package_identifier) @reference
(identifier) @reference
