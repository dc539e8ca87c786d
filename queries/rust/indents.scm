; Indentation and verbatim tokens for the layout formatter (`sextant format`).
; Captures: see queries/README.md, "indents.scm".

; Brackets: their lines are one level deeper than the line they open on.
[
  (block)
  (declaration_list)
  (field_declaration_list)
  (ordered_field_declaration_list)
  (enum_variant_list)
  (field_initializer_list)
  (match_block)
  (arguments)
  (parameters)
  (closure_parameters)
  (type_parameters)
  (type_arguments)
  (array_expression)
  (tuple_expression)
  (tuple_type)
  (tuple_pattern)
  (tuple_struct_pattern)
  (slice_pattern)
  (struct_pattern)
  (parenthesized_expression)
  (use_list)
  (token_tree)
] @indent

; Continuation lines of a statement, an expression, an arm or a bound list
; (`let x = a\n    .b()`, `a\n    || b`).
[
  (let_declaration)
  (expression_statement)
  (return_expression)
  (field_expression)
  (binary_expression)
  (field_initializer)
  (const_item)
  (static_item)
  (match_arm)
  (where_clause)
] @indent

; A line starting with the closing token stands where its opening line does.
(_ ["}" ")" "]" ">"] @outdent)

; A body's `{` on a line of its own, after a condition or scrutinee that spans lines,
; stands where its statement starts.
[
  (if_expression consequence: (block "{" @dedent))
  (while_expression body: (block "{" @dedent))
  (for_expression body: (block "{" @dedent))
  (match_expression body: (match_block "{" @dedent))
]

; Tokens whose bytes are content: strings, block comments, and doc comments, whose
; trailing spaces may be a Markdown line break.
[
  (string_literal)
  (raw_string_literal)
  (block_comment)
  (line_comment (doc_comment))
] @verbatim
