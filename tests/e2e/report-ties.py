#!/usr/bin/env python3
"""perf report --stdio text with its ties in one order: the text's.

perf orders entries of equal Children in a red-black tree whose comparison is
not an order once two threads tie (call depth decides within a thread, Self and
the keys across threads), and entries hidden by --comms or --pid stay in that
tree: their order is the tree's shape. In a call graph, siblings of equal
percentage are ordered by the address of perf's struct dso (heap order). Neither
is an order sonde can or should reproduce, so both sides of a comparison go
through this filter:

  - entry blocks (an entry's line and its graph) of equal first column are
    sorted by their text;
  - each graph is rewritten as an indented tree, siblings of equal percentage
    sorted by their subtree's text. The rest (names, percentages, the shape)
    is kept, so a difference in any of them still shows.

Lines outside entries (headers, comments) are printed as they are.
"""
import re
import sys

ENTRY = re.compile(r"^ +[0-9.]+%")
BRANCH = re.compile(r"^([ |]*?)[| ]--([0-9.]+%)--(.*)$")
ROOT = re.compile(r"^( *)---(.*)$")
STEP = 11  # perf indents each level of a graph by "|" and ten spaces


class Node:
    def __init__(self, pct, name, body):
        self.pct, self.names, self.body, self.kids = pct, [name] if name else [], body, []

    def text(self, depth=0):
        pad = "  " * depth
        out = [pad + (self.pct + " " if self.pct else "") + " / ".join(self.names)]
        if not self.pct and not self.names:
            out = []  # a graph that branches at its root
        keyed = [(float(k.pct[:-1]) if k.pct else 0.0, k.text(depth + 1)) for k in self.kids]
        keyed.sort(key=lambda t: (-t[0], t[1]))
        return "\n".join(out + [t for _, t in keyed])


def graph(lines):
    """the graph's lines as one canonical text; lines that are not a graph's are kept"""
    root, stack, rest = None, [], []
    for ln in lines:
        if not ln.strip(" |"):
            continue
        m = BRANCH.match(ln)
        if m:
            col = len(m.group(1))
            if root is None:
                root = Node(None, None, col)
                stack = [root]
            while len(stack) > 1 and stack[-1].body != col:
                stack.pop()
            kid = Node(m.group(2), m.group(3), col + STEP)
            stack[-1].kids.append(kid)
            stack.append(kid)
            continue
        m = ROOT.match(ln)
        if m and root is None:
            root = Node(None, m.group(2), len(m.group(1)) + 3)
            stack = [root]
            continue
        col = len(ln) - len(ln.lstrip(" |"))
        if root is None:
            rest.append(ln)
            continue
        while len(stack) > 1 and stack[-1].body != col:
            stack.pop()
        stack[-1].names.append(ln[col:])
    return (rest + [root.text()]) if root else rest


def main():
    src = open(sys.argv[1]) if len(sys.argv) > 1 else sys.stdin
    out, blocks = [], []  # blocks: [first column, text] of the entries in a run of ties

    def flush():
        blocks.sort(key=lambda b: b[1])
        out.extend(b[1] for b in blocks)
        blocks.clear()

    cur = None  # [entry line, graph lines]
    def close():
        nonlocal cur
        if cur:
            key = cur[0].split()[0]
            if blocks and blocks[-1][0] != key:
                flush()
            blocks.append([key, "\n".join([cur[0]] + graph(cur[1]))])
        cur = None

    for ln in src.read().split("\n"):
        if ENTRY.match(ln):
            close()
            cur = [ln, []]
        elif ln.startswith("#") or (cur is None):
            close()
            flush()
            out.append(ln)
        elif ln == "":
            pass  # the blank lines between entries: their place is the order's
        else:
            cur[1].append(ln)
    close()
    flush()
    sys.stdout.write("\n".join(out).rstrip("\n") + "\n")


main()
