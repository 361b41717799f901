# args: tests/fixtures/example.json
# render modules -o FILE.html: the module view you open and close (the page
# lays modules out itself: no Graphviz layout, no render limit); other
# formats still draw the modules view through Graphviz.
set timing off
render modules -o /tmp/exdb-golden-mods.html
render modules --depth 3 --limit 1 -o /tmp/exdb-golden-mods3.html
render modules -o /tmp/exdb-golden-mods.dot
