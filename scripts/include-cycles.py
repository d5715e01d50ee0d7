#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""include-cycles.py DIR...: fail when the include graph within a directory
tree has a cycle, between files or between folders.

Within DIR and its subdirectories, a.c or a.h including "b.h" is an edge
a -> b; a node is a file's path under DIR without its extension, so a.c
and a.h are one node.  An include is resolved as the compiler resolves
it with -I DIR: next to the including file first, then from DIR
(kmod/tables/livetab.c's "tables/hooklock.h" is kmod/tables/hooklock.h);
headers outside DIR are not nodes.  A folder's files including a header
of another folder is an edge between the two folders: the folders are
layers when that graph has no cycle either.  Each strongly connected
component of more than one node (file or folder) is printed with the
edges that hold it together (which file includes which header), and the
exit status is 1.  Run by tests/check.sh's unit stage for userspace/ and
kmod/.  Prints TAP: one "ok"/"not ok" line per directory.
"""
import os
import re
import sys

INC = re.compile(r'\s*#\s*include\s+"([^"]+)"')


def graph(d):
    g = {}      # node -> {node: [(file, header)]}
    root = os.path.normpath(d)
    for dirpath, dirnames, files in os.walk(root):
        dirnames.sort()
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            a = rel.rsplit('.', 1)[0]
            g.setdefault(a, {})
            with open(path, errors='replace') as fh:
                for line in fh:
                    m = INC.match(line)
                    if not m or not m.group(1).endswith('.h'):
                        continue
                    for base in (dirpath, root):
                        p = os.path.normpath(os.path.join(base, m.group(1)))
                        if os.path.exists(p):
                            break
                    else:
                        continue
                    hrel = os.path.relpath(p, root)
                    if hrel.startswith('..'):
                        continue
                    b = hrel[:-2]
                    if b != a:
                        g[a].setdefault(b, []).append((rel, hrel))
    return g


def folders(g):
    """The graph of g's folders: (folder, folder) edges, with their files."""
    fg = {}
    for a, bs in g.items():
        fa = os.path.dirname(a)
        fg.setdefault(fa, {})
        for b, why in bs.items():
            fb = os.path.dirname(b)
            if fb != fa:
                fg[fa].setdefault(fb, []).extend(why)
    return fg


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


def show(g, comps):
    for c in comps:
        print(f'# cycle: {" ".join(c or "." for c in c)}')
        cs = set(c)
        for a in c:
            for b in sorted(g[a]):
                if b in cs:
                    for f, h in g[a][b]:
                        print(f'#   {a or "."} -> {b or "."}  ({f} includes "{h}")')


def main(dirs):
    bad = 0
    for d in dirs:
        g = graph(d)
        fg = folders(g)
        comps = sccs(g)
        fcomps = sccs(fg)
        name = os.path.normpath(d)
        what = 'files' if len(fg) < 2 else f'files, nor between its {len(fg)} folders'
        if not comps and not fcomps:
            print(f'ok - include-cycles: {name}: no cycle between {what}')
            continue
        bad = 1
        print(f'not ok - include-cycles: {name}: {len(comps)} cycle(s) '
              f'in the include graph, {len(fcomps)} between folders')
        show(g, comps)
        show(fg, fcomps)
    return bad


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit('usage: include-cycles.py DIR...')
    sys.exit(main(sys.argv[1:]))
