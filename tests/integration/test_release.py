"""The release command and the Hub round trip, against a loopback fake Hub.

`python -m shared.tooling.release` runs as users run it (a child process) on a copy of the repository
as a clean checkout has it (no generated helpers: the release generates them),
with ``HF_ENDPOINT`` pointing at ``fake_hub.FakeHub`` on 127.0.0.1. Then
``evaluate.load("<namespace>/<module>")`` runs in another child process against the same
server, through evaluate's real download code, and ``huggingface_hub.hf_hub_download``
fetches the generated helper through huggingface_hub's. The vendoring step itself
(``shared/tooling/vendor.py``: one flat helper per consumer, one meaning per name, lines traced
back to ``shared/``) is tested at the end. Child processes load
``tests/support/loopback_only/sitecustomize.py``, which refuses (and logs) any connection or name
lookup off the loopback interface: the tests require that log to stay empty.
"""

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from evaluate.loading import get_imports

from conftest import MODULE_NAMES, REPO_ROOT, load_module
from fake_hub import FakeHub, client_env
from shared.tooling import release
from shared.tooling import vendor
from shared.tooling.modules import MODULES

NAMESPACE = "release-test"
SOURCE_URL = "https://example.org/owner/repo/blob/v1.0"  # --source-url: where card links into ../docs point on the Hub
OUTWARD_LINKS = "\nSee [the intervals page](../docs/intervals.md#how) and [clusters].\n\n[clusters]: ../docs/clusters.md\n"
TOKEN = "hf_test_token_for_the_loopback_hub"
SUPPORT_DIR = Path(__file__).resolve().parents[1] / "support"

# One documented example per module, with the values its card states (the registry's).
EXAMPLES = {entry.name: entry.example for entry in MODULES}


