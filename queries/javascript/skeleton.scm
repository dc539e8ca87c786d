; The bodies `skeleton` elides (see queries/README.md): the block of every function,
; method, generator and arrow function (a closure assigned to a name, or passed to a call
; such as `describe(…, () => { … })`). Only the outermost are elided; class bodies are
; kept, their methods' bodies elided. An arrow function whose body is an expression keeps
; it.

(function_declaration body: (statement_block) @body)
(generator_function_declaration body: (statement_block) @body)
(function_expression body: (statement_block) @body)
(generator_function body: (statement_block) @body)
(arrow_function body: (statement_block) @body)
(method_definition body: (statement_block) @body)
(class_static_block body: (statement_block) @body)

; Comments outside bodies (JSDoc, license headers): a run of line comments or a block
; comment longer than a line keeps its first line.
(comment) @doc
