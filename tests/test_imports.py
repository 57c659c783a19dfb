"""No import cycles between the package's modules (Python) or the front end's (JS); no optional engine
loaded by ``import attn_widget``."""

from __future__ import annotations

import ast
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _python_graph() -> dict[str, set[str]]:
    """Module → the package modules it imports (relative imports, at any depth in the file)."""
    package = ROOT / "attn_widget"
    modules = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(ROOT).with_suffix("").parts
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in modules.items():
        base = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        deps = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                parent = ".".join(base[: len(base) - node.level + 1])
                target = f"{parent}.{node.module}" if node.module else parent
                if node.module and target in modules:
                    deps.add(target)
                deps |= {f"{target}.{alias.name}" for alias in node.names} & modules.keys()
        # Importing a.b.c runs the package a.b's __init__ first: an edge to it too, unless the module is inside it
        # (its package is already being imported) or it is the root (which imports the public API, so everything).
        deps |= {parent for dep in deps for parent in _parents(dep)} - set(_parents(name)) - {name}
        graph[name] = deps - {name}
    return graph


def _parents(module: str) -> list[str]:
    """The packages between the root and ``module``: attn_widget.methods for attn_widget.methods.flow."""
    parts = module.split(".")
    return [".".join(parts[:end]) for end in range(2, len(parts))]


def _js_graph() -> dict[str, set[str]]:
    return {
        path.name: set(re.findall(r'from "\./([\w.]+)"', path.read_text()))
        for path in (ROOT / "js" / "src").glob("*.js")
    }


def _cycle(graph: dict[str, set[str]]) -> list[str]:
    """One import cycle, or [] (depth-first search)."""
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str]:
        state[node] = 1
        path.append(node)
        for dep in sorted(graph.get(node, ())):
            if state.get(dep) == 1:
                return path[path.index(dep) :] + [dep]
            if dep not in state and (found := visit(dep)):
                return found
        state[node] = 2
        path.pop()
        return []

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return []


def test_python_modules_import_without_cycles():
    assert _cycle(_python_graph()) == []


def test_each_module_imports_first():
    """Each module imported first, with nothing of the package loaded and its root ``__init__`` left out (as if it
    were empty): a cycle hidden by the order ``__init__`` imports things in fails here with "partially
    initialized module". One interpreter; the package's modules are dropped before each import."""
    code = """
import importlib, sys, types
failed = []
for name in sys.argv[1:]:
    for loaded in [m for m in sys.modules if m == "attn_widget" or m.startswith("attn_widget.")]:
        del sys.modules[loaded]
    root = types.ModuleType("attn_widget")
    root.__path__ = ["attn_widget"]
    sys.modules["attn_widget"] = root
    try:
        importlib.import_module(name)
    except Exception as exc:
        failed.append(f"{name}: {exc}")
print("\\n".join(failed))
"""
    modules = sorted(name for name in _python_graph() if name != "attn_widget")
    found = subprocess.run(
        [sys.executable, "-c", code, *modules], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert found.returncode == 0, found.stderr[-2000:]
    assert len(modules) > 80 and found.stdout.strip() == ""


def test_js_modules_import_without_cycles():
    assert _cycle(_js_graph()) == []


def test_importing_the_package_loads_no_optional_engine():
    """numba (flow, norms), Ray, pyarrow, pandas and datasets load when first used, not with ``import attn_widget``."""
    heavy = ("numba", "ray", "pyarrow", "pandas", "datasets")
    code = f"import sys, attn_widget; print(sorted(m for m in {heavy!r} if m in sys.modules))"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert found.stdout.strip() == "[]"
