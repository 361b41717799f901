# args: -q tests/conformance/corpus/scenarios/dedup_alias_pop_twice__strict/program.pt2
# al and a.b are one module (self.al = self.a.b), so their calls share one
# _modules dict: _deduplicate_modules pops r@1 for al.r, then again for
# a.b.r, and the DEDUP event fails with torch's KeyError; list shows the
# decision it stopped at, stepping again fails again, going back works.
set on-error continue
unflatten run
list
stepi
reverse-stepi 2
stepi 3
