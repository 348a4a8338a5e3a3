"""The registry of modules (``shared/tooling/modules.py``) is the one list of them: it names every
module folder, each entry's metric file and test file exist, and no test, benchmark or example
spells the list again."""

import ast
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from shared.tooling import vendor
from shared.tooling.modules import CLASS_MODULES
from shared.tooling.modules import INPUT_KINDS
from shared.tooling.modules import LABEL_MODULES
from shared.tooling.modules import MODULE_NAMES
from shared.tooling.modules import MODULES
from shared.tooling.modules import module


def test_the_registry_names_every_module_folder_once():
    assert sorted(MODULE_NAMES) == [folder.name for folder in vendor.module_folders()]
    assert len(set(MODULE_NAMES)) == len(MODULE_NAMES)
    assert set(LABEL_MODULES) <= set(CLASS_MODULES) <= set(MODULE_NAMES)


@pytest.mark.parametrize("entry", MODULES, ids=lambda entry: entry.name)
def test_each_entry_has_its_folder_metric_file_and_test_file(entry):
    folder = REPO_ROOT / entry.name
    for name in (f"{entry.name}.py", "README.md", "app.py", "requirements.txt"):
        assert (folder / name).is_file(), folder / name
    assert entry.inputs in INPUT_KINDS
    assert (REPO_ROOT / "tests" / "modules" / f"test_{entry.name}.py").is_file()
    metric_file = f"metrics/{entry.metric_file}.py"
    assert (REPO_ROOT / "shared" / metric_file).is_file()
    # The module's script is built on that file: its generated helper holds it.
    assert f"# shared/{metric_file}: lines" in vendor.generated(folder)[folder / "shared_core.py"]
    # Its value's key is the one its card documents.
    assert f"`{entry.value_key}`" in (folder / "README.md").read_text(encoding="utf-8") or entry.value_key in (
        folder / f"{entry.name}.py").read_text(encoding="utf-8")
    assert module(entry.name) is entry


def test_an_unknown_name_is_refused_with_the_modules():
    with pytest.raises(KeyError, match="expected one of the modules balanced_accuracy, "):
        module("balanced_acuracy")


def spelled_lists(path: Path):
    """The list, tuple and set literals of ``path`` whose strings are the registry's modules, or its
    modules of one class per sample (a hand-kept copy of the registry)."""
    wanted = {frozenset(MODULE_NAMES), frozenset(CLASS_MODULES)}
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            strings = {item.value for item in node.elts if isinstance(item, ast.Constant) and isinstance(item.value, str)}
            if frozenset(strings & set(MODULE_NAMES)) in wanted:
                yield node.lineno


def test_no_test_benchmark_or_example_keeps_its_own_list_of_the_modules():
    found = [f"{path.relative_to(REPO_ROOT)}:{line}"
             for folder in ("tests", "benchmarks", "examples", "studies", "shared")
             for path in sorted((REPO_ROOT / folder).rglob("*.py"))
             if path.name not in ("modules.py",) and "shared_" not in path.name
             for line in spelled_lists(path)]
    assert not found, f"lists of the modules kept by hand (use shared/tooling/modules.py): {found}"
