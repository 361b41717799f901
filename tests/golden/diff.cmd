# args: -q tests/fixtures/diff/v1.json
# diff FILE on the two versions of scripts/gen_diff_fixtures.py: the node
# inserted early (x * 2) renames blk@1's mul to mul_1, which still matches
# by structure; act's ReLU became GELU; head got wider; extra and the buffer
# steps are new. diff module: blk's two calls differ at node 2, dedup merged
# same@1 into same. Then the errors: an unreadable file, no such module.
set on-error continue
diff tests/fixtures/diff/v2.json
diff tests/fixtures/diff/v1.json
diff module blk blk@1
diff module same same@1
diff module blk nosuch
diff tests/fixtures/diff/nosuch.json
diff
diff a b
diff --frobnicate x
