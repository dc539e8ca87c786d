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
; "Module level" and "class body" include the blocks of the compound statements there that
; are not a def or class, at any depth, clauses included: `if`/`elif`/`else`, `try`/
; `except`/`else`/`finally`, `with`, `for`, `while`, `match`/`case` (`if TYPE_CHECKING:`,
; `if sys.version_info >= ...:`, `try: import x` / `except ImportError:` fallbacks). In the
; patterns this is `(#scope? module)`: the nearest `def`, `class` or module enclosing the
; statement (Python's `scopes` in grammars/languages.toml) is the module.
; Instance attributes (`self.x = ...`) and local variables are not symbols.
;
; Definitions are the `def`/`class` nodes themselves (not the decorated_definition), so
; positions and signatures start at `def`/`class`.
; The `:` ending a `def`/`class` head is captured as @body: the signature is the head
; without the colon (like a brace-language head without its `{`), and comments between the
; colon and the block (`def f():  # note`) stay out of it.
;
; Cost: every pattern is rooted at a named node kind (`expression_statement`,
; `function_definition`, `class_definition`, ...), so the engine starts it only at such
; nodes (see src/lang/roots.rs) and never keeps a pattern active over a whole module.

; The names an assignment statement defines, as a choice of branches made exclusive by
; predicates on captures only that branch has (a predicate on a capture absent from a match
; holds): @_caps (ALL_CAPS) or @_final (annotated `Final`) give constants; @_lower (not
; ALL_CAPS) annotated with something else (@_other), or not annotated, gives a `$1` (a
; field in a class body, a variable at module level). A plain branch requires a `right`
; that is not another assignment: in `a = b = ...` and in `a, b = ...` each name is its own
; definition (a node spanning the statement would make `b` a child of `a`), and the inner
; link of a chain is its own assignment node.
; define assigned_names
[
  (assignment left: (identifier) @name @_caps type: (type)) @definition.constant
  (assignment left: (identifier) @name @_caps right: [(expression) (expression_list) (yield)]) @definition.constant
  (assignment left: (identifier) @name type: (type) @_final) @definition.constant
  (assignment left: (identifier) @name @_lower type: (type) @_other) @definition.$1
  (assignment left: (identifier) @name @_lower !type right: [(expression) (expression_list) (yield)]) @definition.$1
  (assignment left: [(pattern_list (identifier) @name @_caps @definition.constant) (tuple_pattern (identifier) @name @_caps @definition.constant)])
  (assignment left: [(pattern_list (identifier) @name @_lower @definition.$1) (tuple_pattern (identifier) @name @_lower @definition.$1)])
  (assignment left: (identifier) @name @_caps @definition.constant right: (assignment))
  (assignment left: (identifier) @name @_lower @definition.$1 right: (assignment))
  (assignment right: (assignment left: (identifier) @name @_caps) @definition.constant)
  (assignment right: (assignment left: (identifier) @name @_lower) @definition.$1)
]
(#match? @_caps "^_*\\p{Lu}[\\p{Lu}\\p{Nd}_]*$")
(#not-match? @_lower "^_*\\p{Lu}[\\p{Lu}\\p{Nd}_]*$")
(#match? @_final "^((typing|typing_extensions|t)\\.)?Final(\\[|$)")
(#not-match? @_other "^((typing|typing_extensions|t)\\.)?Final(\\[|$)")
; end

; ---------------------------------------------------------------------------------------
; Methods.

; A `def` whose nearest enclosing def, class or module is a class (decorated or not, under
; blocks of any depth in the class body).
(function_definition
  name: (identifier) @name
  ":" @body
  (#scope? class_definition)) @definition.method

; `name = lambda self: ...` directly in a class body.
(class_definition
  body: (block
    (expression_statement
      (assignment
        left: (identifier) @name
        right: (lambda body: (_) @body)) @definition.method)))

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
; in the class body or under `if`/`try`/`with`/... blocks of any depth there.
(expression_statement
  (#splice! assigned_names field)
  (#scope? class_definition))

; ---------------------------------------------------------------------------------------
; Names at module level: ALL_CAPS or `Final` names are constants, other names variables.
(expression_statement
  (#splice! assigned_names variable)
  (#scope? module))
