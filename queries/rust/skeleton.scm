; The bodies `skeleton` elides (see queries/README.md): the block of every function and
; method, and of every closure whose body is a block (`static F: … = Lazy::new(|| { … })`).
; Only the outermost are elided; `impl`, `trait` and `mod` bodies are kept, their functions'
; bodies elided.

(function_item body: (block) @body)
(closure_expression body: (block) @body)

; Comments outside bodies, doc comments (`///`, `//!`, `/** */`) or not, as in every
; language: a run longer than a line keeps its first line.
(line_comment) @doc
(block_comment) @doc

; Item-level macro calls whose body is items (`cfg_rt! { pub fn spawn … }`, as in
; `tags.scm`): the body is parsed again as items and its functions' bodies elided too.
(source_file
  (macro_invocation
    (token_tree "{") @items))

(declaration_list
  (macro_invocation
    (token_tree "{") @items))

; A `macro_rules!` definition's rules are its body.
(macro_definition) @body

; Item-level macro calls (`assert_value!(A: Send);`): three or more of one macro in a row
; keep the first, and the rest become one line saying how many and which lines. Calls
; whose body is items (`cfg_rt! { … }`, above) are never folded.
(source_file
  (expression_statement
    (macro_invocation) @call))

(declaration_list
  (macro_invocation) @call)

; Attributes: one written over several lines keeps its first line and closing brackets
; (`#[cfg(all( … ))]`).
(attribute_item) @attribute
(inner_attribute_item) @attribute

; Lint and code-generation attributes go whole: they change how an item is checked or
; compiled, not what it is. `cfg_attr(condition, lint(…))` too, when the lint is its only
; attribute (a condition of one word, `key = "value"`, or a call such as `any(…)`).
(attribute_item
  (attribute . (identifier) @_hint .)
  (#match? @_hint "^(inline|cold|track_caller)$")) @hint

(attribute_item
  (attribute . (identifier) @_hint . arguments: (token_tree) .)
  (#match? @_hint "^(allow|warn|deny|forbid|expect|inline)$")) @hint

(inner_attribute_item
  (attribute . (identifier) @_hint . arguments: (token_tree) .)
  (#match? @_hint "^(allow|warn|deny|forbid|expect)$")) @hint

(attribute_item
  (attribute
    . (identifier) @_cfg_attr
    . arguments: (token_tree . (identifier) . (identifier) @_lint . (token_tree) .))
  (#eq? @_cfg_attr "cfg_attr")
  (#match? @_lint "^(allow|warn|deny|forbid|expect)$")) @hint

(attribute_item
  (attribute
    . (identifier) @_cfg_attr
    . arguments: (token_tree . (identifier) . (token_tree) . (identifier) @_lint . (token_tree) .))
  (#eq? @_cfg_attr "cfg_attr")
  (#match? @_lint "^(allow|warn|deny|forbid|expect)$")) @hint

(attribute_item
  (attribute
    . (identifier) @_cfg_attr
    . arguments: (token_tree . (identifier) . (string_literal) . (identifier) @_lint . (token_tree) .))
  (#eq? @_cfg_attr "cfg_attr")
  (#match? @_lint "^(allow|warn|deny|forbid|expect)$")) @hint

(inner_attribute_item
  (attribute
    . (identifier) @_cfg_attr
    . arguments: (token_tree . (identifier) . (identifier) @_lint . (token_tree) .))
  (#eq? @_cfg_attr "cfg_attr")
  (#match? @_lint "^(allow|warn|deny|forbid|expect)$")) @hint

(inner_attribute_item
  (attribute
    . (identifier) @_cfg_attr
    . arguments: (token_tree . (identifier) . (token_tree) . (identifier) @_lint . (token_tree) .))
  (#eq? @_cfg_attr "cfg_attr")
  (#match? @_lint "^(allow|warn|deny|forbid|expect)$")) @hint

(inner_attribute_item
  (attribute
    . (identifier) @_cfg_attr
    . arguments: (token_tree . (identifier) . (string_literal) . (identifier) @_lint . (token_tree) .))
  (#eq? @_cfg_attr "cfg_attr")
  (#match? @_lint "^(allow|warn|deny|forbid|expect)$")) @hint
