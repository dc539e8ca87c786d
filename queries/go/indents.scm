; Indentation and verbatim tokens for the layout formatter (`sextant format`).
; Captures: see queries/README.md, "indents.scm".

[
  (block)
  (literal_value)
  (argument_list)
  (parameter_list)
  (type_parameter_list)
  (field_declaration_list)
  (interface_type)
  (import_spec_list)
  (var_spec_list)
  (const_declaration)
  (type_declaration)
  (parenthesized_expression)
] @indent

; A case's statements are one level deeper than its `case` line, which stands at the
; level of its `switch` (the switch body is not an opener).
[
  (expression_case)
  (type_case)
  (communication_case)
  (default_case)
] @indent

; Continuation lines of a statement.
[
  (short_var_declaration)
  (assignment_statement)
  (return_statement)
  (expression_statement)
  (go_statement)
  (defer_statement)
] @indent

(_ ["}" ")" "]"] @outdent)

[
  (raw_string_literal)
  (interpreted_string_literal)
] @verbatim
