"""Print DejaVu Sans's advance widths for ASCII 32..126 as a C initializer.

viz/gvtext.c (the wheel's text layout for Graphviz) holds the table; run
with fontTools (pip install fonttools) on the font fonts-dejavu-core installs:

    python scripts/gen_textwidths.py [/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf]
"""

import sys

from fontTools.ttLib import TTFont


def main() -> None:
    path = sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
    for style, file in (("regular", path), ("bold", path.replace(".ttf", "-Bold.ttf"))):
        font = TTFont(file)
        upem = font["head"].unitsPerEm
        cmap = font.getBestCmap()
        hmtx = font["hmtx"]
        widths = [hmtx[cmap[c]][0] * 1000 // upem for c in range(32, 127)]
        print(f"/* {style}: {file.rsplit('/', 1)[-1]}, 1/1000 em, ' ' to '~' */")
        for i in range(0, len(widths), 16):
            print("    " + ", ".join(str(w) for w in widths[i : i + 16]) + ",")


if __name__ == "__main__":
    main()
