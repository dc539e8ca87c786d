; inherits: typescript
;
; TSX imports are TypeScript's (and through them JavaScript's), unchanged.
