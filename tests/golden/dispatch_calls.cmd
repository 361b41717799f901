# args: -q tests/conformance/corpus/scenarios/no_unroll_p__strict__preserve/program.pt2
# A dispatcher's calls are named n, n@1 as bt, dce and render name them,
# and print, lint and dce take those names (issue 12's harness compares each
# call's graph with torch's _call_modules).
info modules
print module n
print module n@1
lint module n@1
dce module n@1 --dry-run
dce all --dry-run
print module n@2
