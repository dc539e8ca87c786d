; Python symbols.
;
; Kinds:
;   class      every `class` statement, at any depth (inside functions too), and a class
;              made by a call: `Point = namedtuple(...)`, `Movie = TypedDict(...)`
;   enum       a class whose base list names an enum (`Enum`, `enum.IntEnum`, `MyEnum`,
;              `IntFlag`), and `Color = Enum("Color", ...)`
;   interface  a class deriving from `Protocol` / `typing.Protocol[T]`
;   method     a `def` in a class body (also decorated, also under `if`/`try`/... in the
;              class body), and `name = lambda self: ...` directly in a class body
;   function   any other `def` (module level, nested in functions and methods) and
;              `name = lambda ...` outside class bodies
;   variant    an assignment in an enum class body (not `_sunder_`/`__dunder__` names)
;   field      any other name assigned or annotated in a class body
;   constant   an ALL_CAPS name, or one annotated `Final`, assigned at module level or in
;              a class body
;   type       `type X = ...`, `X: TypeAlias = ...`, `X = TypeVar(...)`/`NewType(...)`/...
;   variable   any other name assigned or annotated at module level
;
; "Module level" and "class body" include the blocks of a compound statement there that is
; not a def or class, clauses included, one level deep: `if`/`elif`/`else`, `try`/`except`/
; `else`/`finally`, `with`, `for`, `while` (`if TYPE_CHECKING:`, `if sys.version_info >=
; ...:`, `try: import x` / `except ImportError:` fallbacks). In the patterns this is
; `(_ !name ...)`: a node without a `name` field, which leaves out `function_definition`
; and `class_definition` (and a decorated definition, whose inner def has a name).
; Instance attributes (`self.x = ...`) and local variables are not symbols.
;
; Definitions are the `def`/`class` nodes themselves (not the decorated_definition), so
; positions and signatures start at `def`/`class`.
; The `:` ending a `def`/`class` head is captured as @body: the signature is the head
; without the colon (like a brace-language head without its `{`), and comments between the
; colon and the block (`def f():  # note`) stay out of it.
;
; Cost: a pattern rooted at `module` or `class_definition` stays active while the whole
; module (class body) is walked, once per alternative, so names at module level and class
; attributes each use ONE pattern whose branches are made exclusive by predicates on
; captures only that branch has (a predicate on a capture absent from a match holds).

; ---------------------------------------------------------------------------------------
; Methods.

(class_definition
  body: (block
    [
      (function_definition name: (identifier) @name ":" @body) @definition.method
      (decorated_definition
        definition: (function_definition name: (identifier) @name ":" @body) @definition.method)
      (expression_statement
        (assignment
          left: (identifier) @name
          right: (lambda body: (_) @body)) @definition.method)
      ; under `if`/`try`/`with`/... (see the top of the file)
      (_ !name
        [
          (block
            [
              (function_definition name: (identifier) @name ":" @body) @definition.method
              (decorated_definition
                definition: (function_definition name: (identifier) @name ":" @body) @definition.method)
            ])
          (_ !name
            (block
              [
                (function_definition name: (identifier) @name ":" @body) @definition.method
                (decorated_definition
                  definition: (function_definition name: (identifier) @name ":" @body) @definition.method)
              ]))
        ])
    ]))

; ---------------------------------------------------------------------------------------
; Classes. Enums and protocols first: the earliest pattern wins for the same node.

