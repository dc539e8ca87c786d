; inherits: typescript
;
; TSX lays out as TypeScript. JSX text keeps its own layout: it spans lines, so its lines
; are verbatim like any token that does.
