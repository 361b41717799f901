# args: -q tests/fixtures/example.json
# info frame counts frames created as English does: the 21st, 22nd, 23rd
# (it said "21th"), and the 11th keeps "th" (render frame uses the same words).
break event enter
ignore 1 9
run
info frame
ignore 1 9
continue
info frame
continue
info frame
