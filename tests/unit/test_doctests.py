"""The documented examples run as doctests: each module's _KWARGS_DESCRIPTION and the shared helper."""

import doctest
import sys

import evaluate
import pytest

import confusion_core
from conftest import MODULE_NAMES, REPO_ROOT, load_module


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


def test_shared_helper_docstring_examples():
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    attempted = 0
    for test in finder.find(confusion_core, globs={"np": confusion_core.np, **vars(confusion_core)}):
        runner.run(test)
        attempted += len(test.examples)
    assert runner.summarize(verbose=False).failed == 0 and attempted > 0
