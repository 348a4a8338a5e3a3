"""make vendor (shared/tooling/vendor.py): each generated helper holds the top-level definitions
its consumer can reach, defines every name the consumer imports, uses no undefined name, and
maps each of its lines back to the identical line of shared/.

The release tests (tests/integration/test_release.py) cover the rest: one meaning per name,
``--check``, a folder of only the script and its helper computing the same, a traceback's
line traced back."""

import ast
import builtins
import importlib.util
import math
import re
import symtable

import pytest

from conftest import MODULE_NAMES, REPO_ROOT, load_module, module_tests
from shared.tooling import vendor

HELPERS = [(name, consumer) for name in MODULE_NAMES for consumer in (f"{name}.py", "app.py")]
# Lines of each generated helper. Copying whole files gave shared_core 8,034 (balanced accuracy),
# 8,040 (multilabel), 7,638 (top-k), 9,764 (informedness) and shared_space 2,311; definitions
# reached gave 5,973 / 3,994 / 3,572 / 8,182 and 1,684, and with the metric-centred files, the
# judges' counting and the Space's judges panel 6,044 / 4,084 / 3,680 / 8,258 and 1,908; informedness
# then 8,822 with several models through one judge; with score-giving judges balanced accuracy 6,515
# and informedness 9,319; with the exact binned Youden search 6,915 / 4,519 / 3,713 / 9,719 (balanced
# accuracy and multilabel over the 6,500 and 4,500 aimed at); with one Youden sort instead of two,
# the counting of baseline_predictions and judges= written once, and the methods only balanced
# accuracy and informedness call (Store.rows, ClusterSpec.ids, JointCounts.regrouped,
# CountTable.dense) made functions, 6,861 / 4,407 / 3,664 / 9,660; with code repeated across
# counting, glue, judges and informedness written once, 6,507 / 4,271 / 3,571 / 9,049 (balanced
# accuracy 7 lines over: every definition it carries is one its features call). Each bound is its
# size plus a margin. Informedness calls nearly every definition of the files it draws on (judges,
# baseline, several models through one judge, corrected prevalence): its bound only catches a
# return to whole files.
# The most lines a Space's helper may have; a script's helper: its test file's HELPER_MAX_LINES, or
# HELPER_LINES_CAP for a module whose test file sets none.
MAX_APP_LINES = 2000
HELPER_LINES_CAP = 10_000


def max_lines(name, consumer):
    if consumer == "app.py":
        return MAX_APP_LINES
    return getattr(module_tests(name), "HELPER_MAX_LINES", HELPER_LINES_CAP)
MODULE_DUNDERS = {"__name__", "__file__", "__doc__", "__spec__", "__loader__", "__package__", "__builtins__"}


@pytest.fixture(scope="module", autouse=True)
def helpers_written():
    vendor.vendor(check=False)


def helper_path(name, consumer):
    return vendor.helper_files(REPO_ROOT / name)[consumer]


def undefined_names(text, filename):
    """Names some scope of ``text`` reads as module-level names that the module never binds
    (pyflakes' undefined-name check, from the compiler's own symbol tables)."""
    top = symtable.symtable(text, filename, "exec")
    bound = {symbol.get_name() for symbol in top.get_symbols() if symbol.is_assigned() or symbol.is_imported()}
    read = {symbol.get_name() for symbol in top.get_symbols() if symbol.is_referenced()}
    stack = list(top.get_children())
    while stack:
        table = stack.pop()
        stack.extend(table.get_children())
        for symbol in table.get_symbols():
            if symbol.is_global():
                (bound if symbol.is_declared_global() and symbol.is_assigned() else read).add(symbol.get_name())
    return read - bound - set(dir(builtins)) - MODULE_DUNDERS


@pytest.mark.parametrize("name, consumer", HELPERS)
def test_a_helper_compiles_alone_and_defines_every_name_its_consumer_imports(name, consumer):
    path = helper_path(name, consumer)
    text = path.read_text(encoding="utf-8")
    compile(text, str(path), "exec")
    assert undefined_names(text, str(path)) == set()
    # Imported afresh under a name of its own: nothing else is in its namespace.
    spec = importlib.util.spec_from_file_location(f"fresh_{name}_{path.stem}", path)
    helper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(helper)
    wanted = vendor.wanted_names(REPO_ROOT / name / consumer, path.stem)
    assert wanted and [item for item in wanted if not hasattr(helper, item)] == []
    lines = len(text.splitlines())
    assert lines <= max_lines(name, consumer), f"{path.relative_to(REPO_ROOT)}: {lines} lines"


