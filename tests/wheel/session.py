"""The exdb package in the bare root (tests/run_wheel.extra.sh): no torch.

Usage: python session.py DIR (DIR holds tinynet.pt2; files are written there).
"""

import os
import subprocess
import sys

import exdb

d = sys.argv[1]
pt2 = os.path.join(d, "tinynet.pt2")
answers = exdb.run(pt2, "unflatten run", "info modules")
assert [a["command"] for a in answers] == ["unflatten run", "info modules"], answers
assert answers[0]["done"] is True
assert answers[1]["modules"][0]["fqn"] == ""
try:
    exdb.run(pt2, "print node nosuchnode")
except exdb.Error as e:
    assert "nosuchnode" in str(e) and e.command == "print node nosuchnode", e
else:
    raise AssertionError("no exdb.Error")
exdb.render(pt2, "modules", os.path.join(d, "py.svg"))
assert open(os.path.join(d, "py.svg")).read().lstrip().startswith("<")
page = exdb.show(pt2)._repr_html_()
assert page.startswith("<iframe srcdoc=") and "&lt;svg" in page or "&lt;html" in page
out = subprocess.run([sys.executable, "-m", "exdb", "--version"], capture_output=True, text=True)
assert out.stdout.strip() == "exdb " + exdb.__version__, out
assert "torch" not in sys.modules
print("ok")
