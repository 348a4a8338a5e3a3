"""Test setup: offline, modules loaded from their local folders, a fresh cache per test."""

import os
import runpy
import sys
import types
from pathlib import Path

import pytest

# Everything runs offline: modules are loaded from local folders or a loopback server.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
# shared/ is one package, imported one way everywhere: ``from shared import labels``.
sys.path.insert(0, str(REPO_ROOT))
# Tests are laid out by what they test (unit/, modules/, properties/, integration/, docs/);
# what they share - the result contract, the fake Hub, the process workers - is in support/.
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))

from shared.tooling import vendor  # noqa: E402
from shared.tooling.modules import MODULES  # noqa: E402

# The modules of the registry (shared/tooling/modules.py) whose folder is here.
MODULE_NAMES = [entry.name for entry in MODULES if (REPO_ROOT / entry.name / f"{entry.name}.py").exists()]

# Each module folder's helpers are generated from shared/ and never committed (make vendor):
# tests load the folders as users do, with helpers generated from shared/ as it is now.
vendor.vendor(check=False)


def card_and_linked_pages(name: str) -> str:
    """A module's card followed by every ``docs/`` page it links to (``../docs/<page>.md``), each
    once: a card summarises a capability and links to its page, and a figure may be quoted in
    either; tests that check a quote against its study read both."""
    import re

    card = (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")
    pages = dict.fromkeys(re.findall(r"\.\./docs/([\w\-]+\.md)", card))
    return "\n\n".join([card, *((REPO_ROOT / "docs" / page).read_text(encoding="utf-8") for page in pages)])


def load_study(name: str):
    """``studies/<name>/study.py`` as the module ``<name>_study``, imported once: every study's
    script is called ``study.py``, so none can be imported by its plain name."""
    import importlib.util

    module_name = f"{name}_study"
    if module_name not in sys.modules:
        spec = importlib.util.spec_from_file_location(module_name, REPO_ROOT / "studies" / name / "study.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[module_name] = module
        spec.loader.exec_module(module)
    return sys.modules[module_name]


def load_module(name: str, **kwargs):
    """``evaluate.load`` of a module folder of this repository, as a user would."""
    import evaluate

    return evaluate.load(str(REPO_ROOT / name), **kwargs)


def run_app(name: str) -> dict:
    """Run ``<name>/app.py`` as a Space runs it (its folder as the working directory and on
    the import path, both restored after); returns the script's namespace. The app imports
    its folder's own generated helper by plain name (``shared_space``): each run imports it
    afresh, never another folder's copy."""
    folder = REPO_ROOT / name
    previous_cwd, previous_path = os.getcwd(), list(sys.path)
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    sys.modules.pop(vendor.SPACE_HELPER, None)
    try:
        return runpy.run_path(str(folder / "app.py"), run_name="space")
    finally:
        os.chdir(previous_cwd)
        sys.path[:] = previous_path
        sys.modules.pop(vendor.SPACE_HELPER, None)


def space_helper(namespace: dict) -> types.SimpleNamespace:
    """The generated helper (``shared_space.py``) an app's namespace was built from: its
    controls and page functions belong together (the same ``_OMITTED``, the same classes)."""
    return types.SimpleNamespace(**namespace["build_app"].__globals__)


def app_controls(namespace: dict, metric) -> list:
    """The controls of an app's page, as its ``build_app`` makes them: from the module's
    ``OPTIONS`` and ``INPUTS``, by the app's own helper (``space_helper``)."""
    return space_helper(namespace).default_options(metric)


def module_tests(name: str) -> types.ModuleType:
    """A module's own test file, ``tests/modules/test_<name>.py``, imported (once: the same module
    object pytest collects). Besides its own tests it holds what the tests that iterate the
    registry need of that module and cannot derive from its kind (``inputs``): ``peer_value``
    (its value by a peer, test_peer_behaviour.py) and, optionally, ``VALUE_OPTIONS`` (the
    options its one value is computed with there and in test_spec_contract.py),
    ``DISTRIBUTED_CASES`` and ``DISTRIBUTED_CLUSTER_CASES`` (test_distributed.py),
    ``LAW_OPTIONS`` (test_metamorphic.py), ``NOTHING_LOST_OPTIONS`` (test_nothing_lost.py),
    ``FAST_PATH_OPTIONS`` (fast_path_data.py), ``HELPER_MAX_LINES`` (test_vendor.py),
    ``fuzz_options`` (test_fuzz.py) and ``TAKES_SCORES`` (its predictions may be scores;
    test_fuzz.py, test_nothing_lost.py). A module without one of the optional names is tested
    with its kind's defaults."""
    import importlib

    folder = str(Path(__file__).resolve().parent / "modules")
    if folder not in sys.path:
        sys.path.insert(0, folder)  # as pytest's default import mode puts it, so the module is shared
    return importlib.import_module(f"test_{name}")


def pytest_configure(config):
    # Balanced accuracy warns (as scikit-learn does) when a class has predictions but no
    # references; parity tests generate such data on purpose. Tests of the warning itself
    # use pytest.warns, which sees it regardless.
    config.addinivalue_line("filterwarnings", "ignore:Recall is undefined for class:UserWarning")
    # Informedness warns by the same rule (issue 33).
    config.addinivalue_line("filterwarnings", "ignore:Informedness is undefined for class:UserWarning")


# The files whose tests take tens of seconds each (child processes, a browser, fuzzing, whole
# scripts), longest first. `make test` gives each file to one of its two workers
# (`-n 2 --dist loadscope`: a file's module fixtures are built once), in this order, so that
# the workers end together on short files rather than one waiting on a long file started last.
LONGEST_FIRST = (
    "integration/test_benchmark_smoke.py",
    "integration/test_release.py",
    "properties/test_fuzz.py",
    "integration/test_cluster_study_smoke.py",
    "integration/test_distributed.py",
    "integration/test_dask_example.py",
    "integration/test_space_browser.py",
    "integration/test_demo.py",
    "integration/test_hub_load_smoke.py",
)


def pytest_collection_modifyitems(session, config, items):
    """The files of ``LONGEST_FIRST`` first, in that order; every other test after them in its
    usual order (a stable sort: each file's tests keep theirs, so module fixtures are made once)."""
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(Path(str(item.fspath)).relative_to(REPO_ROOT / "tests").as_posix(), len(rank)))


@pytest.fixture
def load(tmp_path):
    """Load a metric module by folder name with a cache dir private to the test."""

    def _load(name: str, **kwargs):
        kwargs.setdefault("cache_dir", str(tmp_path / "cache"))
        return load_module(name, **kwargs)

    return _load


@pytest.fixture(scope="session")
def balanced_accuracy():
    return load_module("balanced_accuracy")