(class_definition
  name: (identifier) @name
  superclasses: (argument_list
    [
      (identifier) @_base
      (attribute) @_base
      (subscript value: (_) @_base)
    ])
  ":" @body
  (#match? @_base "(Enum|^(enum\\.)?(Int)?Flag)$")) @definition.enum

(class_definition
  name: (identifier) @name
  superclasses: (argument_list
    [
      (identifier) @_base
      (attribute) @_base
      (subscript value: (_) @_base)
    ])
  ":" @body
  (#match? @_base "^((typing|typing_extensions|t)\\.)?Protocol$")) @definition.interface

(class_definition name: (identifier) @name ":" @body) @definition.class

; ---------------------------------------------------------------------------------------
; Functions: every other `def`, at any depth (a nested function gets the enclosing
; function or method as container), and a lambda bound to a name.

(function_definition name: (identifier) @name ":" @body) @definition.function

(expression_statement
  (assignment
    left: (identifier) @name
    right: (lambda body: (_) @body)) @definition.function)

; ---------------------------------------------------------------------------------------
; Types, and classes made by a call, wherever they are (like `class` statements).

; `type X = ...`, `type X[T] = ...`
(type_alias_statement
  left: (type [(identifier) @name (generic_type (identifier) @name)])) @definition.type

; `X: TypeAlias = ...`
(expression_statement
  (assignment left: (identifier) @name type: (type) @_t) @definition.type
  (#match? @_t "^((typing|typing_extensions|t)\\.)?TypeAlias$"))

; `T = TypeVar("T")`, `UserId = NewType("UserId", int)`, `P = ParamSpec("P")`, ...
(expression_statement
  (assignment left: (identifier) @name right: (call function: (_) @_f)) @definition.type
  (#match? @_f "^((typing|typing_extensions|t)\\.)?(TypeVar|TypeVarTuple|ParamSpec|NewType|TypeAliasType)$"))

; `Point = namedtuple("Point", "x y")`, `Movie = TypedDict("Movie", {...})`
(expression_statement
  (assignment left: (identifier) @name right: (call function: (_) @_f)) @definition.class
  (#match? @_f "^((collections|typing|typing_extensions|t)\\.)?(namedtuple|NamedTuple|TypedDict)$"))

; `Color = Enum("Color", "RED GREEN")`
(expression_statement
  (assignment left: (identifier) @name right: (call function: (_) @_f)) @definition.enum
  (#match? @_f "^(enum\\.)?(Enum|IntEnum|StrEnum|Flag|IntFlag)$"))

; ---------------------------------------------------------------------------------------
; Class attributes.

; Members of an enum class (`_sunder_` and `__dunder__` names are not members).
(class_definition
  superclasses: (argument_list
    [
      (identifier) @_base
      (attribute) @_base
      (subscript value: (_) @_base)
    ])
  body: (block
    (expression_statement
      (assignment left: (identifier) @name) @definition.variant))
  (#match? @_base "(Enum|^(enum\\.)?(Int)?Flag)$")
  (#not-match? @name "^_.*_$"))

; Other attributes: ALL_CAPS or `Final` names are constants, other names fields; directly
; in the class body or under `if`/`try`/`with`/... (see the top of the file). Branches:
; @_caps (ALL_CAPS) or @_final (annotated `Final`) give constants; @_lower (not ALL_CAPS)
; annotated with something else (@_other), or not annotated, gives a field. A plain
; branch requires a `right` that is not another assignment: in `a = b = ...` and in
; `a, b = ...` each name is its own definition (a node spanning the statement would make
; `b` a child of `a`), and the inner link of a chain is its own assignment node.
(class_definition
  body: (block
    [
      (expression_statement
        [
          (assignment left: (identifier) @name @_caps type: (type)) @definition.constant
          (assignment left: (identifier) @name @_caps right: [(expression) (expression_list) (yield)]) @definition.constant
          (assignment left: (identifier) @name type: (type) @_final) @definition.constant
          (assignment left: (identifier) @name @_lower type: (type) @_other) @definition.field
          (assignment left: (identifier) @name @_lower !type right: [(expression) (expression_list) (yield)]) @definition.field
          (assignment left: [(pattern_list (identifier) @name @_caps @definition.constant) (tuple_pattern (identifier) @name @_caps @definition.constant)])
          (assignment left: [(pattern_list (identifier) @name @_lower @definition.field) (tuple_pattern (identifier) @name @_lower @definition.field)])
          (assignment left: (identifier) @name @_caps @definition.constant right: (assignment))
          (assignment left: (identifier) @name @_lower @definition.field right: (assignment))
          (assignment right: (assignment left: (identifier) @name @_caps) @definition.constant)
          (assignment right: (assignment left: (identifier) @name @_lower) @definition.field)
        ])
      (_ !name
        [
          (block
            (expression_statement
              [
                (assignment left: (identifier) @name @_caps type: (type)) @definition.constant
                (assignment left: (identifier) @name @_caps right: [(expression) (expression_list) (yield)]) @definition.constant
                (assignment left: (identifier) @name type: (type) @_final) @definition.constant
                (assignment left: (identifier) @name @_lower type: (type) @_other) @definition.field
                (assignment left: (identifier) @name @_lower !type right: [(expression) (expression_list) (yield)]) @definition.field
                (assignment left: [(pattern_list (identifier) @name @_caps @definition.constant) (tuple_pattern (identifier) @name @_caps @definition.constant)])
                (assignment left: [(pattern_list (identifier) @name @_lower @definition.field) (tuple_pattern (identifier) @name @_lower @definition.field)])
                (assignment left: (identifier) @name @_caps @definition.constant right: (assignment))
                (assignment left: (identifier) @name @_lower @definition.field right: (assignment))
                (assignment right: (assignment left: (identifier) @name @_caps) @definition.constant)
                (assignment right: (assignment left: (identifier) @name @_lower) @definition.field)
              ]))
          (_ !name
            (block
              (expression_statement
                [
                  (assignment left: (identifier) @name @_caps type: (type)) @definition.constant
                  (assignment left: (identifier) @name @_caps right: [(expression) (expression_list) (yield)]) @definition.constant
                  (assignment left: (identifier) @name type: (type) @_final) @definition.constant
                  (assignment left: (identifier) @name @_lower type: (type) @_other) @definition.field
                  (assignment left: (identifier) @name @_lower !type right: [(expression) (expression_list) (yield)]) @definition.field
                  (assignment left: [(pattern_list (identifier) @name @_caps @definition.constant) (tuple_pattern (identifier) @name @_caps @definition.constant)])
                  (assignment left: [(pattern_list (identifier) @name @_lower @definition.field) (tuple_pattern (identifier) @name @_lower @definition.field)])
                  (assignment left: (identifier) @name @_caps @definition.constant right: (assignment))
                  (assignment left: (identifier) @name @_lower @definition.field right: (assignment))
                  (assignment right: (assignment left: (identifier) @name @_caps) @definition.constant)
                  (assignment right: (assignment left: (identifier) @name @_lower) @definition.field)
                ])))
        ])
    ])
  (#match? @_caps "^_*\\p{Lu}[\\p{Lu}\\p{Nd}_]*$")
  (#not-match? @_lower "^_*\\p{Lu}[\\p{Lu}\\p{Nd}_]*$")
  (#match? @_final "^((typing|typing_extensions|t)\\.)?Final(\\[|$)")
  (#not-match? @_other "^((typing|typing_extensions|t)\\.)?Final(\\[|$)"))

; ---------------------------------------------------------------------------------------
; Names at module level: ALL_CAPS or `Final` names are constants, other names variables.
; Same branches as class attributes above.
(module
  [
    (expression_statement
      [
        (assignment left: (identifier) @name @_caps type: (type)) @definition.constant
        (assignment left: (identifier) @name @_caps right: [(expression) (expression_list) (yield)]) @definition.constant
        (assignment left: (identifier) @name type: (type) @_final) @definition.constant
        (assignment left: (identifier) @name @_lower type: (type) @_other) @definition.variable
        (assignment left: (identifier) @name @_lower !type right: [(expression) (expression_list) (yield)]) @definition.variable
        (assignment left: [(pattern_list (identifier) @name @_caps @definition.constant) (tuple_pattern (identifier) @name @_caps @definition.constant)])
        (assignment left: [(pattern_list (identifier) @name @_lower @definition.variable) (tuple_pattern (identifier) @name @_lower @definition.variable)])
        (assignment left: (identifier) @name @_caps @definition.constant right: (assignment))
        (assignment left: (identifier) @name @_lower @definition.variable right: (assignment))
        (assignment right: (assignment left: (identifier) @name @_caps) @definition.constant)
        (assignment right: (assignment left: (identifier) @name @_lower) @definition.variable)
      ])
    (_ !name
      [
        (block
          (expression_statement
            [
              (assignment left: (identifier) @name @_caps type: (type)) @definition.constant
              (assignment left: (identifier) @name @_caps right: [(expression) (expression_list) (yield)]) @definition.constant
              (assignment left: (identifier) @name type: (type) @_final) @definition.constant
              (assignment left: (identifier) @name @_lower type: (type) @_other) @definition.variable
              (assignment left: (identifier) @name @_lower !type right: [(expression) (expression_list) (yield)]) @definition.variable
              (assignment left: [(pattern_list (identifier) @name @_caps @definition.constant) (tuple_pattern (identifier) @name @_caps @definition.constant)])
              (assignment left: [(pattern_list (identifier) @name @_lower @definition.variable) (tuple_pattern (identifier) @name @_lower @definition.variable)])
              (assignment left: (identifier) @name @_caps @definition.constant right: (assignment))
              (assignment left: (identifier) @name @_lower @definition.variable right: (assignment))
              (assignment right: (assignment left: (identifier) @name @_caps) @definition.constant)
              (assignment right: (assignment left: (identifier) @name @_lower) @definition.variable)
            ]))
        (_ !name
          (block
            (expression_statement
              [
                (assignment left: (identifier) @name @_caps type: (type)) @definition.constant
                (assignment left: (identifier) @name @_caps right: [(expression) (expression_list) (yield)]) @definition.constant
                (assignment left: (identifier) @name type: (type) @_final) @definition.constant
                (assignment left: (identifier) @name @_lower type: (type) @_other) @definition.variable
                (assignment left: (identifier) @name @_lower !type right: [(expression) (expression_list) (yield)]) @definition.variable
                (assignment left: [(pattern_list (identifier) @name @_caps @definition.constant) (tuple_pattern (identifier) @name @_caps @definition.constant)])
                (assignment left: [(pattern_list (identifier) @name @_lower @definition.variable) (tuple_pattern (identifier) @name @_lower @definition.variable)])
                (assignment left: (identifier) @name @_caps @definition.constant right: (assignment))
                (assignment left: (identifier) @name @_lower @definition.variable right: (assignment))
                (assignment right: (assignment left: (identifier) @name @_caps) @definition.constant)
                (assignment right: (assignment left: (identifier) @name @_lower) @definition.variable)
              ])))
      ])
  ]
  (#match? @_caps "^_*\\p{Lu}[\\p{Lu}\\p{Nd}_]*$")
  (#not-match? @_lower "^_*\\p{Lu}[\\p{Lu}\\p{Nd}_]*$")
  (#match? @_final "^((typing|typing_extensions|t)\\.)?Final(\\[|$)")
  (#not-match? @_other "^((typing|typing_extensions|t)\\.)?Final(\\[|$)"))
