"""The release command and the Hub round trip, against a loopback fake Hub.

`shared/release.py` runs as users run it (a child process) on a copy of the repository,
with ``HF_ENDPOINT`` pointing at ``fake_hub.FakeHub`` on 127.0.0.1. Then
``evaluate.load("<namespace>/<module>")`` runs in another child process against the same
server, through evaluate's real download code, and ``huggingface_hub.hf_hub_download``
fetches the vendored helper through huggingface_hub's. Child processes load
``tests/support/loopback_only/sitecustomize.py``, which refuses (and logs) any connection or name
lookup off the loopback interface: the tests require that log to stay empty.
"""

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from evaluate.loading import get_imports

from conftest import MODULE_NAMES, REPO_ROOT, load_module
from fake_hub import FakeHub

NAMESPACE = "release-test"
TOKEN = "hf_test_token_for_the_loopback_hub"
SUPPORT_DIR = Path(__file__).resolve().parents[1] / "support"

# One documented example per module, with the value its issue / card states.
EXAMPLES = {
    "balanced_accuracy": (
        {"references": [0, 1, 1, 0], "predictions": [0, 1, 0, 0], "task": "binary"},
        {"balanced_accuracy": 0.75},
    ),
    "balanced_topk_accuracy": (
        {
            "predictions": [[0.7, 0.2, 0.1], [0.1, 0.3, 0.6], [0.05, 0.05, 0.9], [0.05, 0.9, 0.05]],
            "references": [0, 1, 2, 1],
            "k_list": [1, 2],
        },
        {"balanced_top1_accuracy": (1 + 0.5 + 1) / 3, "balanced_top2_accuracy": 1.0},
    ),
    "informedness": (
        {"references": [0] * 10 + [1] * 5, "predictions": [0] * 8 + [1] * 2 + [0] + [1] * 4},
        {"informedness": 0.8 + 0.8 - 1},  # TPR 4/5, TNR 8/10
    ),
    "balanced_accuracy_multilabel": (
        {"references": [[1, 0, 1], [0, 1, 0]], "predictions": [[1, 0, 0], [0, 1, 1]], "return_per_label": True},
        {"balanced_accuracy": 2 / 3, "per_label_ba": [1.0, 1.0, 0.0], "support_per_label": [1, 1, 1]},
    ),
}


