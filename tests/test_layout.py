"""The package's shape: one subpackage per stage, no import cycles, light
commands stay light, and the old entry points still work."""

import ast
import subprocess
import sys
from pathlib import Path

import pytest
import setuptools

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mockgo"


def module_name(path):
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def top_level_imports():
    """Module -> the mockgo modules its top level imports (function-level
    imports are left out: they run later, when the importer is complete)."""
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {}
    for name, path in modules.items():
        targets = set()
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.Import):
                targets |= {a.name for a in node.names if a.name.startswith("mockgo.")}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("mockgo"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    targets.add(full if full in modules else node.module)
        graph[name] = {t for t in targets if t in modules and t != "mockgo"}
    return graph


def test_no_import_cycles():
    graph = top_level_imports()
    visiting, done, cycles = [], set(), []

    def visit(module):
        if module in done:
            return
        if module in visiting:
            cycles.append(visiting[visiting.index(module):] + [module])
            return
        visiting.append(module)
        for target in sorted(graph[module]):
            visit(target)
        visiting.pop()
        done.add(module)

    for module in sorted(graph):
        visit(module)
    assert not cycles, "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_every_subpackage_is_packaged():
    found = set(setuptools.find_packages(str(ROOT), include=["mockgo", "mockgo.*"]))
    folders = {module_name(p) for p in PACKAGE.rglob("__init__.py")}
    assert found == folders
    assert {"mockgo.go", "mockgo.data", "mockgo.nets", "mockgo.search", "mockgo.play",
            "mockgo.learn", "mockgo.zero", "mockgo.arena"} <= folders


def test_the_readme_imports_still_work():
    from mockgo import Board, coords  # the README's first example

    board = Board(9)
    board.play(coords.from_gtp("E5", 9))
    assert coords.to_gtp(board.history[-1][1], 9) == "E5"


def test_a_gtp_game_with_the_random_player_does_not_import_tensorflow():
    code = """
import sys
from mockgo.gtp.server import GTPServer
from mockgo.play.players import make_player
server = GTPServer(make_player("random"), size=9)
for line in ("boardsize 9", "clear_board", "genmove b", "play w D4", "genmove b"):
    assert server.handle(line).startswith("="), line
heavy = sorted(m for m in ("tensorflow", "keras") if m in sys.modules)
assert not heavy, heavy
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]


# Split for issue 34, "one concept a module": none of these folders' modules
# may grow back to a thousand lines.
SPLIT_FOLDERS = ["play", "data"]


@pytest.mark.parametrize("folder", SPLIT_FOLDERS)
def test_no_module_of_a_split_folder_is_over_700_lines(folder):
    """One concept a module (issue 34): in mockgo/play/, the players, their
    protocol and their specs live in modules of their own; in mockgo/data/,
    charset decoding, SGF reading, archives and SGF writing do."""
    long = {module_name(p): n for p in (PACKAGE / folder).glob("*.py")
            if (n := len(p.read_text().splitlines())) > 700}
    assert not long, f"modules of mockgo/{folder}/ over 700 lines: {long}"
