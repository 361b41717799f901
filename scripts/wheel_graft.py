"""Put libraries auditwheel leaves out into a repaired wheel (make wheel).

auditwheel repair copies into the wheel every library the binary needs
except those the manylinux policy assumes every system has. That list holds
GLib (libglib-2.0.so.0), which Graphviz's neato plugin (sfdp) and its GTS
library link, but a minimal Debian (tests/run_wheel.extra.sh) has no GLib.
This does to them what auditwheel does to the others: a copy named with its
hash in exdb.libs/, its soname set to that name and its RPATH to $ORIGIN,
the libraries of the wheel that need it pointed at it, RECORD rewritten.

Usage: python wheel_graft.py WHEEL LIB...   (LIB: a soname, as ldconfig -p knows it)
"""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile


def ldconfig_path(soname: str) -> str:
    out = subprocess.check_output(["/sbin/ldconfig", "-p"], text=True)
    for line in out.splitlines():
        parts = line.strip().split(" => ")
        if len(parts) == 2 and parts[0].split(" ")[0] == soname and "x86-64" in parts[0]:
            return parts[1]
    raise SystemExit(f"wheel_graft: {soname} not found by ldconfig -p")


def needed(path: str) -> list[str]:
    return subprocess.check_output(["patchelf", "--print-needed", path], text=True).split()


def is_elf(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def record_line(root: str, name: str) -> str:
    data = open(os.path.join(root, name), "rb").read()
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main() -> None:
    wheel, sonames = sys.argv[1], sys.argv[2:]
    with tempfile.TemporaryDirectory() as tmp:
        with zipfile.ZipFile(wheel) as zf:
            zf.extractall(tmp)
            modes = {i.filename: i.external_attr for i in zf.infolist()}
        libs = os.path.join(tmp, "exdb.libs")
        renamed = {}
        for soname in sonames:
            src = ldconfig_path(soname)
            digest = hashlib.sha256(open(src, "rb").read()).hexdigest()[:8]
            stem, _, ext = soname.partition(".so")
            name = f"{stem}-{digest}.so{ext}"
            dst = os.path.join(libs, name)
            shutil.copyfile(src, dst)
            os.chmod(dst, 0o755)
            subprocess.check_call(["patchelf", "--set-soname", name, dst])
            subprocess.check_call(["patchelf", "--set-rpath", "$ORIGIN", dst])
            renamed[soname] = name
        for dirpath, _, files in os.walk(tmp):
            for f in files:
                path = os.path.join(dirpath, f)
                if not is_elf(path):
                    continue
                for old in needed(path):
                    if old in renamed:
                        subprocess.check_call(
                            ["patchelf", "--replace-needed", old, renamed[old], path]
                        )
        infos = [d for d in os.listdir(tmp) if d.endswith(".dist-info")]
        record = os.path.join(infos[0], "RECORD")
        names = []
        for dirpath, _, files in os.walk(tmp):
            for f in files:
                names.append(os.path.relpath(os.path.join(dirpath, f), tmp))
        names = sorted(n for n in names if n != record)
        lines = [record_line(tmp, n) for n in names] + [f"{record},,"]
        with open(os.path.join(tmp, record), "w") as f:
            f.write("\n".join(lines) + "\n")
        out = wheel + ".tmp"
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            for n in names + [record]:
                info = zipfile.ZipInfo(n, date_time=(2026, 1, 1, 0, 0, 0))
                mode = 0o755 if is_elf(os.path.join(tmp, n)) else 0o644
                info.external_attr = modes.get(n) or (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                zf.writestr(info, open(os.path.join(tmp, n), "rb").read())
        os.replace(out, wheel)
        print("wheel_graft: " + ", ".join(f"{k} as exdb.libs/{v}" for k, v in renamed.items()))


if __name__ == "__main__":
    main()
