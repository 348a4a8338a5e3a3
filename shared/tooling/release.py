"""Release the metric modules to the Hugging Face Hub, one Space per module folder.

Three steps, and nothing is uploaded unless the first two pass for every module:

1. generate every module folder's helpers from ``shared/`` (``vendor.py``: the flat
   ``shared_core.py`` its script imports and ``shared_space.py`` its app imports; they
   are never committed, so the release always ships what ``shared/`` says);
2. validate each folder: card front matter and sections, requirements, the Gradio app
   (it must build), the relative imports ``evaluate.load`` fetches from the Hub, and the
   documented examples of the metric script (run as doctests);
3. for each folder, ``create_repo(<namespace>/<module>, repo_type="space",
   space_sdk="gradio", exist_ok=True)`` and ``upload_folder`` of exactly the files listed.

Usage::

    python -m shared.tooling.release --namespace NAME --dry-run         # steps 1-2, print the upload plan
    HF_TOKEN=hf_... python -m shared.tooling.release --namespace NAME   # steps 1-3
    python -m shared.tooling.release --namespace NAME balanced_accuracy # only these modules

A card links to the project's ``docs/`` pages with relative links (``../docs/intervals.md``),
which work in the repository but not on the Hub, where a Space holds only its folder. Give
``--source-url`` (the repository's address at the released revision, e.g.
``https://github.com/OWNER/REPO/blob/v1.0``) and the uploaded card's links that leave the
folder point there instead; without it, such a card is not released.

The token is read from ``HF_TOKEN``; ``HF_ENDPOINT`` selects another Hub, as for any
``huggingface_hub`` client. After a release, users load a module with
``evaluate.load("NAME/<module>")``.
"""

import argparse
import ast
import doctest
import hashlib
import importlib.metadata
import io
import os
import re
import runpy
import sys
from pathlib import Path

from . import vendor

REQUIRED_FILES = ("README.md", "app.py", "requirements.txt")
CARD_KEYS = ("title", "emoji", "colorFrom", "colorTo", "sdk", "sdk_version", "app_file", "pinned", "tags", "description")
CARD_SECTIONS = ("Metric Description", "How to Use", "Inputs", "Output Values", "Examples", "Limitations and Bias", "Citation")
SKIPPED_NAMES = ("__pycache__",)
SAFE_PATH = re.compile(r"^[\w.\-/]+$")  # paths are passed to upload_folder as patterns: no glob characters
# The target of a Markdown link ``](target)``, a reference definition ``[label]: target`` or an
# HTML ``href``/``src``, when it leaves the folder.
LINK_OUT_OF_FOLDER = re.compile(r"""(\]\(\s*<?|^\s*\[[^\]]+\]:\s*<?|(?:href|src)=["'])\.\./""", flags=re.M)


class ReleaseError(Exception):
    """A reason not to release; the message says what to fix."""


# ----------------------------------------------------------------------------------------
# What is uploaded
# ----------------------------------------------------------------------------------------


def files_to_upload(folder: Path) -> list:
    """Relative paths of the files uploaded from a module folder, sorted.

    Everything in the folder except hidden files, caches and compiled files: the folder is
    the Space, so what is committed there is what users get.
    """
    files = []
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if not path.is_file() or any(part.startswith(".") or part in SKIPPED_NAMES for part in relative.parts):
            continue
        if path.suffix in (".pyc", ".pyo"):
            continue
        files.append(relative.as_posix())
    return files


def links_out_of_folder(text: str) -> int:
    """How many links of a card leave its folder."""
    return len(LINK_OUT_OF_FOLDER.findall(text))


def rewrite_links(text: str, source_url: str) -> str:
    """The card with every link that leaves its folder (``../docs/x.md#y``) pointing at
    ``source_url`` (``<source_url>/docs/x.md#y``): on the Hub the folder is all there is."""
    return LINK_OUT_OF_FOLDER.sub(lambda match: f"{match.group(1)}{source_url.rstrip('/')}/", text)


def uploaded_content(folder: Path, relative: str, source_url) -> bytes:
    """The bytes a Space receives: the file as committed, except the card's outward links."""
    content = (folder / relative).read_bytes()
    if relative == "README.md" and source_url:
        content = rewrite_links(content.decode("utf-8"), source_url).encode("utf-8")
    return content


