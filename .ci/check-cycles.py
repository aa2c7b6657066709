#!/usr/bin/env python3
# gst-cudasync
# Copyright (C) 2026 gst-cudasync developers
# SPDX-License-Identifier: LGPL-2.1-or-later
"""File-level call edges between the object files of a library or program.

  check-cycles.py OBJDIR [OBJDIR ...]

Reads the global symbols each object file defines and the ones it uses
(nm), prints every edge "A -> B (n)": A uses n symbols that B defines,
then the cycles (strongly connected components of more than one file).
Exits 1 when there is a cycle. Run it on an object folder, e.g.
build/gst/cudasync/libgstcudasync-1.0.so.0.1.0.p (the library),
build/gst/plugin/libgstcudasync.so.p (the plugin) or
build/bench/gst-cudasync-bench.p (the bench).
"""
import collections
import os
import subprocess
import sys


def unit(path):
    name = os.path.basename(path)
    for suffix in ('.c.o', '.o'):
        if name.endswith(suffix):
            return name[:-len(suffix)]
    return name


def read_symbols(path):
    out = subprocess.run(['nm', '--format=posix', path], check=True,
                         capture_output=True, text=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        sym, kind = fields[0], fields[1]
        if kind == 'U':
            used.add(sym)
        elif kind.isupper():
            defined.add(sym)
    return defined, used


def sccs(nodes, edges):
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            out.append(sorted(comp))

    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return out


def main(dirs):
    objects = {}
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith('.o'):
                objects[unit(name)] = read_symbols(os.path.join(d, name))
    owner = {}
    for name, (defined, _) in objects.items():
        for sym in defined:
            owner[sym] = name
    counts = collections.Counter()
    for name, (_, used) in objects.items():
        for sym in used:
            if sym in owner and owner[sym] != name:
                counts[(name, owner[sym])] += 1
    edges = collections.defaultdict(set)
    for (a, b), n in sorted(counts.items()):
        print('%s -> %s (%d)' % (a, b, n))
        edges[a].add(b)
    cycles = [c for c in sccs(objects, edges) if len(c) > 1]
    for c in cycles:
        print('cycle: ' + ' <-> '.join(c))
    print('%d files, %d edges, %d cycles' % (len(objects), len(counts),
                                             len(cycles)))
    return 1 if cycles else 0


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
