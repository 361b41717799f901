# args: tests/fixtures/source/tinynet.pt2
# find (and info nodes): filters that combine, a name glob, print node GLOB,
# and the errors of each filter.
set on-error continue
find relu*
find --op call_function --target aten.linear*
find --module blocks.*
find --dtype f32 --shape *,8 --users 1
find --shape s77,8 --module norm
find --shape s77,1
find --users 0
find --line tinynet.py:14
info nodes --target 'torch.ops.aten.mul.*' --line tinynet.py:14
find --dtype f99
find --shape 1,,3
find --op nope
find --line tinynet.py
find a b
find --op
print node relu* mul
find --users 0 --op output --all
print node zz*
find --shape s77,8 --module norm
find --shape '[s77, 2]'
find --shape 8 --op placeholder --dtype torch.float32
find --module '' --op call_function
