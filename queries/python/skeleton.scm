; The bodies `skeleton` elides (see queries/README.md): every function's and method's
; block. Only the outermost are elided, so a nested function goes with its parent's body;
; class bodies are kept, their methods' bodies elided.

(function_definition body: (block) @body)
