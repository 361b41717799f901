# args: -q
# The command list.
help
