"""The documented examples run as doctests: each module's _KWARGS_DESCRIPTION and every shared core file."""

import doctest
import importlib
import sys

import evaluate
import numpy as np
import pytest

from conftest import MODULE_NAMES, REPO_ROOT, load_module

# Every file of the package ``shared`` and its sub-packages (the helpers are flattened from them), imported as such.
CORE_FILES = sorted(".".join(path.relative_to(REPO_ROOT / "shared").with_suffix("").parts)
                    for path in (REPO_ROOT / "shared").rglob("*.py") if path.stem != "__init__")


def run_doctest(text, name, globs):
    parser = doctest.DocTestParser()
    test = parser.get_doctest(text, globs, name, None, 0)
    assert test.examples, f"{name} has no doctest examples"
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    return runner.summarize(verbose=False)


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_kwargs_description_examples(name, monkeypatch):
    # The examples load "<name>" the way users do; from the repository root that is the local folder.
    monkeypatch.chdir(REPO_ROOT)
    metric = load_module(name)
    script = sys.modules[type(metric).__module__]
    results = run_doctest(script._KWARGS_DESCRIPTION, name, {"evaluate": evaluate})
    assert results.failed == 0 and results.attempted > 0


@pytest.mark.parametrize("name", CORE_FILES)
def test_shared_core_docstring_examples(name):
    core_file = importlib.import_module(f"shared.{name}")
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(core_file, globs={"np": np, **vars(core_file)}):
        runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_the_core_files_have_examples():
    attempted = 0
    for name in CORE_FILES:
        core_file = importlib.import_module(f"shared.{name}")
        attempted += sum(len(test.examples) for test in doctest.DocTestFinder().find(core_file))
    assert attempted >= 50
