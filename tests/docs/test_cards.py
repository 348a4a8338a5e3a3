"""Each module folder is a complete Space: card front matter and sections, app, requirements."""

import ast
import re
import types

import pytest

from shared.tooling import vendor

from conftest import MODULE_NAMES, REPO_ROOT

from shared.tooling.release import CARD_KEYS as FRONT_MATTER_KEYS  # the release command validates the same card
from shared.tooling.release import CARD_SECTIONS as SECTIONS
from shared.tooling import release
from test_readme import github_anchors


def front_matter(name):
    text = (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n", text, flags=re.S)
    assert match, f"{name}/README.md has no YAML front matter"
    return match.group(1), text


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_card_front_matter_and_sections(name):
    header, text = front_matter(name)
    keys = {line.split(":", 1)[0] for line in header.splitlines() if re.match(r"^\w+:", line)}
    assert set(FRONT_MATTER_KEYS) <= keys, set(FRONT_MATTER_KEYS) - keys
    assert "sdk: gradio" in header and "app_file: app.py" in header
    assert re.search(r"tags:\n- evaluate\n- metric", header)
    headings = re.findall(r"^#{2,3} (.+)$", text, flags=re.M)
    for section in SECTIONS:
        assert section in headings, f"{name}/README.md lacks a '{section}' section"


HOW_TO_USE_BY_LINE = 80  # a Hub visitor reaches the one-line load and compute without scrolling far


def card_lines(name):
    """The card's lines (1-based in the file, front matter included), with fenced code blanked."""
    lines, fenced = [], False
    for line in (REPO_ROOT / name / "README.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
            lines.append("")
        else:
            lines.append("" if fenced else line)
    return lines


def headings(name):
    """(line number, level, text) of every heading outside code blocks."""
    return [(number, len(match.group(1)), match.group(2).strip())
            for number, line in enumerate(card_lines(name), start=1)
            for match in [re.match(r"^(#{1,6}) (.+)$", line)] if match]


def slug(heading):
    """The anchor GitHub and the Hub give a heading."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_card_links_lead_to_what_exists_and_leave_the_folder_only_for_the_docs(name):
    """A Space holds only its folder: a link may leave it only for the repository's docs/ pages,
    which the release points at the source repository (`--source-url`); every link and anchor exists."""
    folder = (REPO_ROOT / name).resolve()
    text = (folder / "README.md").read_text(encoding="utf-8")
    targets = (re.findall(r"\]\(\s*<?([^)\s>]+)", text)  # [text](target "title")
               + re.findall(r"^\s*\[[^\]]+\]:\s*<?([^\s>]+)", text, flags=re.M)  # [label]: target
               + re.findall(r"(?:href|src)=[\"']([^\"']+)", text))  # HTML
    anchors = {slug(heading) for _, _, heading in headings(name)}
    outward = 0
    for target in targets:
        if target.startswith("#"):
            assert target[1:] in anchors, f"{name}/README.md links to {target}, which is no heading of the card"
        elif not re.match(r"^[a-z][a-z0-9+.\-]*:", target, flags=re.I):  # not https:, mailto:, ...
            path, _, anchor = target.partition("#")
            resolved = (folder / path).resolve()
            assert resolved.exists(), f"{name}/README.md links to {target}, which does not exist"
            if not resolved.is_relative_to(folder):
                outward += 1
                assert resolved.is_relative_to(REPO_ROOT / "docs") and target.startswith("../docs/"), \
                    f"{name}/README.md links to {target}: out of its folder, only ../docs/ pages may be linked"
            if anchor:
                assert anchor in github_anchors(resolved.read_text(encoding="utf-8")), f"{name}/README.md: no heading #{anchor} in {path}"
    # The release rewrites exactly these links (and refuses them without --source-url).
    assert release.links_out_of_folder(text) == outward
    assert "](../" not in release.rewrite_links(text, "https://example.org/r/blob/v1")


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_card_reaches_how_to_use_early_and_keeps_evaluates_section_order(name):
    found = headings(name)
    how_to_use = [number for number, level, heading in found if level == 2 and heading == "How to Use"]
    assert len(how_to_use) == 1, f"{name}/README.md: expected one '## How to Use'"
    assert how_to_use[0] <= HOW_TO_USE_BY_LINE, f"{name}/README.md: '## How to Use' at line {how_to_use[0]}"
    # Its first code block is the one-line load and compute.
    text = (REPO_ROOT / name / "README.md").read_text(encoding="utf-8").splitlines()
    block = "\n".join(text[how_to_use[0]:]).split("```python\n", 1)[1].split("```", 1)[0]
    assert "evaluate.load(" in block and ".compute(" in block
    positions = []
    for section in SECTIONS:
        at = [number for number, level, heading in found if level in (2, 3) and heading == section]
        assert len(at) == 1, f"{name}/README.md: expected one '{section}' heading, found {len(at)}"
        positions.append(at[0])
    assert positions == sorted(positions), f"{name}/README.md: sections out of evaluate's order {SECTIONS}"


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_card_loading_a_folder_says_to_vendor_first(name):
    """`evaluate.load` of a folder needs the generated helpers; a Hub name ("owner/name") needs nothing."""
    text = (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")
    loaded = re.findall(r"evaluate\.load\(\s*[\"']([^\"']+)[\"']", text)
    assert loaded
    folders = [path for path in loaded if path.startswith((".", "/")) or "/" not in path]
    if folders:
        assert "make vendor" in text, f"{name}/README.md loads {folders} without saying to run `make vendor` first"


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_folder_is_complete_and_gradio_pin_matches_sdk_version(name):
    folder = REPO_ROOT / name
    for file in (f"{name}.py", "README.md", "app.py", "requirements.txt", *(path.name for path in vendor.helper_files(folder).values())):
        assert (folder / file).is_file(), f"{name}/{file} is missing"
    header, _ = front_matter(name)
    sdk_version = re.search(r"^sdk_version: (\S+)$", header, flags=re.M).group(1)
    assert f"gradio=={sdk_version}" in (folder / "requirements.txt").read_text().split()


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_script_has_one_import_per_line(name):
    """evaluate's import scanner fails on `import a, b`."""
    for line in (REPO_ROOT / name / f"{name}.py").read_text().splitlines():
        assert not re.match(r"^import\s+\w+\s*,", line), line


# ---------------------------------------------------------------- a card in Evaluate's shape: short, depth in docs/

CARD_BYTES = 12_288  # Evaluate's canonical cards are 4-9 KB; the studies, tables and derivations live in docs/


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_card_is_at_most_12_kib(name):
    size = len((REPO_ROOT / name / "README.md").read_bytes())
    assert size <= CARD_BYTES, f"{name}/README.md is {size:,} bytes; move depth to a docs/ page and link it"


def bibtex_entries(text):
    """The ``@type{key,`` entries inside the text's ```bibtex blocks."""
    blocks = re.findall(r"^```bibtex\n(.*?)^```", text, flags=re.S | re.M)
    return [entry for block in blocks for entry in re.findall(r"^@\w+\s*\{\s*([^,\s]+)\s*,", block, flags=re.M)]


def test_bibtex_entries_are_counted():
    text = "```bibtex\n@article{a,\n  title={T}\n}\n@inproceedings{b,\n}\n```\n@misc{outside,\n"
    assert bibtex_entries(text) == ["a", "b"]


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_card_cites_at_most_three_bibtex_entries(name):
    entries = bibtex_entries((REPO_ROOT / name / "README.md").read_text(encoding="utf-8"))
    assert 1 <= len(entries) <= 3, f"{name}/README.md: {len(entries)} BibTeX entries {entries}; the rest belong on the docs/ pages"


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_card_tells_what_is_not_how_it_came_to_be(name):
    text = (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")
    found = re.findall(r"\bissue\s*#?\d+|#\d{2,}\b", text, flags=re.I)
    assert not found, f"{name}/README.md names issues (project history): {found}"


def card_output_checks(text):
    """(source, expected repr) of each statement in a ```python block of the card that is followed by an
    output comment (``# {...}``, ``# (...)``, ``# [...]``), with the statements before it to run first."""
    checks = []
    for block in re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M):
        if ">>> " in block:
            continue  # doctest blocks: test_card_doctests_are_exact
        lines = block.splitlines()
        tree = ast.parse(block)
        setup = []
        for node in tree.body:
            source = ast.get_source_segment(block, node)
            following = next((line for line in lines[node.end_lineno:] if line.strip()), "")
            if re.match(r"^# [\[({]", following):
                assert isinstance(node, ast.Expr), source
                checks.append(("\n".join(setup), source, following[2:]))
                setup = []
            elif not isinstance(node, (ast.Import, ast.ImportFrom)):  # the test binds `evaluate` to the local folders
                setup.append(source)
    return checks


def run_card_examples(name):
    """The card's output comments against what the code above them prints, the module loaded from its folder."""
    from conftest import load_module

    text = (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")
    namespace = {"evaluate": types.SimpleNamespace(load=lambda path, **kwargs: load_module(path.rsplit("/", 1)[-1], **kwargs)),
                 "metric": load_module(name)}
    checked = 0
    for setup, source, expected in card_output_checks(text):
        exec(setup, namespace)
        assert repr(eval(source, namespace)) == expected, source
        checked += 1
    return checked


@pytest.mark.parametrize("name", ["balanced_accuracy", "informedness"])
def test_card_output_comments_are_exact(name):
    assert run_card_examples(name) >= 3


@pytest.mark.parametrize("name", ["balanced_accuracy", "informedness"])
def test_card_doctests_are_exact(name):
    """Every ``>>>`` example of the card (Examples and the rest) prints what it shows."""
    import doctest
    import math

    from conftest import load_module

    text = (REPO_ROOT / name / "README.md").read_text(encoding="utf-8")
    blocks = "\n".join(block for block in re.findall(r"^```python\n(.*?)^```", text, flags=re.S | re.M) if ">>> " in block)
    test = doctest.DocTestParser().get_doctest(blocks, {"metric": load_module(name), "nan": math.nan}, name, None, 0)
    assert len(test.examples) >= 5
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0


def test_the_balanced_accuracy_cards_default_interval_is_the_score_interval_by_definition():
    """The card's 50-of-950 example: its interval is the score interval written out with SciPy."""
    import sys

    sys.path.insert(0, str(REPO_ROOT / "tests" / "support"))
    from score_reference import score_sum_reference

    low, high = score_sum_reference([40, 900], [50, 950], [0.5, 0.5])
    text = (REPO_ROOT / "balanced_accuracy" / "README.md").read_text(encoding="utf-8")
    assert f"'balanced_accuracy_ci': [{str(low)[:6]}..., {str(float(high))[:6]}...]" in text
