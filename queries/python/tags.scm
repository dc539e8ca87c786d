(class_definition
  body: (block
    (function_definition name: (identifier) @name body: (_) @body) @definition.method))

(class_definition name: (identifier) @name body: (_) @body) @definition.class
(function_definition name: (identifier) @name body: (_) @body) @definition.function
