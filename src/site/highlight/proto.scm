; Protocol Buffers, for tree-sitter-proto (whose crate does not export its
; own query). Capture names as in kepsite's highlight.rs.

[
  "syntax" "package" "import" "option" "message" "enum" "service" "rpc"
  "returns" "oneof" "map" "repeated" "optional" "reserved" "stream" "extend"
] @keyword

[(key_type) (type)] @type.builtin
[(message_name) (enum_name) (service_name) (message_or_enum_type)] @type
(rpc_name) @function
(field (identifier) @property)
(enum_field (identifier) @constant)
(string) @string
(int_lit) @number
(float_lit) @number
[(true) (false)] @constant
(comment) @comment
