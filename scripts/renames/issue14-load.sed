# issue 14, core/format and core/export (branch loadsplit): the public names
# that moved, for branches made before it (sed -i -f THIS FILE...). Includes
# to add by hand: exdb_load_meta_parse_stack is declared in
# core/export/load_meta.h (was program.h); exdb_container_save and
# exdb_container_describe in core/format/container_save.h (was container.h);
# the exdb_json DOM and its accessors in core/format/json_value.h (json.h
# includes it).
s/\bexdb_parse_module_stack\b/exdb_load_meta_parse_stack/g
