#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""include-cycles.py DIR...: fail when the include graph within a directory
has a cycle.

Within one directory, a.c or a.h including "b.h" (b.h in the same
directory) is an edge a -> b; a node is a file name without its extension,
so a.c and a.h are one node.  Each strongly connected component of more
than one node is printed with the edges that hold it together (which file
includes which header), and the exit status is 1.  Run by tests/check.sh's
unit stage for userspace/ and kmod/.  Prints TAP: one "ok"/"not ok" line
per directory.
"""
import os
import re
import sys

INC = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def graph(d):
    g = {}      # node -> {node: [(file, header)]}
    for f in sorted(os.listdir(d)):
        if not f.endswith(('.c', '.h')):
            continue
        a = f.rsplit('.', 1)[0]
        g.setdefault(a, {})
        with open(os.path.join(d, f), errors='replace') as fh:
            for line in fh:
                m = INC.match(line)
                if not m or not m.group(1).endswith('.h'):
                    continue
                p = os.path.normpath(os.path.join(d, m.group(1)))
                if os.path.dirname(p) != os.path.normpath(d) or \
                   not os.path.exists(p):
                    continue
                b = os.path.basename(p)[:-2]
                if b != a:
                    g[a].setdefault(b, []).append((f, os.path.basename(p)))
    return g


def sccs(g):
    idx, low, st, on, out = {}, {}, [], set(), []
    n = [0]

    def visit(v):   # iterative Tarjan: no recursion limit to worry about
        work = [(v, iter(sorted(g.get(v, {}))))]
        idx[v] = low[v] = n[0]
        n[0] += 1
        st.append(v)
        on.add(v)
        while work:
            u, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in idx:
                    idx[w] = low[w] = n[0]
                    n[0] += 1
                    st.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(g.get(w, {})))))
                elif w in on:
                    low[u] = min(low[u], idx[w])
                continue
            work.pop()
            if work:
                p = work[-1][0]
                low[p] = min(low[p], low[u])
            if low[u] == idx[u]:
                comp = []
                while True:
                    w = st.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == u:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))

    for v in sorted(g):
        if v not in idx:
            visit(v)
    return out


def main(dirs):
    bad = 0
    for d in dirs:
        g = graph(d)
        comps = sccs(g)
        name = os.path.normpath(d)
        if not comps:
            print(f'ok - include-cycles: {name}: no cycle between files')
            continue
        bad = 1
        print(f'not ok - include-cycles: {name}: {len(comps)} cycle(s) '
              'in the include graph')
        for c in comps:
            print(f'# cycle: {" ".join(c)}')
            cs = set(c)
            for a in c:
                for b in sorted(g[a]):
                    if b in cs:
                        for f, h in g[a][b]:
                            print(f'#   {a} -> {b}  ({f} includes "{h}")')
    return bad


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: include-cycles.py DIR...')
    sys.exit(main(sys.argv[1:]))
