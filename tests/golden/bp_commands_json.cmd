# args: --json tests/fixtures/example.json
# --json: commands answers the breakpoints and their lines; a stop at a
# silent breakpoint says "silent"; the commands it runs answer one object
# each, marked breakpoint_commands; start and ignore answer their data;
# info breakpoints lists ignore counts and commands.
break relu_1
commands
silent
echo relu_1 stopped
end
ignore 1 0
info breakpoints
run
start