def copy_repository(target: Path, names=MODULE_NAMES) -> Path:
    """shared/ and the module folders, as a clean checkout would have them (no generated helpers)."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", f"{vendor.CORE_HELPER}.py", f"{vendor.SPACE_HELPER}.py")
    shutil.copytree(REPO_ROOT / "shared", target / "shared", ignore=ignore)
    for name in names:
        shutil.copytree(REPO_ROOT / name, target / name, ignore=ignore)
    return target


def refused_connections(tmp: Path) -> list:
    log = tmp / "refused-connections.log"
    return log.read_text().splitlines() if log.exists() else []


def run_release(repo: Path, env: dict, *args) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "shared.tooling.release", "--namespace", NAMESPACE, *args]
    return subprocess.run(command, cwd=repo, env=env, capture_output=True, text=True, timeout=600)


def expected_listing(folder: Path) -> list:
    """What a Space must receive: every file of the folder but hidden files and caches."""
    return sorted(path.name for path in folder.iterdir() if path.is_file() and not path.name.startswith("."))


def parse_plan(stdout: str) -> dict:
    """{module: [(path, size, sha256 prefix)]} from the 'would upload' / 'uploading' blocks."""
    plan, current = {}, None
    for line in stdout.splitlines():
        if line.startswith(("would upload ", "uploading ")):
            current = line.split(" ")[2].rstrip("/")
            plan[current] = []
        elif current and line.startswith("  ") and " bytes  sha256:" in line:
            path, size, _, digest = line.split()
            plan[current].append((path, int(size), digest.split(":")[1]))
    return plan


# ---------------------------------------------------------------------- release: dry run


@pytest.fixture(scope="module")
def released(tmp_path_factory):
    """One copy of the repository, dry-run and then released to a fake Hub."""
    tmp = tmp_path_factory.mktemp("release")
    repo = copy_repository(tmp / "repo")
    # Things that must not be uploaded: caches and hidden files.
    (repo / MODULE_NAMES[0] / "__pycache__").mkdir()
    (repo / MODULE_NAMES[0] / "__pycache__" / "stale.cpython-311.pyc").write_bytes(b"\0")
    (repo / MODULE_NAMES[0] / ".notes").write_text("local notes")
    # Links that leave the folder, in both Markdown forms: the Hub must get them pointing at SOURCE_URL.
    with open(repo / MODULE_NAMES[0] / "README.md", "a", encoding="utf-8") as card:
        card.write(OUTWARD_LINKS)
    with FakeHub(token=TOKEN) as hub:
        dry_run = run_release(repo, client_env(tmp, hub), "--dry-run", "--source-url", SOURCE_URL)
        requests_during_dry_run = list(hub.requests)
        # One Space exists already, so create_repo takes its exist_ok path for it.
        hub.spaces[f"{NAMESPACE}/{MODULE_NAMES[0]}"] = {"sdk": "gradio", "private": False, "files": {}, "sha": "0" * 40}
        release = run_release(repo, client_env(tmp, hub, token=TOKEN), "--source-url", SOURCE_URL)
        yield {"tmp": tmp, "repo": repo, "hub": hub, "dry_run": dry_run, "dry_run_requests": requests_during_dry_run, "release": release}


def test_dry_run_prints_exactly_what_would_be_uploaded_and_uploads_nothing(released):
    dry_run, repo = released["dry_run"], released["repo"]
    assert dry_run.returncode == 0, dry_run.stderr
    plan = parse_plan(dry_run.stdout)
    assert sorted(plan) == sorted(MODULE_NAMES)
    for name in MODULE_NAMES:
        folder = repo / name
        assert [path for path, _, _ in plan[name]] == expected_listing(folder)
        for path, size, digest in plan[name]:
            content = (folder / path).read_bytes()
            if path == "README.md":  # what is uploaded: links out of the folder point at --source-url
                content = content.replace(b"](../", f"]({SOURCE_URL}/".encode()).replace(b"]: ../", f"]: {SOURCE_URL}/".encode())
            assert size == len(content) and hashlib.sha256(content).hexdigest().startswith(digest)
        assert f"would upload {name}/ to Space {NAMESPACE}/{name} (sdk gradio" in dry_run.stdout
        assert f"checked {name}: files, card, requirements, imports, app," in dry_run.stdout
        # A Space holds the four committed files and the two generated helpers, nothing else.
        assert {path for path, _, _ in plan[name]} == {f"{name}.py", "README.md", "app.py", "requirements.txt",
                                                       "shared_core.py", "shared_space.py"}
    assert "dry run: nothing was uploaded" in dry_run.stdout
    assert released["dry_run_requests"] == []  # not even a request to the Hub
    assert refused_connections(released["tmp"]) == []


def test_release_uploads_each_folder_to_its_own_gradio_space(released):
    release, hub, repo = released["release"], released["hub"], released["repo"]
    assert release.returncode == 0, release.stderr
    assert sorted(hub.spaces) == sorted(f"{NAMESPACE}/{name}" for name in MODULE_NAMES)
    dry_run_plan = parse_plan(released["dry_run"].stdout)
    for name in MODULE_NAMES:
        space = hub.spaces[f"{NAMESPACE}/{name}"]
        assert space["sdk"] == "gradio"
        assert sorted(space["files"]) == [path for path, _, _ in dry_run_plan[name]]  # exactly the dry run's list
        for path, size, digest in dry_run_plan[name]:  # the dry run described the bytes that were uploaded
            assert (size, digest) == (len(space["files"][path]), hashlib.sha256(space["files"][path]).hexdigest()[:16])
        for path, content in space["files"].items():
            committed = (repo / name / path).read_bytes()
            if path != "README.md":
                assert content == committed, f"{name}/{path} differs on the Hub"
                continue
            # The card is the committed one, but every link out of the folder points at the source repository.
            card = content.decode("utf-8")
            assert "](../" not in card and "]: ../" not in card
            outward = committed.decode("utf-8").count("](../") + committed.decode("utf-8").count("]: ../")
            assert card.count(f"]({SOURCE_URL}/") + card.count(f"]: {SOURCE_URL}/") == outward
            assert card.replace(f"{SOURCE_URL}/", "../") == committed.decode("utf-8")
    card = hub.spaces[f"{NAMESPACE}/{MODULE_NAMES[0]}"]["files"]["README.md"].decode("utf-8")
    assert f"[the intervals page]({SOURCE_URL}/docs/intervals.md#how)" in card and f"[clusters]: {SOURCE_URL}/docs/clusters.md" in card
    for name in MODULE_NAMES:
        sha = hub.spaces[f"{NAMESPACE}/{name}"]["sha"]
        assert f"committed: {hub.endpoint}/spaces/{NAMESPACE}/{name}/commit/{sha}" in release.stdout
    assert hub.unhandled == []
    assert refused_connections(released["tmp"]) == []


# ---------------------------------------------------------------------- evaluate.load from the Hub

LOAD_FROM_HUB = r"""
import json, sys
from pathlib import Path
sys.modules.setdefault("transformers", None)  # evaluate's Evaluator would import its pipelines: slow, unused
import evaluate
from huggingface_hub import hf_hub_download

