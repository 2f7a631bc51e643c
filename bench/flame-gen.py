#!/usr/bin/env python3
"""flame-gen.py N: N distinct folded stacks (seeded, the same file every time) for bench/flame.sh.
2,000 names (C++, C and kernel-style), a skewed random call graph, deep stacks of 5-45 frames
(a root and 4-44 calls), Pareto counts."""
import random
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 200000
rnd = random.Random(42)
verbs = ["read", "write", "parse", "lookup", "alloc", "free", "hash", "copy", "scan", "flush",
         "encode", "decode", "insert", "remove", "sort", "merge", "send", "recv", "wait", "wake"]
nouns = ["buffer", "page", "inode", "request", "token", "entry", "node", "block", "frame", "queue",
         "socket", "record", "index", "table", "string", "object", "event", "packet", "cache", "list"]
names = []
for i in range(2000):
    v, o = rnd.choice(verbs), rnd.choice(nouns)
    kind = rnd.random()
    if kind < 0.4:
        names.append("ns%d::Class%d::%s_%s" % (i % 17, i % 97, v, o))
    elif kind < 0.8:
        names.append("%s_%s_%d" % (v, o, i))
    else:
        names.append("__%s_%s_%d_[k]" % (v, o, i))
callees = {i: [rnd.randrange(2000) for _ in range(rnd.randint(2, 8))] for i in range(2000)}
roots = ["app-main", "worker", "gc-thread", "io-loop"]
seen = set()
out = sys.stdout
while len(seen) < n:
    f = rnd.randrange(2000)
    stack = [rnd.choice(roots), names[f]]
    for _ in range(rnd.randint(3, 43)):
        f = rnd.choice(callees[f])
        stack.append(names[f])
    line = ";".join(stack)
    if line in seen:
        continue
    seen.add(line)
    out.write("%s %d\n" % (line, int(rnd.paretovariate(1.2))))
