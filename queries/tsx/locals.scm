; inherits: typescript
;
; TSX names are TypeScript's (and through them JavaScript's), with JSX tags: a capitalised
; tag names a component (a call); a lowercase tag is an element, not a name.

(jsx_opening_element
  name: (identifier) @reference.call
  (#match? @reference.call "^[A-Z]"))
(jsx_self_closing_element
  name: (identifier) @reference.call
  (#match? @reference.call "^[A-Z]"))
(jsx_closing_element
  name: (identifier) @reference
  (#match? @reference "^[A-Z]"))
(jsx_closing_element name: (identifier) @skip)
(jsx_opening_element name: (identifier) @skip)
(jsx_self_closing_element name: (identifier) @skip)

