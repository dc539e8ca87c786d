; inherits: javascript
;
; Indentation and verbatim tokens for the layout formatter, TypeScript's own nodes; the
; JavaScript patterns are appended. Captures: see queries/README.md, "indents.scm".

[
  (interface_body)
  (object_type)
  (enum_body)
  (type_parameters)
  (type_arguments)
  (tuple_type)
  (type_alias_declaration)
] @indent

(_ ">" @outdent)

(template_literal_type) @verbatim
