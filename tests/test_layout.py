"""The package layout is the architecture: every module's imports (module level and inside functions, absolute
``kernelgym.*`` and relative) go downwards through the layers below, never up and never round in a cycle.

Read with :mod:`ast` only (nothing is imported), so a violation is reported as the offending edges."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "kernelgym"

#: Layer of each top-level part of the package (lower imports nothing higher). Parts on one layer must not form a
#: cycle either (checked over the whole graph of parts).
LAYERS: dict[str, int] = {
    # foundations: import nothing of kernelgym above them
    "_version": 0, "hardware": 0, "progress": 0, "parsing": 0, "validation": 0,
    "tasks": 1,                      # Task, TaskSet, loaders (the bundled suite/ is package data)
    "judge": 2,                      # the trusted judge, its worker, the footprint bound and the task linter
    "testing": 2,                    # test candidates: tasks + the judge's worker, by name
    "evaluators": 3,                 # the Evaluator protocol, LocalEvaluator, JudgePool, RayEvalPool
    "rewards": 4, "scoring": 4,      # reward functions; metrics and reports (pure functions over results)
    "envs": 5,                       # KernelEnv, registration, KernelVectorEnv
    "data": 6,                       # policies, records, writers, collection, folder evaluation
    "integrations": 7,               # trainer adapters (TRL, veRL, SkyRL, RLlib)
    "distributed": 7,                # compatibility alias of RayEvalPool and KernelVectorEnv
    "cli": 8,                        # the command line
    "__init__": 8,                   # ``import kernelgym``: registers the envs, re-exports the basics
}

#: The untrusted worker's entry points: only the judge and the task loader (and the foundations) below them.
WORKER_MODULES = ("kernelgym.judge.bootstrap", "kernelgym.judge.worker")
WORKER_FORBIDDEN = ("evaluators", "envs", "scoring", "data", "integrations", "cli", "rewards", "distributed")


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules() -> dict[str, Path]:
    """Every importable module of the package (the bundled suite is data, read by path)."""
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))
            if p.relative_to(PACKAGE).parts[0] != "suite" and p.relative_to(PACKAGE).parts[:2] != ("testing", "tasks")}


def imports_of(name: str, path: Path) -> set[str]:
    """The kernelgym modules ``name`` imports, anywhere in its file."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == "kernelgym")
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = name.split(".") if is_package else name.split(".")[:-1]
                base = base[:len(base) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] != "kernelgym":
                continue
            out.add(module)
            out.update(f"{module}.{a.name}" for a in node.names)  # ``from kernelgym import metrics`` is a module
    return out


def graph() -> dict[str, set[str]]:
    modules = package_modules()
    edges = {}
    for name, path in modules.items():
        targets = set()
        for target in imports_of(name, path):
            while target not in modules and "." in target:  # ``from kernelgym.x import Name`` -> kernelgym.x
                target = target.rsplit(".", 1)[0]
            if target in modules and target != name:
                targets.add(target)
        edges[name] = targets
    return edges


def part(module: str) -> str:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_part_of_the_package_has_a_layer():
    missing = sorted({part(m) for m in package_modules()} - set(LAYERS))
    assert not missing, f"parts of kernelgym/ with no layer in LAYERS: {missing}"


def test_no_import_goes_up_a_layer():
    bad = [f"{src} -> {dst}  ({part(src)}: layer {LAYERS[part(src)]} -> {part(dst)}: layer {LAYERS[part(dst)]})"
           for src, targets in sorted(graph().items()) for dst in sorted(targets)
           if LAYERS.get(part(src), 99) < LAYERS.get(part(dst), 99)]
    assert not bad, "imports from a lower layer to a higher one:\n" + "\n".join(bad)


def test_no_cycle_between_parts():
    edges: dict[str, set[str]] = {}
    witness: dict[tuple[str, str], str] = {}
    for src, targets in graph().items():
        for dst in targets:
            a, b = part(src), part(dst)
            if a != b and a != "__init__" and b != "__init__":
                edges.setdefault(a, set()).add(b)
                witness.setdefault((a, b), f"{src} -> {dst}")
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                cycle = stack[stack.index(nxt):] + [node, nxt] if nxt in stack else [node, nxt]
                cycles.append(" | ".join(witness[(x, y)] for x, y in zip(cycle, cycle[1:])))
            elif nxt not in state:
                visit(nxt, stack + [node])
        state[node] = 2

    for node in sorted(edges):
        if node not in state:
            visit(node, [])
    assert not cycles, "import cycles between parts of kernelgym/:\n" + "\n".join(cycles)


def test_the_worker_entry_imports_only_the_judge_and_the_tasks():
    edges = graph()
    reached, todo = set(), list(WORKER_MODULES)
    while todo:  # everything the worker's entry modules import, transitively
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(edges.get(module, ()))
    bad = sorted(f"{src} -> {dst}" for src in reached for dst in edges.get(src, ()) if part(dst) in WORKER_FORBIDDEN)
    assert not bad, "the worker's entry reaches modules above the judge:\n" + "\n".join(bad)


def test_the_import_graph_is_read():
    """The test itself sees imports inside functions and relative ones."""
    edges = graph()
    assert "kernelgym.judge.runner" in edges["kernelgym.judge"]  # in a function
    assert "kernelgym.tasks.task" in edges["kernelgym.tasks.loading"]
    assert "kernelgym.evaluators.local" in edges["kernelgym.evaluators.judge_pool"]
