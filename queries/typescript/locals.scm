; inherits: javascript
;
; TypeScript's scopes, bindings and name uses; the JavaScript patterns
; (queries/javascript/locals.scm) are appended after these, so these come first. Types and
; values share a scope here: `class C` and `interface C` both bind `C` (declaration merging
; makes them one symbol anyway), and a name that is a type only (`@type.only`: an interface,
; a type alias) is told apart by the resolver from a value of the same name (`const C`),
; which TypeScript keeps as another symbol. A parameter or variable with a written type
; (`p: Point`) is an instance of that type, for looking up its members.

; define instance_type
; A written type whose members a value has: `Point`, `Box<T>`, `Subscription | null`; and
; the type a utility type keeps the members of (`Observer` of `Partial<Observer<T>>`).
(type_annotation [
  (type_identifier) @constructor
  (generic_type name: (type_identifier) @constructor)
  (union_type (type_identifier) @constructor)
  (union_type (generic_type name: (type_identifier) @constructor))
  (generic_type
    name: (type_identifier) @_keeps_members
    type_arguments: (type_arguments . [
      (type_identifier) @constructor
      (generic_type name: (type_identifier) @constructor)
    ]))
  (union_type (generic_type
    name: (type_identifier) @_keeps_members
    type_arguments: (type_arguments . [
      (type_identifier) @constructor
      (generic_type name: (type_identifier) @constructor)
    ])))
]
(#match? @_keeps_members "^(Partial|Required|Readonly|NonNullable)$")
(#not-match? @constructor "^(Partial|Required|Readonly|NonNullable)$"))
; end

; define array_type
; A written array type, whose elements are instances of a type: `Observer<T>[]`,
; `Array<Subject<T>>`, `Subscription[] | null`.
(type_annotation [
  (array_type (type_identifier) @elements)
  (array_type (generic_type name: (type_identifier) @elements))
  (union_type (array_type (type_identifier) @elements))
  (union_type (array_type (generic_type name: (type_identifier) @elements)))
  (generic_type
    name: (type_identifier) @_array
    type_arguments: (type_arguments . [
      (type_identifier) @elements
      (generic_type name: (type_identifier) @elements)
    ]))
  (union_type (generic_type
    name: (type_identifier) @_array
    type_arguments: (type_arguments . [
      (type_identifier) @elements
      (generic_type name: (type_identifier) @elements)
    ])))
]
(#match? @_array "^(Array|ReadonlyArray)$"))
; end

; define written_base
; A base written as a type: `I`, `I<T>`, `ns.I`.
[
  (type_identifier) @superclass
  (generic_type name: (_) @superclass)
  (nested_type_identifier) @superclass
]
; end

; ---------------------------------------------------------------------------------------
; Scopes.

[
  (function_signature)
  (method_signature)
  (abstract_method_signature)
  (call_signature)
  (construct_signature)
  (function_type)
  (constructor_type)
  (type_alias_declaration)
  (module)
] @scope

; An object type's members (`{ a: string }`) are seen from nowhere but `x.a`, as an
; interface's are.
[
  (abstract_class_declaration)
  (interface_declaration)
  (enum_declaration)
  (object_type)
] @scope.class
; … but a type alias's object type is the alias's scope, whose members `x.a` finds.
(type_alias_declaration value: (object_type) @scope.transparent)

; `namespace N { … }`: its names are seen inside it, and as `N.name` outside (its body is
; its scope, not a block in it).
(internal_module) @scope
(internal_module body: (_) @scope.transparent)
(module body: (_) @scope.transparent)

; ---------------------------------------------------------------------------------------
; Exports under another name.

(export_statement
  "default" @export.name
  declaration: [
    (class_declaration name: (type_identifier) @definition.class)
    (abstract_class_declaration name: (type_identifier) @definition.class)
    (interface_declaration name: (type_identifier) @definition.type @type.only)
  ])

; ---------------------------------------------------------------------------------------
; Declarations.

; `extends Schema<T, OptionalDef<T>>`: each type argument, by position, is what the base's
; type parameter stands for in this class (`_def: Def` of `Schema` is an `OptionalDef` here).
(class_declaration
  name: (type_identifier) @definition.class
  (class_heritage (extends_clause
    value: (_) @superclass
    type_arguments: (type_arguments (_) @superclass.argument))))
(abstract_class_declaration
  name: (type_identifier) @definition.class
  (class_heritage (extends_clause
    value: (_) @superclass
    type_arguments: (type_arguments (_) @superclass.argument))))
(class
  name: (type_identifier) @definition.class
  (class_heritage (extends_clause
    value: (_) @superclass
    type_arguments: (type_arguments (_) @superclass.argument))))
(interface_declaration
  name: (type_identifier) @definition.type @type.only
  (extends_type_clause (generic_type
    name: (_) @superclass
    type_arguments: (type_arguments (_) @superclass.argument))))
(class_declaration
  name: (type_identifier) @definition.class
  (class_heritage (extends_clause value: (_) @superclass)))
(abstract_class_declaration
  name: (type_identifier) @definition.class
  (class_heritage (extends_clause value: (_) @superclass)))
(class
  name: (type_identifier) @definition.class
  (class_heritage (extends_clause value: (_) @superclass)))
; `implements I, J`: each implemented interface is a base too (its members are the class's).
(class_declaration
  name: (type_identifier) @definition.class
  (class_heritage (implements_clause (#splice! written_base))))
(abstract_class_declaration
  name: (type_identifier) @definition.class
  (class_heritage (implements_clause (#splice! written_base))))
(class
  name: (type_identifier) @definition.class
  (class_heritage (implements_clause (#splice! written_base))))
(class_declaration name: (type_identifier) @definition.class)
(abstract_class_declaration name: (type_identifier) @definition.class)
(class name: (type_identifier) @definition.class)

(interface_declaration
  name: (type_identifier) @definition.type @type.only
  (extends_type_clause (#splice! written_base)))
(interface_declaration name: (type_identifier) @definition.type @type.only)
; `type AnySchema = Schema<any, any>`: a value of the alias's type is an instance of the
; type it names.
(type_alias_declaration
  name: (type_identifier) @definition.type @type.only
  value: [
    (type_identifier) @constructor
    (generic_type name: (type_identifier) @constructor)
  ])
(type_alias_declaration name: (type_identifier) @definition.type @type.only)
(enum_declaration name: (identifier) @definition.type)
(internal_module name: (identifier) @definition.class)
; `const ZodString: core.$constructor<ZodString> = core.$constructor(…)`, a function's
; `: $constructor<T, D>`: a written generic type and its type arguments, by position, from
; which a called function's type parameter is inferred (`T` is `ZodString` in that call).
(variable_declarator
  name: (identifier) @definition.variable
  type: (type_annotation (generic_type
    name: (_) @written.generic
    type_arguments: (type_arguments (_) @written.argument))))
(function_declaration
  name: (identifier) @definition.function
  return_type: (type_annotation (generic_type
    name: (_) @written.generic
    type_arguments: (type_arguments (_) @written.argument))))
(function_signature
  name: (identifier) @definition.function
  return_type: (type_annotation (generic_type
    name: (_) @written.generic
    type_arguments: (type_arguments (_) @written.argument))))

; A function's written return type: what calling it gives (`innerFrom(x).pipe`).
(function_declaration
  name: (identifier) @definition.function
  return_type: (#splice! instance_type))
(function_signature
  name: (identifier) @definition.function
  return_type: (#splice! instance_type))
(method_definition
  name: (property_identifier) @definition.function
  return_type: (#splice! instance_type))
(method_signature
  name: (property_identifier) @definition.function
  return_type: (#splice! instance_type))
(function_signature name: (identifier) @definition.function)

; `T extends Schema`: a value of type `T` is an instance of its constraint, at least.
(type_parameter
  name: (type_identifier) @definition.type_parameter
  constraint: (constraint [
    (type_identifier) @constructor
    (generic_type name: (type_identifier) @constructor)
  ]))
(type_parameter name: (type_identifier) @definition.type_parameter)
(infer_type (type_identifier) @definition.type_parameter)
(mapped_type_clause name: (type_identifier) @definition.type_parameter)

; Members of classes, interfaces and enums.
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @definition.variable
  type: (#splice! array_type))
(property_signature
  name: (property_identifier) @definition.variable
  type: (#splice! array_type))
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @definition.variable
  type: (#splice! instance_type))
(public_field_definition
  name: [(property_identifier) (private_property_identifier)] @definition.variable)
(property_signature
  name: (property_identifier) @definition.variable
  type: (#splice! instance_type))
(property_signature name: (property_identifier) @definition.variable)
(method_signature name: (property_identifier) @definition.function)
(abstract_method_signature name: (property_identifier) @definition.function)
(enum_body name: (property_identifier) @definition.variable)
(enum_assignment name: (property_identifier) @definition.variable)

; An object literal a variable's written type describes (`const p: Provider = { now() {} }`):
; its properties are that type's members, as the methods of a class implementing it are.
(variable_declarator
  type: (type_annotation (type_identifier) @receiver)
  value: (object (method_definition name: (property_identifier) @member.definition)))
(variable_declarator
  type: (type_annotation (generic_type name: (type_identifier) @receiver))
  value: (object (method_definition name: (property_identifier) @member.definition)))
(variable_declarator
  type: (type_annotation (type_identifier) @receiver)
  value: (object (pair key: (property_identifier) @member.definition)))
(variable_declarator
  type: (type_annotation (generic_type name: (type_identifier) @receiver))
  value: (object (pair key: (property_identifier) @member.definition)))

; `import x = require("m")`, `import x = N.y`
(import_require_clause (identifier) @definition.import)
(import_alias . (identifier) @definition.variable)

; `constructor(private x: T)`: a parameter that is also a member of the class.
(required_parameter
  (accessibility_modifier) @class.member
  pattern: (identifier) @definition.parameter
  type: (#splice! instance_type))
(required_parameter
  (accessibility_modifier) @class.member
  pattern: (identifier) @definition.parameter)
(optional_parameter
  (accessibility_modifier) @class.member
  pattern: (identifier) @definition.parameter
  type: (#splice! instance_type))
(optional_parameter
  (accessibility_modifier) @class.member
  pattern: (identifier) @definition.parameter)

; A parameter whose written type is a function's (`init: (source: Observable<T>) => void`):
; that function type's parameters type those of a function passed for it (`@callback`).
(required_parameter
  pattern: (identifier) @definition.parameter
  type: (type_annotation [
    (function_type) @signature
    (parenthesized_type (function_type) @signature)
  ]))
(optional_parameter
  pattern: (identifier) @definition.parameter
  type: (type_annotation [
    (function_type) @signature
    (parenthesized_type (function_type) @signature)
  ]))

; `function (this: Action<T>, state) { this.schedule() }`: `this` there is an instance of
; the written type, not of a class around.
(required_parameter
  pattern: (this) @reference.self
  type: (#splice! instance_type))

; Parameters, with the type they are an instance of when one is written, or the type of
; their elements.
(required_parameter
  pattern: (identifier) @definition.parameter
  type: (#splice! array_type))
(optional_parameter
  pattern: (identifier) @definition.parameter
  type: (#splice! array_type))
(required_parameter
  pattern: (identifier) @definition.parameter
  type: (#splice! instance_type))
(optional_parameter
  pattern: (identifier) @definition.parameter
  type: (#splice! instance_type))
(required_parameter pattern: (identifier) @definition.parameter)
(optional_parameter pattern: (identifier) @definition.parameter)

(variable_declarator
  name: (identifier) @definition.variable
  type: (#splice! instance_type))
(variable_declarator
  name: (identifier) @definition.variable
  type: (#splice! array_type))

; ---------------------------------------------------------------------------------------
; Uses in types: `A.B` looks `B` up in `A` (a namespace, enum or class).

(nested_type_identifier
  module: (identifier) @receiver
  name: (type_identifier) @member.type)
(nested_type_identifier
  module: (nested_identifier property: (_) @receiver)
  name: (type_identifier) @member.type)
(nested_identifier
  object: (identifier) @receiver
  property: (_) @member)

; `window!.next()`, `windows.shift()!.complete()`: `!` leaves the members as they are.
(call_expression
  function: (member_expression
    object: (non_null_expression [
      (call_expression function: (_) @receiver.called)
      (_) @receiver
    ])
    property: [(property_identifier) (private_property_identifier)] @member.call))
(member_expression
  object: (non_null_expression [
    (call_expression function: (_) @receiver.called)
    (_) @receiver
  ])
  property: [(property_identifier) (private_property_identifier)] @member)

; `super.m()`: a member of the base class.
(super) @reference.super

(type_identifier) @reference.type
