# args: -q tests/conformance/corpus/scenarios/root_lint_outside_call__strict/program.pt2
# UnflattenedModule.__init__ ends with self.graph.lint() of the root graph:
# _deduplicate_modules retargeted the root's call of a.b@2 to a.b@1, which
# lives in a@1, not in a, so the DONE event fails with Graph.lint's
# RuntimeError; lint all says unflatten fails.
set on-error continue
unflatten run
list
reverse-stepi
print module ""
stepi 2
lint all