namespace, cache, examples = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
report = {}
for name, kwargs in examples.items():
    metric = evaluate.load(f"{namespace}/{name}", cache_dir=cache)
    script = Path(sys.modules[type(metric).__module__].__file__)
    helper = hf_hub_download(f"{namespace}/{name}", "shared_core.py", repo_type="space", cache_dir=cache + "/hub")
    report[name] = {
        "result": metric.compute(**kwargs),
        "script": str(script),
        "fetched_helpers": {
            path.name: path.read_text(encoding="utf-8")
            for path in script.parent.glob("*.py") if path.name not in (script.name, "__init__.py")
        },
        "hf_hub_download_helper": Path(helper).read_text(encoding="utf-8"),
    }
print(json.dumps(report))
"""


def test_evaluate_load_from_the_hub_fetches_the_vendored_helper_and_computes(released):
    tmp, hub, repo = released["tmp"], released["hub"], released["repo"]
    assert released["release"].returncode == 0, released["release"].stderr
    inputs = {name: EXAMPLES[name][0] for name in MODULE_NAMES}
    hub.requests.clear()
    loaded = subprocess.run(
        [sys.executable, "-c", LOAD_FROM_HUB, NAMESPACE, str(tmp / "load-cache"), json.dumps(inputs)],
        cwd=tmp, env=client_env(tmp, hub), capture_output=True, text=True, timeout=600,
    )
    requests, unhandled = list(hub.requests), list(hub.unhandled)
    assert loaded.returncode == 0, loaded.stderr
    report = json.loads(loaded.stdout.strip().splitlines()[-1])
    modules_cache = tmp / "hf-home" / "modules"
    for name in MODULE_NAMES:
        kwargs, expected = EXAMPLES[name]
        entry = report[name]
        # The script ran from evaluate's module cache, i.e. it came from the server, with the helper next to it.
        assert Path(entry["script"]).is_relative_to(modules_cache), entry["script"]
        # The one helper the script imports relatively was fetched, unchanged, and nothing else.
        imports = get_imports(str(repo / name / f"{name}.py"))
        relative_imports = {f"{module}.py" for kind, module, _, _ in imports if kind == "internal"}
        assert relative_imports == {"shared_core.py"}
        assert set(entry["fetched_helpers"]) == relative_imports
        for file, text in entry["fetched_helpers"].items():
            assert text == (repo / name / file).read_text(encoding="utf-8"), f"{name}/{file}"
        assert entry["hf_hub_download_helper"] == (repo / name / "shared_core.py").read_text(encoding="utf-8")
        for key, value in expected.items():
            assert entry["result"][key] == pytest.approx(value, abs=1e-12), (name, key)
        assert entry["result"] == json.loads(json.dumps(load_module(name).compute(**kwargs)))
        # evaluate asks for the script at its own version tag first, then at main, then the helper at main.
        assert ("HEAD", f"/spaces/{NAMESPACE}/{name}/resolve/v0.4.6/{name}.py") in requests
        assert ("GET", f"/spaces/{NAMESPACE}/{name}/resolve/main/{name}.py") in requests
        assert ("GET", f"/spaces/{NAMESPACE}/{name}/resolve/main/shared_core.py") in requests
    assert unhandled == []
    assert refused_connections(tmp) == []


# ---------------------------------------------------------------------- release refuses


def test_release_generates_the_helpers_over_a_hand_edited_copy(tmp_path):
    """The helpers are generated, never committed: a hand edit cannot reach the Hub."""
    repo = copy_repository(tmp_path / "repo", names=["balanced_accuracy"])
    helper = repo / "balanced_accuracy" / "shared_core.py"
    subprocess.run([sys.executable, "-m", "shared.tooling.vendor"], cwd=repo, check=True, capture_output=True)
    generated = helper.read_text(encoding="utf-8")
    helper.write_text(generated.replace("def as_array(", "def as_array_edited_by_hand(", 1), encoding="utf-8")
    # The card links into ../docs/, so a release names where those pages are (--source-url).
    result = run_release(repo, client_env(tmp_path), "--dry-run", "--source-url", SOURCE_URL)
    assert result.returncode == 0, result.stderr
    assert "generated: balanced_accuracy/shared_core.py" in result.stdout
    assert helper.read_text(encoding="utf-8") == generated  # regenerated from shared/
    assert "would upload balanced_accuracy/" in result.stdout


def test_release_validation_fails_on_a_broken_folder_and_uploads_nothing(tmp_path):
    repo = copy_repository(tmp_path / "repo", names=["balanced_accuracy"])
    folder = repo / "balanced_accuracy"
    card = (folder / "README.md").read_text(encoding="utf-8")
    card = card.replace("## Limitations and Bias", "## Caveats").replace("\nemoji:", "\nicon:")
    (folder / "README.md").write_text(card, encoding="utf-8")
    outward = release.links_out_of_folder(card) + 2  # the card's own links into ../docs/, and the two appended below
    requirements = (folder / "requirements.txt").read_text(encoding="utf-8")
    (folder / "requirements.txt").write_text(requirements.replace("gradio==", "gradio>="), encoding="utf-8")
    script = (folder / "balanced_accuracy.py").read_text(encoding="utf-8")
    documented = "{{'balanced_accuracy': 0.75}}"
    assert documented in script
    (folder / "balanced_accuracy.py").write_text(script.replace(documented, "{{'balanced_accuracy': 0.5}}", 1), encoding="utf-8")
    app = (folder / "app.py").read_text(encoding="utf-8")
    (folder / "app.py").write_text("import sklearn\n" + app + "\napp = None\n", encoding="utf-8")
    (folder / "inputs.py").write_text("# a copy left over from the old layout\n", encoding="utf-8")
    with open(folder / "README.md", "a", encoding="utf-8") as file:  # a link out of the folder, and no --source-url
        file.write(OUTWARD_LINKS)

    with FakeHub(token=TOKEN) as hub:
        result = run_release(repo, client_env(tmp_path, hub, token=TOKEN))
    assert result.returncode == 1
    errors = result.stderr
    assert "balanced_accuracy cannot be released" in errors
    assert "inputs.py: not a file of the module" in errors
    assert "README.md: front matter lacks emoji" in errors
    assert "README.md: lacks a 'Limitations and Bias' section" in errors
    assert "requirements.txt: expected 'gradio==" in errors
    assert "app.py imports 'sklearn'" in errors and "neither lists nor pulls in" in errors
    assert "app.py: expected a Gradio app named `app`, found NoneType" in errors
    assert "documented examples fail" in errors and "{'balanced_accuracy': 0.5}" in errors
    assert f"README.md: {outward} links leave the folder (../...)" in errors and "pass --source-url" in errors
    assert "uploading" not in result.stdout
    assert hub.requests == []  # validation failed, so nothing reached the Hub
    assert refused_connections(tmp_path) == []


def test_release_without_a_token_refuses_to_upload(tmp_path):
    repo = copy_repository(tmp_path / "repo", names=["balanced_accuracy"])
    result = run_release(repo, client_env(tmp_path))
    assert result.returncode == 1
    assert "set HF_TOKEN" in result.stderr


# ---------------------------------------------------------------------- vendoring (make vendor)


def git_files(name):
    listed = subprocess.run(["git", "ls-files", name], cwd=REPO_ROOT, capture_output=True, text=True)
    return None if listed.returncode else sorted(Path(line).name for line in listed.stdout.splitlines())


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_a_module_folder_commits_four_files_and_gets_two_generated_helpers(name):
    committed = git_files(name)
    if committed is not None:  # a git checkout (CI clones one)
        assert committed == sorted([f"{name}.py", "README.md", "app.py", "requirements.txt"])
    vendor.vendor(check=False)
    present = sorted(path.name for path in (REPO_ROOT / name).iterdir() if path.is_file())
    assert present == sorted([f"{name}.py", "README.md", "app.py", "requirements.txt", "shared_core.py", "shared_space.py"])
    assert vendor.vendor(check=True) == []


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_the_script_imports_only_names_it_uses_from_its_one_helper(name):
    import ast

    tree = ast.parse((REPO_ROOT / name / f"{name}.py").read_text(encoding="utf-8"))
    relative = [node for node in ast.walk(tree) if isinstance(node, ast.ImportFrom) and node.level]
    assert {node.module for node in relative} == {"shared_core"}
    assert all(len(node.names) == 1 for node in relative)  # one name per line, as evaluate's scanner reads
    used = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    unused = [alias.name for node in relative for alias in node.names if alias.name not in used]
    assert unused == [], f"imported only for the loader: {unused}"


def test_shared_is_one_package_with_one_import_style():
    import ast

    packages = {path.name for path in (REPO_ROOT / "shared").iterdir() if (path / "__init__.py").exists()}
    files = sorted((REPO_ROOT / "shared").rglob("*.py"))
    shared_names = packages | {path.stem for path in files}
    for path in files:
        text = path.read_text(encoding="utf-8")
        assert "except ImportError" not in text, path.name
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                assert node.module.split(".")[0] not in shared_names, \
                    f"{path.name}: `from {node.module} import`"
            if isinstance(node, ast.ImportFrom) and node.level:
                # Names, not modules: `from .inputs import as_array` or `from ..counting.inputs import as_array`.
                assert len((node.module or "").split(".")) == node.level, f"{path}: {ast.unparse(node)}"
                # No private name crosses a file.
                assert not [alias.name for alias in node.names if alias.name.startswith("_")], f"{path}: {ast.unparse(node)}"
            if isinstance(node, ast.Import):
                assert not {alias.name.split(".")[0] for alias in node.names} & shared_names, path.name
    # Tests, examples and benchmarks import it one way: `from shared.<package> import x` / `from shared.<package>.x import y`.
    for folder in ("tests", "examples", "benchmarks"):
        for path in sorted((REPO_ROOT / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Import):
                    plain = {alias.name for alias in node.names} & shared_names
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    plain = {node.module} & shared_names
                    if node.module == "shared":
                        plain = {alias.name for alias in node.names} - packages
                else:
                    continue
                assert not plain, f"{path.relative_to(REPO_ROOT)} imports {plain} by plain name"


def test_a_name_with_two_meanings_in_one_helper_fails_the_vendoring(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "first.py").write_text("def safe_ratio(a, b):\n    return a / b\n", encoding="utf-8")
    (tmp_path / "pkg" / "second.py").write_text("from .first import safe_ratio\n\n\ndef total():\n    return 1\n\n\n"
                                        "safe_ratio = None\n", encoding="utf-8")
    sources = vendor.read_sources(tmp_path)
    with pytest.raises(vendor.VendorError, match=r"'safe_ratio' is a definition in shared/pkg/first.py and a definition in shared/pkg/second.py"):
        vendor.flat_helper("some_metric/some_metric.py", ["total"], "shared_core.py", sources)
    (tmp_path / "pkg" / "third.py").write_text("def total():\n    return 2\n", encoding="utf-8")
    with pytest.raises(vendor.VendorError, match=r"imports 'total': expected one shared/ file defining it, but it is "
                                                 r"defined in shared/pkg/second.py, shared/pkg/third.py"):
        vendor.flat_helper("some_metric/some_metric.py", ["total"], "shared_core.py", vendor.read_sources(tmp_path))


def test_vendor_check_reports_a_missing_or_edited_helper(tmp_path):
    folder = tmp_path / "some_metric"
    folder.mkdir()
    (folder / "some_metric.py").write_text("from .shared_core import check_flag\n", encoding="utf-8")
    helper = folder / "shared_core.py"
    assert vendor.vendor(check=True, root=tmp_path) == [helper]  # missing
    vendor.vendor(check=False, root=tmp_path)
    assert "# shared/glue/options.py: line" in helper.read_text(encoding="utf-8")
    assert vendor.vendor(check=True, root=tmp_path) == []
    helper.write_text(helper.read_text(encoding="utf-8") + "# local edit\n", encoding="utf-8")
    assert vendor.vendor(check=True, root=tmp_path) == [helper]
    # A helper no consumer imports any more is removed.
    (folder / "some_metric.py").write_text("import math\n", encoding="utf-8")
    vendor.vendor(check=False, root=tmp_path)
    assert not helper.exists()


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_every_line_of_a_helper_traces_back_to_its_shared_file(name):
    vendor.vendor(check=False)
    files = {}  # shared/ sources, read once
    for helper in ("shared_core.py", "shared_space.py"):
        path = REPO_ROOT / name / helper
        lines = path.read_text(encoding="utf-8").splitlines()
        sources = vendor.line_sources(path)
        traced = 0
        for number, text in enumerate(lines, 1):
            source = sources.get(number, "")
            if not source.startswith("shared/"):
                continue
            file, line = source.rsplit(":", 1)
            original = files.setdefault(file, (REPO_ROOT / file).read_text(encoding="utf-8").splitlines())[int(line) - 1]
            # Relative imports are commented out in place; every other line is the source's own.
            assert text == original or ("# vendored: " in text or text.strip().startswith("#")) and original.strip() in text
            traced += 1
        assert traced > 0.95 * len(lines)
        # `--where`, line by line, says what the one-pass map says (every 97th line, banners and headers included).
        for number in [*range(1, len(lines) + 1, 97), len(lines)]:
            assert vendor.where(f"{path}:{number}") == sources.get(
                number, f"{path}:{number}: the generated header or a banner, not a line of shared/")


def test_a_traceback_from_a_helper_leads_back_to_shared():
    import traceback

    metric = load_module("balanced_accuracy")
    with pytest.raises(ValueError) as raised:
        metric.compute(references=[0, 1, None], predictions=[0, 1, 1])
    frames = [frame for frame in traceback.extract_tb(raised.value.__traceback__) if frame.filename.endswith("shared_core.py")]
    assert frames, "the error was raised inside the generated helper"
    file, line = vendor.where(f"{frames[-1].filename}:{frames[-1].lineno}").rsplit(":", 1)
    assert (REPO_ROOT / file).read_text(encoding="utf-8").splitlines()[int(line) - 1].strip() == frames[-1].line.strip()
    assert file == "shared/counting/inputs.py"


@pytest.mark.parametrize("name", MODULE_NAMES)
def test_a_folder_with_only_the_script_and_its_helper_computes_the_same(name, tmp_path):
    """What evaluate.load fetches is enough: the script and the files its imports name."""
    import evaluate

    vendor.vendor(check=False)
    folder = tmp_path / name
    folder.mkdir()
    for file in (f"{name}.py", "shared_core.py"):
        shutil.copy(REPO_ROOT / name / file, folder / file)
    kwargs, _ = EXAMPLES[name]
    alone = evaluate.load(str(folder), cache_dir=str(tmp_path / "cache")).compute(**kwargs)
    assert alone == load_module(name).compute(**kwargs)
