"""Import cycles among the modules of Rust crates (docs/architecture.md).

    python3 .ci/module-cycles.py crates/registry-core/src crates/registry-server/src ...

prints each crate's module count, edge count and cycles, and exits 1 if any crate has a cycle.

An edge goes from a module's file to every crate module it names: `use crate::a::b`, `crate::a::b::f`
and `super::` paths, and the items of a grouped `use crate::a::{b, c::d}`, each resolved to the
longest module path that exists. A module naming its own descendants is not an edge (that is
declaring them). The storage dispatch `backend_fns! { x; ... }` is an edge to the backends' query
module `store/sql/x.rs`, which `store::sqlite::x` and `store::postgres::x` also name.
"""

import os
import re
import sys


def modules(root):
    found = {}
    for folder, _, files in os.walk(root):
        for name in files:
            if name.endswith(".rs"):
                path = os.path.join(folder, name)
                parts = os.path.relpath(path, root)[:-3].split(os.sep)
                if parts[-1] in ("mod", "lib", "main"):
                    parts = parts[:-1]
                found[tuple(parts)] = path
    return found


def edges_of(mods):
    def resolve(path):
        for n in range(len(path), 0, -1):
            if tuple(path[:n]) in mods:
                return tuple(path[:n])
        return None

    edges = {m: set() for m in mods}
    for module, path in mods.items():
        src = open(path, encoding="utf-8").read()
        src = re.sub(r"//[^\n]*", "", src)
        src = re.sub(r"#\[cfg\(test\)\]\s*mod tests\s*\{.*", "", src, flags=re.S)
        for m in re.finditer(r"backend_fns!\s*\{\s*(\w+);", src):
            edges[module].add(("store", "sql", m.group(1)))
        src = re.sub(r"\bstore::(sqlite|postgres)::(?!dialect\b)(\w+)", r"store::sql::\2", src)
        # `super` is the parent of the module, whichever file (x.rs or x/mod.rs) holds it.
        parent = list(module[:-1])
        targets = []
        for m in re.finditer(r"\b(crate|super)((?:::\w+)+)", src):
            base = [] if m.group(1) == "crate" else parent
            targets.append(base + m.group(2).strip(":").split("::"))
        for m in re.finditer(r"use\s+(crate|super)((?:::\w+)*)::\{([^;]*)\};", src, flags=re.S):
            base = [] if m.group(1) == "crate" else parent
            prefix = base + [p for p in m.group(2).split("::") if p]
            for item in re.split(r"[,{}\s]+", m.group(3)):
                if item and item != "self":
                    targets.append(prefix + item.split("::"))
        for target in targets:
            t = resolve(target)
            if t and t != module and t[: len(module)] != module:
                edges[module].add(t)
    return edges


def strongly_connected(edges):
    index, low, stack, on_stack, found = {}, {}, [], set(), []

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
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    sys.setrecursionlimit(10_000)
    for v in edges:
        if v not in index:
            visit(v)
    return found


def main(roots):
    name = lambda m: "::".join(m) or "crate"
    failed = False
    for root in roots:
        mods = modules(root)
        edges = edges_of(mods)
        found = strongly_connected(edges)
        total = sum(len(e) for e in edges.values())
        print(f"{root}: {len(mods)} modules, {total} edges, {len(found)} cycles")
        for component in found:
            failed = True
            print("  cycle:", ", ".join(sorted(name(m) for m in component)))
            for a in component:
                for b in sorted(edges[a]):
                    if b in component:
                        print(f"    {name(a)} -> {name(b)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
