; Indentation and verbatim tokens for the layout formatter (`sextant format`).
; Captures: see queries/README.md, "indents.scm". TypeScript and TSX inherit this file.

[
  (statement_block)
  (class_body)
  (object)
  (object_pattern)
  (array)
  (array_pattern)
  (arguments)
  (formal_parameters)
  (parenthesized_expression)
  (named_imports)
  (export_clause)
  (switch_body)
  (switch_case)
  (switch_default)
  (template_substitution)
] @indent

; Continuation lines of a statement or an expression (`const x = a\n  .b()`, `a\n  || b`).
[
  (member_expression)
  (binary_expression)
  (ternary_expression)
  (pair)
  (lexical_declaration)
  (variable_declaration)
  (expression_statement)
  (return_statement)
  (throw_statement)
] @indent

(_ ["}" ")" "]"] @outdent)

[
  (string)
  (template_string)
  (regex)
] @verbatim