def copy_repository(target: Path, names=MODULE_NAMES) -> Path:
    """shared/ and the module folders, as a clean checkout would have them."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(REPO_ROOT / "shared", target / "shared", ignore=ignore)
    for name in names:
        shutil.copytree(REPO_ROOT / name, target / name, ignore=ignore)
    return target


def child_env(tmp: Path, hub: FakeHub = None, token: str = None) -> dict:
    """Environment of a child process: caches in tmp, network only to the fake Hub (if any)."""
    env = {key: value for key, value in os.environ.items() if not key.upper().endswith("_PROXY") and key != "HF_TOKEN"}
    env.update(
        HF_HOME=str(tmp / "hf-home"),
        XDG_CACHE_HOME=str(tmp / "xdg-cache"),
        PYTHONPATH=str(SUPPORT_DIR / "loopback_only"),
        LOOPBACK_ONLY_LOG=str(tmp / "refused-connections.log"),
        NO_PROXY="127.0.0.1,localhost",
        GRADIO_ANALYTICS_ENABLED="False",
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_UPDATE_DOWNLOAD_COUNTS="0",  # evaluate would otherwise ping a download counter off the Hub
        HF_DATASETS_OFFLINE="1",
        HF_HUB_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
    )
    env.pop("TRANSFORMERS_OFFLINE", None)
    if hub is not None:
        env.update(HF_ENDPOINT=hub.endpoint, HF_HUB_OFFLINE="0", HF_EVALUATE_OFFLINE="0")
    if token is not None:
        env["HF_TOKEN"] = token
    return env


def refused_connections(tmp: Path) -> list:
    log = tmp / "refused-connections.log"
    return log.read_text().splitlines() if log.exists() else []


def run_release(repo: Path, env: dict, *args) -> subprocess.CompletedProcess:
    command = [sys.executable, str(repo / "shared" / "release.py"), "--namespace", NAMESPACE, *args]
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
    with FakeHub(token=TOKEN) as hub:
        dry_run = run_release(repo, child_env(tmp, hub), "--dry-run")
        requests_during_dry_run = list(hub.requests)
        # One Space exists already, so create_repo takes its exist_ok path for it.
        hub.spaces[f"{NAMESPACE}/{MODULE_NAMES[0]}"] = {"sdk": "gradio", "private": False, "files": {}, "sha": "0" * 40}
        release = run_release(repo, child_env(tmp, hub, token=TOKEN))
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
            assert size == len(content) and hashlib.sha256(content).hexdigest().startswith(digest)
        assert f"would upload {name}/ to Space {NAMESPACE}/{name} (sdk gradio" in dry_run.stdout
        assert f"checked {name}: card, requirements, imports, app," in dry_run.stdout
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
        for path, content in space["files"].items():
            assert content == (repo / name / path).read_bytes(), f"{name}/{path} differs on the Hub"
        assert f"committed: {hub.endpoint}/spaces/{NAMESPACE}/{name}/commit/{space['sha']}" in release.stdout
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
    helper = hf_hub_download(f"{namespace}/{name}", "inputs.py", repo_type="space", cache_dir=cache + "/hub")
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
        cwd=tmp, env=child_env(tmp, hub), capture_output=True, text=True, timeout=600,
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
        # Every helper the script imports relatively (the vendored files) was fetched, unchanged.
        imports = get_imports(str(repo / name / f"{name}.py"))
        relative_imports = {f"{module}.py" for kind, module, _, _ in imports if kind == "internal"}
        assert {"inputs.py", "options.py", "metric.py", "counts.py", "store.py"} <= relative_imports
        assert set(entry["fetched_helpers"]) == relative_imports
        for file, text in entry["fetched_helpers"].items():
            assert text == (repo / name / file).read_text(encoding="utf-8"), f"{name}/{file}"
        assert entry["hf_hub_download_helper"] == (repo / name / "inputs.py").read_text(encoding="utf-8")
        for key, value in expected.items():
            assert entry["result"][key] == pytest.approx(value, abs=1e-12), (name, key)
        assert entry["result"] == json.loads(json.dumps(load_module(name).compute(**kwargs)))
        # evaluate asks for the script at its own version tag first, then at main, then the helper at main.
        assert ("HEAD", f"/spaces/{NAMESPACE}/{name}/resolve/v0.4.6/{name}.py") in requests
        assert ("GET", f"/spaces/{NAMESPACE}/{name}/resolve/main/{name}.py") in requests
        assert ("GET", f"/spaces/{NAMESPACE}/{name}/resolve/main/inputs.py") in requests
    assert unhandled == []
    assert refused_connections(tmp) == []


# ---------------------------------------------------------------------- release refuses


def test_release_re_vendors_and_fails_on_drift(tmp_path):
    repo = copy_repository(tmp_path / "repo", names=["balanced_accuracy"])
    copy = repo / "balanced_accuracy" / "inputs.py"
    vendored = copy.read_text(encoding="utf-8")
    copy.write_text(vendored.replace("def as_array(", "def as_array_edited_by_hand(", 1), encoding="utf-8")
    result = run_release(repo, child_env(tmp_path), "--dry-run")
    assert result.returncode == 1
    assert "re-vendored: balanced_accuracy/inputs.py" in result.stdout
    assert "had drifted from shared/" in result.stderr
    assert copy.read_text(encoding="utf-8") == vendored  # refreshed from shared/
    assert "would upload" not in result.stdout


def test_release_validation_fails_on_a_broken_folder_and_uploads_nothing(tmp_path):
    repo = copy_repository(tmp_path / "repo", names=["balanced_accuracy"])
    folder = repo / "balanced_accuracy"
    card = (folder / "README.md").read_text(encoding="utf-8")
    card = card.replace("## Limitations and Bias", "## Caveats").replace("\nemoji:", "\nicon:")
    (folder / "README.md").write_text(card, encoding="utf-8")
    requirements = (folder / "requirements.txt").read_text(encoding="utf-8")
    (folder / "requirements.txt").write_text(requirements.replace("gradio==", "gradio>="), encoding="utf-8")
    script = (folder / "balanced_accuracy.py").read_text(encoding="utf-8")
    documented = "{{'balanced_accuracy': 0.75}}"
    assert documented in script
    (folder / "balanced_accuracy.py").write_text(script.replace(documented, "{{'balanced_accuracy': 0.5}}", 1), encoding="utf-8")
    app = (folder / "app.py").read_text(encoding="utf-8")
    (folder / "app.py").write_text("import sklearn\n" + app + "\napp = None\n", encoding="utf-8")

    with FakeHub(token=TOKEN) as hub:
        result = run_release(repo, child_env(tmp_path, hub, token=TOKEN))
    assert result.returncode == 1
    errors = result.stderr
    assert "balanced_accuracy cannot be released" in errors
    assert "README.md: front matter lacks emoji" in errors
    assert "README.md: lacks a 'Limitations and Bias' section" in errors
    assert "requirements.txt: expected 'gradio==" in errors
    assert "app.py imports 'sklearn'" in errors and "neither lists nor pulls in" in errors
    assert "app.py: expected a Gradio app named `app`, found NoneType" in errors
    assert "documented examples fail" in errors and "{'balanced_accuracy': 0.5}" in errors
    assert "uploading" not in result.stdout
    assert hub.requests == []  # validation failed, so nothing reached the Hub
    assert refused_connections(tmp_path) == []


def test_release_without_a_token_refuses_to_upload(tmp_path):
    repo = copy_repository(tmp_path / "repo", names=["balanced_accuracy"])
    result = run_release(repo, child_env(tmp_path))
    assert result.returncode == 1
    assert "set HF_TOKEN" in result.stderr
