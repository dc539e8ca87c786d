; inherits: typescript
;
; TSX is TypeScript with JSX: the TypeScript patterns (and through them the JavaScript
; ones) apply unchanged. A component is a function or class like any other.
