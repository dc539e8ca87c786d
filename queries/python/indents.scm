; Indentation and verbatim tokens for the layout formatter (`sextant format`).
; Captures: see queries/README.md, "indents.scm".
;
; A statement's indentation is its block structure, so every line keeps its indentation
; unless a bracket below decides it: only the continuation lines inside brackets (and an
; import's parentheses), whose indentation Python ignores, are placed by level.
(module) @indent.keep

; The later strings of an implicit concatenation are aligned by hand.
(concatenated_string) @indent.keep

[
  (argument_list)
  (parameters)
  (lambda_parameters)
  (list)
  (list_pattern)
  (tuple)
  (tuple_pattern)
  (set)
  (dictionary)
  (dict_pattern)
  (list_comprehension)
  (set_comprehension)
  (dictionary_comprehension)
  (generator_expression)
  (parenthesized_expression)
  (subscript)
  (type_parameter)
  (import_from_statement)
] @indent

(_ ["}" ")" "]"] @outdent)

; Every part of a string is content, an f-string's replacement fields included.
(string) @verbatim
