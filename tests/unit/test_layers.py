"""No import inside ``shared/`` runs up the layers, and no private name crosses a file.

The order of the layers is the table under "## The layers" in ``shared/README.md``, read
here: a file may import from its own sub-package and from the sub-packages above it in that
table, never from one below (``counting/`` <- ``stats/`` <- ``glue/`` <- ``metrics/`` <-
``judges/`` <- ``space/`` <- ``tooling/``). So the table and the code cannot disagree.
"""

import ast
import re
from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"


def layer_order():
    """The sub-packages in the order of the README's table of layers (lowest first)."""
    text = (SHARED / "README.md").read_text(encoding="utf-8")
    table = text.split("## The layers", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"^\| `(\w+)/` \|", table, flags=re.MULTILINE)


def relative_imports(path: Path, root: Path = SHARED):
    """``(line, sub-package imported from, names)`` of every relative import of ``path`` (in functions too)."""
    package = path.relative_to(root).parts[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level:
            assert node.level in (1, 2), f"{path}:{node.lineno}: {ast.unparse(node)}"
            target = package if node.level == 1 else (node.module or "").split(".")[0]
            yield node.lineno, target, [alias.name for alias in node.names]


SOURCES = sorted(path for path in SHARED.rglob("*.py") if path.parent != SHARED)


def test_the_readme_table_names_every_sub_package_once():
    order = layer_order()
    assert len(order) == len(set(order))
    assert set(order) == {path.relative_to(SHARED).parts[0] for path in SOURCES}
    assert order[:5] == ["counting", "stats", "glue", "metrics", "judges"]


@pytest.mark.parametrize("path", SOURCES, ids=lambda path: str(path.relative_to(SHARED)))
def test_no_import_runs_up_the_layers_and_no_private_name_crosses_a_file(path):
    order = layer_order()
    own = order.index(path.relative_to(SHARED).parts[0])
    for line, target, names in relative_imports(path):
        assert target in order, f"{path.relative_to(SHARED)}:{line} imports from an unknown sub-package {target!r}"
        assert order.index(target) <= own, (
            f"{path.relative_to(SHARED)}:{line} imports {names} from {target}/, a layer above its own "
            f"(order: {' <- '.join(order)})")
        private = [name for name in names if name.startswith("_")]
        assert not private, f"{path.relative_to(SHARED)}:{line} imports the private {private}"


def test_the_check_sees_an_upward_import(tmp_path):
    """The test above would fail on an upward or private import (here, a made-up stats/ file)."""
    (tmp_path / "stats").mkdir()
    bad = tmp_path / "stats" / "bad.py"
    bad.write_text("def f():\n    from ..glue.options import check_flag\n    from .rates import _private\n", encoding="utf-8")
    found = list(relative_imports(bad, tmp_path))
    assert [(target, names) for _, target, names in found] == [("glue", ["check_flag"]), ("stats", ["_private"])]
    order = layer_order()
    assert order.index("glue") > order.index("stats")


def test_the_readme_has_one_line_for_every_file():
    """``shared/README.md``'s "One line per file" table names every file of ``shared/``, and no other."""
    table = (SHARED / "README.md").read_text(encoding="utf-8").split("## One line per file", 1)[1]
    rows = re.findall(r"^\| `([\w/]+\.py)` \|", table, flags=re.MULTILINE)
    files = sorted(str(path.relative_to(SHARED)) for path in SOURCES if path.name != "__init__.py")
    assert sorted(rows) == files
