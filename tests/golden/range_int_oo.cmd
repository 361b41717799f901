# args: tests/fixtures/range_int_oo.json
# range_constraints with "min_val": Infinity: torch's _int_to_sympy_int reads
# math.inf as int_oo, so the range is VR[int_oo, int_oo] (issue 22 item 7;
# exdb printed VR[-int_oo, int_oo]); min_val Infinity over a finite max_val
# is torch's ValueRangeError (tests/malformed/range_min_inf_over_max.json).
info program
