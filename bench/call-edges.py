#!/usr/bin/env python3
"""Lists the bench's file-level call edges and fails on a cycle.

    bench/call-edges.py <builddir>

For every object file of gst-cudasync-bench, each symbol it uses (nm: U)
is resolved to the object file that defines it; the edges are printed as
"file -> files it calls into", then the groups of files that call into
each other (strongly connected components of more than one file). Exits 1
when there is such a group.
"""
import glob
import os
import subprocess
import sys


def symbols(obj):
    """(defined, undefined) external symbols of @obj"""
    out = subprocess.run(['nm', obj], capture_output=True, text=True,
                         check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == 'U':
            undefined.add(fields[1])
        elif len(fields) == 3 and fields[1] in 'TDRBCG':
            defined.add(fields[2])
    return defined, undefined


def edges_of(objs):
    owner, uses = {}, {}
    for obj in objs:
        name = os.path.basename(obj).replace('.c.o', '.c')
        defined, undefined = symbols(obj)
        for sym in defined:
            owner[sym] = name
        uses[name] = undefined
    return {name: sorted({owner[s] for s in used if s in owner} - {name})
            for name, used in uses.items()}


def cycles(edges):
    """Tarjan's strongly connected components of more than one node"""
    index, low, stack, on_stack, groups = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return groups


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__.strip())
    pattern = os.path.join(sys.argv[1], 'bench', 'gst-cudasync-bench.p',
                           '*.o')
    objs = sorted(glob.glob(pattern))
    if not objs:
        sys.exit('call-edges: no object files in ' + pattern)
    edges = edges_of(objs)
    for name in sorted(edges):
        print('%s -> %s' % (name, ', '.join(edges[name])))
    print('%d edges between %d files' % (sum(map(len, edges.values())),
                                          len(edges)))
    groups = cycles(edges)
    for group in groups:
        print('cycle: ' + ' '.join(group))
    print('%d cycles' % len(groups))
    return 1 if groups else 0


if __name__ == '__main__':
    sys.exit(main())
