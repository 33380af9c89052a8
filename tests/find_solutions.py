#!/usr/bin/env python3
"""Searches a tree (an installed student edition, the source's kernels) for the exercises'
solution blocks. The blocks come from files with EXERCISE markers: the files the build cuts them
into (build/install-stage/solutions/KERNEL, markers included), or kernels. Both sides are compared
with comments dropped and whitespace ignored: a block is found when its code appears as a
contiguous run of tokens in a file. Prints one line per find, naming the block and the file, and
exits 1 if there is any.

    find_solutions.py --blocks build/install-stage/solutions/*.cl --in PREFIX
    find_solutions.py --blocks kernels/*.cl --skip-own --in kernels labs docs README.md

Every file is searched for every block (kernels, skeletons, programs, handouts, docs, the
copyright: anything installed), with one exception, IDIOMS below: a one-line block that is an
OpenCL idiom every kernel of the suite is built from, such as `barrier(CLK_LOCAL_MEM_FENCE);`, is
searched for only in its own kernel as installed and in its skeleton (files of that name). Cutting
such a line from the thirty kernels that need it would leave the labs without kernels, and a
handout must be able to name it; what the exercise asks is where the line goes in its kernel.
Any other one-line block is an answer wherever it appears.
"""
import argparse
import pathlib
import re
import sys

MARKER = re.compile(r"^[ \t]*// EXERCISE\(([A-Za-z0-9_]+)\): .*$")
END = re.compile(r"^[ \t]*// END EXERCISE[ \t\r]*$")
PLACEHOLDER = re.compile(r"^[ \t]*//\|")
COMMENTS = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
WORD = re.compile(r"\w")
# One-line blocks that are idioms (normalized): the local barrier and the 1-D global id.
IDIOMS = {"barrier(CLK_LOCAL_MEM_FENCE);", "const size_t i=get_global_id(0);"}


def normalized(text):
    """TEXT without comments and with whitespace kept only between two word characters (as one
    space): the same code written with other spacing or other comments gives the same string."""
    text = COMMENTS.sub(" ", text)
    return re.sub(r"\s+", lambda m: " " if 0 < m.start() and m.end() < len(text)
                  and WORD.match(text[m.start() - 1]) and WORD.match(text[m.end()]) else "", text)


def blocks_of(path, text):
    """(kernel, id, code) for each marked block in TEXT, a kernel or a file of cut blocks."""
    found, block, code = [], None, []
    for line in text.splitlines():
        match = MARKER.match(line)
        if match:
            block, code = match.group(1), []
        elif END.match(line) and block:
            found.append((path.name, block, "\n".join(code)))
            block = None
        elif block and not PLACEHOLDER.match(line):
            code.append(line)
    return found


def occurs(block, text):
    """Whether normalized BLOCK is a run of whole tokens in normalized TEXT."""
    start = text.find(block)
    while start >= 0:
        end = start + len(block)
        before = start > 0 and WORD.match(text[start - 1]) and WORD.match(block[0])
        after = end < len(text) and WORD.match(text[end]) and WORD.match(block[-1])
        if not before and not after:
            return True
        start = text.find(block, start + 1)
    return False


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--blocks", type=pathlib.Path, nargs="+", required=True,
                        help="files with marked blocks: cut blocks or kernels")
    parser.add_argument("--skip-own", action="store_true",
                        help="a block's own kernel and other kernels that mark the same block "
                        "are not reported")
    parser.add_argument("--in", dest="trees", type=pathlib.Path, nargs="+", required=True,
                        help="files or folders to search")
    args = parser.parse_args()

    sources = args.blocks
    blocks = []
    for path in sources:
        for kernel, block, code in blocks_of(path, path.read_text()):
            lines = sum(1 for line in COMMENTS.sub("", code).splitlines() if line.strip())
            blocks.append((kernel, block, normalized(code), lines))
    if not blocks:
        sys.exit(f"find_solutions: no exercise block in {', '.join(map(str, sources))}")

    files = []
    for tree in args.trees:
        files += sorted(p for p in tree.rglob("*") if p.is_file()) if tree.is_dir() else [tree]
    finds = 0
    for path in files:
        raw = path.read_bytes().decode("latin-1")
        text = normalized(raw)
        marked = {(path.name, b) for _, b, _ in blocks_of(path, raw)}
        for kernel, block, code, lines in blocks:
            if code in IDIOMS and path.name != kernel:
                continue
            if args.skip_own and (path.name == kernel or (path.name, block) in marked):
                continue
            if code and occurs(code, text):
                where = f"kernels/{kernel}" if kernel.endswith(".cl") else kernel  # a host program
                print(f"{path}: holds the solution of exercise {block} ({where}, "
                      f"{lines} line{'s' if lines != 1 else ''})")
                finds += 1
    print(f"find_solutions: {len(blocks)} blocks searched for in {len(files)} files, "
          f"{finds} found")
    sys.exit(1 if finds else 0)


if __name__ == "__main__":
    main()
