# args: -q tests/conformance/corpus/scenarios/buffer_mutation__strict/program.pt2
# scripts/why-at-1.exdb on a program where no module is called twice: it says
# so and ends with status 0 (it stopped with status 1, "No breakpoint").
source scripts/why-at-1.exdb
echo not reached
