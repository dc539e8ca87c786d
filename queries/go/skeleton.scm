; The bodies `skeleton` elides (see queries/README.md): the block of every function,
; method and function literal (`var handler = func(…) { … }`). Only the outermost are
; elided; struct and interface types are kept whole.

(function_declaration body: (block) @body)
(method_declaration body: (block) @body)
(func_literal body: (block) @body)

; Comments outside bodies (a declaration's doc, a license header): a run longer than a
; line keeps its first line.
(comment) @doc
