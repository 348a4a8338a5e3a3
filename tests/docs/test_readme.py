"""The root README's quick start is exact: each `# {...}` line is the printed result of the call above it."""

import ast
import re

import evaluate

from conftest import REPO_ROOT


def test_quick_start_outputs_are_exact(monkeypatch):
    monkeypatch.chdir(REPO_ROOT)
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    quick_start = readme.split("## Quick start", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    namespace = {"evaluate": evaluate}
    statement, checked = [], 0
    for line in quick_start.splitlines():
        if line.startswith("# {"):
            source = "\n".join(statement)
            value = eval(compile(ast.Expression(ast.parse(source, mode="eval").body), "<readme>", "eval"), namespace)
            assert repr(value) == line[2:], source
            statement, checked = [], checked + 1
        elif line.strip() and not line.startswith("#"):
            if statement and not re.match(r"^\s", line) and not statement[-1].rstrip().endswith(","):
                exec("\n".join(statement), namespace)
                statement = []
            statement.append(re.sub(r"\s+#.*$", "", line))
    assert checked == 6
