"""Each module folder is a complete Space: card front matter and sections, app, requirements."""

import re

import pytest

from shared import vendor

from conftest import MODULE_NAMES, REPO_ROOT

from shared.release import CARD_KEYS as FRONT_MATTER_KEYS  # the release command validates the same card
from shared.release import CARD_SECTIONS as SECTIONS


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
