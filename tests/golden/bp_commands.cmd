# args: tests/fixtures/example.json
# commands N ... end: lines run when breakpoint N stops, after its message
# and the displays; "silent" first leaves both out; a command that moves the
# run ends the list (the stop's own commands run next); commands of a
# temporary breakpoint; "commands" alone is the last breakpoint's; an empty
# list removes them; a line that is no command is refused (the rest of the
# list is still read, not run as the script's); reverse-continue runs them
# too.
set on-error continue
display backtrace
break relu_1
commands
silent
echo [relu_1 stopped, silently]
info frame
end
tbreak module encoder.layers.1.act
commands 2
echo [entered encoder.layers.1.act]
# comments and blank lines are dropped

continue
echo [never run: continue ended the list]
end
break exit encoder.layers.1
commands 3
echo [exit of encoder.layers.1]
end
info breakpoints
run
echo [after run]
continue
echo [after continue]
info breakpoints
reverse-continue
commands 3
end
commands 1 3
echo [1 or 3]
end
info breakpoints
commands 1
echo fine
nosuchcommand here
commands 3
end
echo [the bad list was read to its end]
commands 99
end
info breakpoints
set trace-commands on
run
