; The bodies `skeleton` elides (see queries/README.md): every function's and method's
; block. Only the outermost are elided, so a nested function goes with its parent's body;
; class bodies are kept, their methods' bodies elided.

(function_definition body: (block) @body)

; The docstrings of modules and classes, and comments outside bodies: longer than a line,
; they keep their first line. (A function's docstring goes with its body, above.)
(module . (expression_statement (string) @doc))
(class_definition body: (block . (expression_statement (string) @doc)))
(comment) @doc

; Data: a list, dict, set or tuple written over several lines and assigned to a name of a
; module or class (`topics = {…}`), but `__all__`, which says what the module exports.
(module
  (expression_statement
    (assignment
      left: (_) @_name
      right: [(dictionary) (list) (set) (tuple)] @value))
  (#not-eq? @_name "__all__"))

(class_definition
  body: (block
    (expression_statement
      (assignment
        right: [(dictionary) (list) (set) (tuple)] @value))))
