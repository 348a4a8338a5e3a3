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
    """Where ``path`` keeps a hand-made copy of the registry: a list, tuple or set literal whose
    strings are the registry's modules (or its modules of one class per sample); a dict literal
    keyed by them (a per-module table: its data belongs in the module's entry or test file, or in
    a table keyed by the kind of input); a function that compares a name with three or more of
    the modules (a branch per module)."""
    names = set(MODULE_NAMES)
    wanted = {frozenset(MODULE_NAMES), frozenset(CLASS_MODULES)}

    def strings(nodes):
        return {node.value for node in nodes if isinstance(node, ast.Constant) and isinstance(node.value, str)} & names

    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)) and frozenset(strings(node.elts)) in wanted:
            yield node.lineno
        elif isinstance(node, ast.Dict) and frozenset(strings(node.keys)) in wanted:
            yield node.lineno
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            compared = set()
            for inner in ast.walk(node):
                if isinstance(inner, ast.Compare):
                    for side in (inner.left, *inner.comparators):
                        compared |= strings(side.elts if isinstance(side, (ast.List, ast.Tuple, ast.Set)) else [side])
            if len(compared) >= 3:
                yield node.lineno


def test_the_check_finds_each_kind_of_hand_kept_copy(tmp_path):
    first, second, third, fourth = MODULE_NAMES[:4]
    copies = {
        "a list": f"NAMES = {list(MODULE_NAMES)!r}\n",
        "a table": "CASES = {" + ", ".join(f"{name!r}: {index}" for index, name in enumerate(MODULE_NAMES)) + "}\n",
        "a branch per module": (f"def peer(name):\n    if name == {first!r}:\n        return 1\n    if name == {second!r}:\n"
                                f"        return 2\n    return 3 if name in ({third!r},) else 4\n"),
    }
    for kind, text in copies.items():
        path = tmp_path / "copy.py"
        path.write_text(text, encoding="utf-8")
        assert list(spelled_lists(path)), kind
    # One module named for its own options, and tables keyed by kind of input, are not copies.
    path.write_text(f"KINDS = {{'labels': 1, 'scores': 2}}\nOWN = {{{first!r}: 1}}\n"
                    f"def own(name):\n    return name == {fourth!r}\n", encoding="utf-8")
    assert not list(spelled_lists(path))


def test_no_test_benchmark_or_example_keeps_its_own_list_of_the_modules():
    found = [f"{path.relative_to(REPO_ROOT)}:{line}"
             for folder in ("tests", "benchmarks", "examples", "studies", "shared")
             for path in sorted((REPO_ROOT / folder).rglob("*.py"))
             if path.name not in ("modules.py",) and "shared_" not in path.name
             for line in spelled_lists(path)]
    assert not found, f"lists, tables or branches of the modules kept by hand (use shared/tooling/modules.py): {found}"


@pytest.mark.parametrize("entry", MODULES, ids=lambda entry: entry.name)
def test_each_module_gives_the_registry_tests_what_they_need(entry):
    """Its test file has its peer (``peer_value``, for tests/integration/test_peer_behaviour.py) and its
    Space names its plots (``PLOTS`` in its app.py, which the Space tests draw)."""
    from conftest import module_tests

    assert callable(getattr(module_tests(entry.name), "peer_value", None)), f"tests/modules/test_{entry.name}.py: no peer_value"
    app = ast.parse((REPO_ROOT / entry.name / "app.py").read_text(encoding="utf-8"))
    assigned = {target.id for node in ast.walk(app) if isinstance(node, ast.Assign) for target in node.targets
                if isinstance(target, ast.Name)}
    assert "PLOTS" in assigned, f"{entry.name}/app.py: no PLOTS"