def test_the_undefined_name_check_finds_one():
    text = "import os\n\ndef f(x=y):\n    return os.sep + g() + x + [z for z in w][0]\n\nclass C:\n    a = 1\n    b = a + q\n"
    assert undefined_names(text, "<test>") == {"y", "g", "w", "q"}


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_only_the_modules_that_take_judges_or_a_baseline_carry_their_code(name):
    text = helper_path(name, f"{name}.py").read_text(encoding="utf-8")
    defined = {node.name for node in ast.parse(text).body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    paired = {"PairedCounts", "JudgesCounts", "comparison_from_counts", "ranking_from_counts", "cluster_swap_p_value",
              "maxt_p_values", "count_judges_batch"}
    takes_judges = bool({"judges", "baseline_predictions"} & set(load_module(name).INPUTS))
    assert paired <= defined if takes_judges else not paired & defined


def untraced_lines(lines):
    """The header, then per file a blank line, a rule, its first banner and a rule; per later run a blank line and its banner."""
    banners = sum(1 for text in lines if vendor._BANNER.match(text))
    files = len({vendor._BANNER.match(text)["file"] for text in lines if vendor._BANNER.match(text)})
    return lines.index('"""', 1) + 1 + 2 * banners + 2 * files


@pytest.mark.parametrize("name, consumer", HELPERS)
def test_every_line_of_a_helper_is_its_shared_line_or_a_banner(name, consumer):
    path = helper_path(name, consumer)
    lines = path.read_text(encoding="utf-8").splitlines()
    traced = vendor.line_sources(path)
    header_end = lines.index('"""', 1) + 1  # the generated docstring
    files = {}
    for number, text in enumerate(lines, 1):
        if number not in traced:
            # Untraced: the header, a banner (with the rule around a file's first one) or the blank line before it.
            assert number <= header_end or text in ("", vendor.BANNER_RULE) or vendor._BANNER.match(text), (number, text)
            continue
        file, line = traced[number].rsplit(":", 1)
        source = files.setdefault(file, (REPO_ROOT / file).read_text(encoding="utf-8").splitlines())
        original = source[int(line) - 1]
        # A relative import inside a definition is commented out in place; every other line is the source's own.
        assert text == original or "# vendored: " in text and original.strip() in text, (number, text, traced[number])
    assert untraced_lines(lines) == len(lines) - len(traced)
    assert int(re.search(r"(\d+) of the \d+ lines", " ".join(lines[:header_end]))[1]) == len(traced)  # as the header says
    for number in [*range(1, len(lines) + 1, 211), len(lines)]:  # --where says what the one-pass map says
        assert vendor.where(f"{path}:{number}") == traced.get(
            number, f"{path}:{number}: the generated header or a banner, not a line of shared/")


# ---------------------------------------------------------------- what is kept, on a small package


BASE = '''"""A file of the package: its docstring is not copied."""

import math
import os

REGISTRY = {}


def unused():
    return os.getcwd()


def decorate(cls):
    return cls


SCALE = 2


# The base class, with the comment above it.
class Base:
    SCALE = SCALE  # a class body reads the module's SCALE before binding its own


DEFAULT = 9


def helper(x):
    return math.sqrt(x)


REGISTRY.update(base=Base)  # not a definition: kept with its file
'''

EXTRA = '''import os

if os.sep:  # a block: what it binds is found, and it is kept with its file
    def platform_note():
        return "note"

LIMITS = [1]
LIMITS += [2]  # not a plain definition: kept with its file, and what it reads with it
'''

TOP = '''from .base import Base
from .base import DEFAULT
from .base import decorate
from .base import helper
from .base import unused
from .extra import platform_note


@decorate
class Thing(Base):
    note = platform_note

    def method(self, value=DEFAULT):
        unused = self.SCALE  # a local spelled like a top-level name
        return helper(value) + unused


def other():
    return unused()
'''


def test_a_helper_keeps_what_the_imported_names_reach_and_maps_each_line(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "base.py").write_text(BASE, encoding="utf-8")
    (tmp_path / "pkg" / "top.py").write_text(TOP, encoding="utf-8")
    (tmp_path / "pkg" / "extra.py").write_text(EXTRA, encoding="utf-8")
    text = vendor.flat_helper("some_metric/some_metric.py", ["Thing"], "shared_core.py", vendor.read_sources(tmp_path))
    tree = ast.parse(text)
    kept = {node.name for node in tree.body if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    assert kept == {"decorate", "Base", "helper", "Thing"}  # not unused (only a local of that name), nor other
    imported = {alias.name for node in tree.body if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}
    assert imported == {"math", "os"}  # base.py's os only served unused; relative imports are not copied
    assert text.count("import os") == 1 and "\nLIMITS = [1]\n" in text and "if os.sep:" in text
    assert "# The base class, with the comment above it." in text and "its docstring is not copied" not in text
    namespace = {}
    exec(compile(text, "shared_core.py", "exec"), namespace)
    assert namespace["Thing"]().method() == math.sqrt(9) + 2 and namespace["REGISTRY"] == {"base": namespace["Base"]}
    assert namespace["Thing"].note() == "note" and namespace["LIMITS"] == [1, 2]
    helper = tmp_path / "shared_core.py"
    helper.write_text(text, encoding="utf-8")
    traced = vendor.line_sources(helper)
    number = text.splitlines().index("        return helper(value) + unused") + 1
    assert traced[number] == f"shared/pkg/top.py:{TOP.splitlines().index('        return helper(value) + unused') + 1}"
    number = text.splitlines().index("REGISTRY.update(base=Base)  # not a definition: kept with its file") + 1
    assert traced[number] == f"shared/pkg/base.py:{BASE.splitlines().index('REGISTRY.update(base=Base)  # not a definition: kept with its file') + 1}"
    assert len(traced) == len(text.splitlines()) - untraced_lines(text.splitlines())
