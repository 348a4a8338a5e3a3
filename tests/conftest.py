"""Test setup: offline, modules loaded from their local folders, a fresh cache per test."""

import os
import runpy
import sys
from pathlib import Path

import pytest

# Everything runs offline: modules are loaded from local folders or a loopback server.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("HF_EVALUATE_OFFLINE", "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
MODULE_NAMES = [
    name
    for name in ("balanced_accuracy", "balanced_accuracy_multilabel", "balanced_topk_accuracy", "informedness")
    if (REPO_ROOT / name / f"{name}.py").exists()
]
sys.path.insert(0, str(REPO_ROOT / "shared"))
# Tests are laid out by what they test (unit/, modules/, properties/, integration/, docs/);
# what they share - the result contract, the fake Hub, the process workers - is in support/.
sys.path.insert(0, str(Path(__file__).resolve().parent / "support"))
# The core files import each other relatively (``from .inputs import ...``): tests import
# them as the package ``shared`` (``from shared import labels``).
if str(REPO_ROOT) not in sys.path:
    sys.path.append(str(REPO_ROOT))


def load_module(name: str, **kwargs):
    """``evaluate.load`` of a module folder of this repository, as a user would."""
    import evaluate

    return evaluate.load(str(REPO_ROOT / name), **kwargs)


def run_app(name: str) -> dict:
    """Run ``<name>/app.py`` as a Space runs it (its folder as the working directory and on
    the import path, both restored after); returns the script's namespace."""
    folder = REPO_ROOT / name
    previous_cwd, previous_path = os.getcwd(), list(sys.path)
    os.chdir(folder)
    sys.path.insert(0, str(folder))
    try:
        return runpy.run_path(str(folder / "app.py"), run_name="space")
    finally:
        os.chdir(previous_cwd)
        sys.path[:] = previous_path


def pytest_configure(config):
    # Balanced accuracy warns (as scikit-learn does) when a class has predictions but no
    # references; parity tests generate such data on purpose. Tests of the warning itself
    # use pytest.warns, which sees it regardless.
    config.addinivalue_line("filterwarnings", "ignore:Recall is undefined for class:UserWarning")


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
