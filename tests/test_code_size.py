"""No module in explainer/ is over 400 lines and no function over 80.

ARCHITECTURE.md ("Split, never squeeze") asks for modules of one concept, a few hundred lines at
most, and short functions; this test keeps that true, naming every module and function that grows
past the limit so the failure says where to split.
"""

from __future__ import annotations

import ast

from tests.support.package import modules as package_modules

MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80


def _findings(name: str, source: str) -> tuple[list[str], list[str]]:
    """The module (if over MAX_MODULE_LINES) and its functions over MAX_FUNCTION_LINES."""
    modules: list[str] = []
    functions: list[str] = []
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES:
        modules.append(f"explainer/{name}: {lines} lines")
    for node in ast.walk(ast.parse(source, filename=name)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            assert node.end_lineno is not None
            length = node.end_lineno - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                functions.append(f"explainer/{name}:{node.lineno} {node.name}: {length} lines")
    return modules, functions


def _too_long() -> tuple[list[str], list[str]]:
    modules: list[str] = []
    functions: list[str] = []
    for name, source in package_modules():
        found_modules, found_functions = _findings(name, source)
        modules += found_modules
        functions += found_functions
    return modules, functions


def test_the_package_is_found():
    names = [name for name, _ in package_modules()]
    assert "cli.py" in names and len(names) > 100


def test_no_module_is_over_400_lines():
    modules, _ = _too_long()
    assert not modules, "split these modules by what they hold:\n" + "\n".join(modules)


def test_no_function_is_over_80_lines():
    _, functions = _too_long()
    assert not functions, "break these functions into named steps:\n" + "\n".join(functions)


def test_the_check_names_a_long_method_and_a_long_module():
    body = "\n".join(f"        x{i} = {i}" for i in range(MAX_FUNCTION_LINES - 1))
    short = "\n".join(f"y{i} = {i}" for i in range(MAX_MODULE_LINES - 84))
    source = f"class A:\n    def fits(self):\n{body}\n\n    def long(self):\n{body}\n        z = 1\n{short}\n"
    modules, functions = _findings("a.py", source)
    assert functions == [f"explainer/a.py:{MAX_FUNCTION_LINES + 3} long: {MAX_FUNCTION_LINES + 1} lines"]
    assert modules == [f"explainer/a.py: {len(source.splitlines())} lines"]