def describe_file(folder: Path, relative: str, source_url=None) -> str:
    content = uploaded_content(folder, relative, source_url)
    return f"  {relative}  {len(content)} bytes  sha256:{hashlib.sha256(content).hexdigest()[:16]}"


# ----------------------------------------------------------------------------------------
# Validation
# ----------------------------------------------------------------------------------------


def read_front_matter(folder: Path):
    """The card's YAML front matter as a dict, and the card text."""
    import yaml

    text = (folder / "README.md").read_text(encoding="utf-8")
    match = re.match(r"^---\n(.*?)\n---\n", text, flags=re.S)
    if not match:
        raise ReleaseError("README.md: expected YAML front matter between '---' lines at the top, found none")
    try:
        header = yaml.safe_load(match.group(1))
    except yaml.YAMLError as error:
        raise ReleaseError(f"README.md: front matter is not valid YAML ({error})") from None
    if not isinstance(header, dict):
        raise ReleaseError(f"README.md: expected the front matter to be a mapping, found {type(header).__name__}")
    return header, text


def check_card(folder: Path, source_url=None) -> list:
    try:
        header, text = read_front_matter(folder)
    except ReleaseError as error:
        return [str(error)]
    problems = []
    missing = [key for key in CARD_KEYS if key not in header]
    if missing:
        problems.append(f"README.md: front matter lacks {', '.join(missing)}")
    if header.get("sdk") != "gradio":
        problems.append(f"README.md: expected 'sdk: gradio', found {header.get('sdk')!r}")
    if header.get("app_file") != "app.py":
        problems.append(f"README.md: expected 'app_file: app.py', found {header.get('app_file')!r}")
    tags = header.get("tags") or []
    if not {"evaluate", "metric"} <= set(tags):
        problems.append(f"README.md: expected tags to include 'evaluate' and 'metric', found {tags!r}")
    headings = set(re.findall(r"^#{2,3} (.+?)\s*$", text, flags=re.M))
    for section in CARD_SECTIONS:
        if section not in headings:
            problems.append(f"README.md: lacks a '{section}' section")
    outward = links_out_of_folder(text)
    if outward and not source_url:
        problems.append(f"README.md: {outward} links leave the folder (../...), which the Hub does not hold; "
                        "pass --source-url <the repository's address at this revision> to point them there")
    return problems


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _dependency_closure(names) -> set:
    """The distributions named and, from installed metadata, everything they require."""
    from packaging.requirements import Requirement

    seen, stack = set(), [_canonical(name) for name in names]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        try:
            requirements = importlib.metadata.requires(name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        for line in requirements:
            requirement = Requirement(line)
            if requirement.marker is None or requirement.marker.evaluate({"extra": ""}):
                stack.append(_canonical(requirement.name))
    return seen


def _third_party_imports(folder: Path) -> dict:
    """Top-level modules imported by the folder's Python files: {module: first file importing it}."""
    local = {path.stem for path in folder.glob("*.py")}
    found = {}
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                if top not in sys.stdlib_module_names and top not in local and top != "__future__":
                    found.setdefault(top, path.name)
    return found


def check_requirements(folder: Path, sdk_version) -> list:
    from packaging.requirements import InvalidRequirement, Requirement

    problems, requirements = [], []
    for number, line in enumerate((folder / "requirements.txt").read_text(encoding="utf-8").splitlines(), 1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        try:
            requirements.append(Requirement(line))
        except InvalidRequirement as error:
            problems.append(f"requirements.txt:{number}: not a valid requirement ({error})")
    by_name = {_canonical(requirement.name): requirement for requirement in requirements}
    if "evaluate" not in by_name:
        problems.append("requirements.txt: expected an 'evaluate' requirement, found none")
    gradio = by_name.get("gradio")
    if gradio is None or str(gradio.specifier) != f"=={sdk_version}":
        found = "none" if gradio is None else f"'{gradio}'"
        problems.append(f"requirements.txt: expected 'gradio=={sdk_version}' (the card's sdk_version), found {found}")
    provided = _dependency_closure(by_name)
    providers = importlib.metadata.packages_distributions()
    for module, source in sorted(_third_party_imports(folder).items()):
        distributions = {_canonical(name) for name in providers.get(module, [])}
        if not distributions:
            problems.append(f"{source} imports {module!r}, which no installed distribution provides: cannot check requirements.txt")
        elif not distributions & provided:
            problems.append(
                f"{source} imports {module!r} (distribution {', '.join(sorted(distributions))}), which requirements.txt "
                f"neither lists nor pulls in"
            )
    return problems


def import_evaluate():
    """``evaluate``, imported without transformers' pipelines.

    evaluate's ``__init__`` imports its Evaluator, which imports transformers' pipelines (and
    torch) whenever transformers is installed: most of the seconds a release spends importing,
    for a class the checks never use. transformers is hidden while evaluate is imported, then
    forgotten, so that anything that does need it later still imports it (datasets' pickler,
    for one, imports it whenever it is in ``sys.modules``).
    """
    if "evaluate" in sys.modules:
        return sys.modules["evaluate"]
    hide = "transformers" not in sys.modules
    if hide:
        sys.modules["transformers"] = None  # an import of it raises ImportError: the Evaluator is skipped
    try:
        import evaluate
    finally:
        if hide:
            del sys.modules["transformers"]
    return evaluate


def check_relative_imports(folder: Path, name: str) -> list:
    """The helper files ``evaluate.load`` fetches next to the script must be in the folder."""
    import_evaluate()
    from evaluate.loading import get_imports

    problems = []
    for import_type, import_name, _, _ in get_imports(str(folder / f"{name}.py")):
        if import_type == "internal" and not (folder / f"{import_name}.py").is_file():
            problems.append(f"{name}.py imports .{import_name}, but {import_name}.py is not in the folder")
        elif import_type == "external":
            problems.append(f"{name}.py imports {import_name} from a URL; a Space module must be self-contained")
    return problems


def check_app(folder: Path) -> list:
    """app.py builds a Gradio app (without launching it) against the folder's own helpers."""
    import gradio

    # The app imports the folder's own helper by plain name (shared_space):
    # make sure those, not copies cached from another folder or shared/, are the ones it gets.
    local_names = {path.stem for path in folder.glob("*.py")}
    saved_path = list(sys.path)
    saved_modules = {name: sys.modules.pop(name) for name in local_names if name in sys.modules}
    sys.path.insert(0, str(folder))
    try:
        namespace = runpy.run_path(str(folder / "app.py"), run_name="__release_check__")
    except (Exception, SystemExit) as error:
        return [f"app.py: building the app failed: {type(error).__name__}: {error}"]
    finally:
        sys.path[:] = saved_path
        for name in local_names:
            sys.modules.pop(name, None)
        sys.modules.update(saved_modules)
    if not isinstance(namespace.get("app"), gradio.Blocks):
        return [f"app.py: expected a Gradio app named `app`, found {type(namespace.get('app')).__name__}"]
    return []


def check_doctests(folder: Path, name: str) -> tuple:
    """Run the documented examples of the metric script; returns (problems, examples run)."""
    evaluate = import_evaluate()

    saved_cwd = os.getcwd()
    os.chdir(folder.parent)  # the examples load "<name>", i.e. this folder
    try:
        metric = evaluate.load(str(folder))
        script = sys.modules[type(metric).__module__]
        test = doctest.DocTestParser().get_doctest(script._KWARGS_DESCRIPTION, {"evaluate": evaluate}, name, None, 0)
        report = io.StringIO()
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        runner.run(test, out=report.write)
        results = runner.summarize(verbose=False)
    except Exception as error:
        return [f"{name}.py: loading the script or running its examples failed: {type(error).__name__}: {error}"], 0
    finally:
        os.chdir(saved_cwd)
    if results.attempted == 0:
        return [f"{name}.py: _KWARGS_DESCRIPTION has no examples (>>> lines) to check"], 0
    if results.failed:
        return [f"{name}.py: {results.failed} of {results.attempted} documented examples fail:\n{report.getvalue()}"], results.attempted
    return [], results.attempted


def check_folder_files(folder: Path) -> list:
    """The folder holds its committed files and its generated helpers, and no other Python file
    (evaluate.load fetches only what the script imports: anything else would be dead weight)."""
    name = folder.name
    expected = {f"{name}.py", *REQUIRED_FILES, *(path.name for path in vendor.helper_files(folder).values())}
    problems = [f"missing {file}" for file in sorted(expected) if not (folder / file).is_file()]
    problems += [f"{path.name}: not a file of the module (expected only {', '.join(sorted(expected))})"
                 for path in sorted(folder.glob("*.py")) if path.name not in expected]
    return problems


def validate(folder: Path, source_url=None) -> tuple:
    """All problems with one module folder (empty if it can be released), and a summary."""
    name = folder.name
    missing = [problem for problem in check_folder_files(folder) if problem.startswith("missing")]
    if missing:
        return missing, ""
    problems = check_folder_files(folder)
    problems += [f"{path}: unsafe file name for upload" for path in files_to_upload(folder) if not SAFE_PATH.match(path)]
    problems += check_card(folder, source_url)
    try:
        sdk_version = read_front_matter(folder)[0].get("sdk_version")
    except ReleaseError:
        sdk_version = None
    problems += check_requirements(folder, sdk_version)
    problems += check_relative_imports(folder, name)
    problems += check_app(folder)
    doctest_problems, examples = check_doctests(folder, name)
    problems += doctest_problems
    return problems, f"files, card, requirements, imports, app, {examples} documented examples"


# ----------------------------------------------------------------------------------------
# Release
# ----------------------------------------------------------------------------------------


def upload(folder: Path, repo_id: str, files: list, token: str, source_url=None) -> str:
    import tempfile

    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="space", space_sdk="gradio", exist_ok=True)
    with tempfile.TemporaryDirectory() as staging:  # what the Space receives, card links rewritten
        for relative in files:
            target = Path(staging) / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(uploaded_content(folder, relative, source_url))
        commit = api.upload_folder(
            folder_path=staging,
            repo_id=repo_id,
            repo_type="space",
            allow_patterns=files,
            commit_message=f"Release {folder.name}",
        )
    return commit.commit_url


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--namespace", required=True, help="Hub user or organisation that owns the Spaces")
    parser.add_argument("--dry-run", action="store_true", help="validate and print what would be uploaded; upload nothing")
    parser.add_argument("--source-url", help="the repository's address at the released revision "
                        "(e.g. https://github.com/OWNER/REPO/blob/v1.0): card links into ../docs point there on the Hub")
    parser.add_argument("modules", nargs="*", help="module folders to release (default: all)")
    args = parser.parse_args(argv)

    if not re.fullmatch(r"[\w.-]+", args.namespace):
        parser.error(f"--namespace: expected a Hub user or organisation name, found {args.namespace!r}")
    if args.source_url is not None and not re.fullmatch(r"https?://[^\s()<>\"']+", args.source_url):
        parser.error(f"--source-url: expected an http(s) address such as https://github.com/OWNER/REPO/blob/v1.0, "
                     f"found {args.source_url!r}")
    folders = vendor.module_folders()
    known = {folder.name: folder for folder in folders}
    unknown = [name for name in args.modules if name not in known]
    if unknown:
        parser.error(f"unknown module(s) {', '.join(unknown)}; the modules are {', '.join(known)}")
    selected = [known[name] for name in args.modules] if args.modules else folders
    if not selected:
        print("error: no module folders found", file=sys.stderr)
        return 1
    token = os.environ.get("HF_TOKEN")
    if not args.dry_run and not token:
        print("error: set HF_TOKEN to a Hub token with write access (or use --dry-run)", file=sys.stderr)
        return 1

    # 1. Generate the helpers: the release ships what shared/ says, never a stale or edited copy.
    try:
        written = vendor.vendor(check=False)
    except vendor.VendorError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(f"generated: {path.relative_to(vendor.REPO_ROOT)}")
    print("helpers: generated from shared/")

    # 2. Validate every selected folder before uploading anything.
    failed = False
    for folder in selected:
        problems, summary = validate(folder, args.source_url)
        if problems:
            failed = True
            print(f"error: {folder.name} cannot be released:", file=sys.stderr)
            for problem in problems:
                print(f"  - {problem}", file=sys.stderr)
        else:
            print(f"checked {folder.name}: {summary}")
    if failed:
        return 1

    # 3. Upload, or say exactly what would be uploaded.
    for folder in selected:
        repo_id = f"{args.namespace}/{folder.name}"
        files = files_to_upload(folder)
        verb = "would upload" if args.dry_run else "uploading"
        print(f"{verb} {folder.name}/ to Space {repo_id} (sdk gradio, created if missing), {len(files)} files:")
        for relative in files:
            print(describe_file(folder, relative, args.source_url))
        print(f'  then: evaluate.load("{repo_id}")')
        if not args.dry_run:
            print(f"  committed: {upload(folder, repo_id, files, token, args.source_url)}")
    if args.dry_run:
        print("dry run: nothing was uploaded")
    return 0


if __name__ == "__main__":
    sys.exit(main())
