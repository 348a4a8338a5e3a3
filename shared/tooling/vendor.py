"""Generate each module folder's helper files from ``shared/``: one flat file per consumer.

A module folder is uploaded to a Space as it is, and ``evaluate.load`` fetches only the
files its metric script imports directly (``from .helper import ...``); it does not follow
a helper's own imports. So each folder gets, generated here and never committed:

``<name>/shared_core.py``
    everything ``<name>.py`` imports from ``shared/``, in one flat file. The script
    imports from it alone, one name per line: ``from .shared_core import CountsMetric``.
``<name>/shared_space.py``
    everything the Space's ``app.py`` imports (``from shared_space import build_app``).

How a flat file is made
    The names the consumer imports from it are looked up in the ``shared/`` file that
    defines each (at top level); those files and, transitively, the ``shared/`` files they
    import relatively are copied whole, each after the files it imports. Each section
    opens with a banner naming its source. Inside a section every line is the source's own
    line, except that relative imports (``from .inputs import as_array``) are commented
    out in place (the names are defined above), so line L of a section is line L - offset
    of its source: ``python -m shared.tooling.vendor --where balanced_accuracy/shared_core.py:1234``
    prints the ``shared/`` file and line to fix; the banner gives the offset.
One meaning for each name
    A flat file is one namespace. A top-level name that two of its sources define (or
    import from different places) would silently be the last one: vendoring fails instead,
    naming both files. So does a name a consumer imports that no ``shared/`` file defines,
    or that several do.

Usage::

    python -m shared.tooling.vendor                # write every folder's helpers (make vendor)
    python -m shared.tooling.vendor --check        # exit 1 if a helper is missing or differs
    python -m shared.tooling.vendor --where balanced_accuracy/shared_core.py:1234
"""

import argparse
import ast
import hashlib
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Set, Tuple

SHARED_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = SHARED_DIR.parent
# Tools (vendoring, release, planning for examples) and package markers: never vendored.
NOT_VENDORED_PACKAGES = ("tooling",)
NOT_VENDORED_FILES = ("__init__.py",)
CORE_HELPER = "shared_core"  # what <name>.py imports: from .shared_core import ...
SPACE_HELPER = "shared_space"  # what app.py imports: from shared_space import ...
# The files committed in a module folder; the helpers above are generated beside them.
COMMITTED_FILES = ("README.md", "app.py", "requirements.txt")
BANNER_RULE = "# " + "=" * 86
_BANNER = re.compile(r"^# shared/(?P<file>[\w./]+): lines \d+-(?P<last>\d+) here are its lines 1-\d+ \(offset (?P<offset>\d+)\)$")


class VendorError(Exception):
    """Why a helper cannot be generated; the message says what to change in ``shared/``."""


def module_folders(root: Path = REPO_ROOT) -> List[Path]:
    """Folders holding a metric script named after the folder (``<name>/<name>.py``)."""
    return sorted(path.parent for path in root.glob("*/*.py") if path.stem == path.parent.name)


def helper_files(folder: Path) -> Dict[str, Path]:
    """The generated helpers of a folder: {consumer file: helper path}."""
    return {f"{folder.name}.py": folder / f"{CORE_HELPER}.py", "app.py": folder / f"{SPACE_HELPER}.py"}


# ----------------------------------------------------------------------------------------
# Reading shared/
# ----------------------------------------------------------------------------------------


@dataclass
class Source:
    """One vendorable file of ``shared/``: its text, the shared files it imports relatively,
    the names it defines at top level and the names it imports from elsewhere."""

    name: str
    text: str
    tree: ast.Module
    imports: Set[str]
    defines: Set[str]
    external: Dict[str, str]  # name -> "module.attribute" it is bound to


def _top_level_names(tree: ast.Module) -> Tuple[Set[str], Dict[str, str]]:
    defines, external = set(), {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defines.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            defines.update(item.id for target in targets for item in ast.walk(target) if isinstance(item, ast.Name))
        elif isinstance(node, ast.Import):
            external.update({(alias.asname or alias.name).split(".")[0]: alias.name for alias in node.names})
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            external.update({alias.asname or alias.name: f"{node.module}.{alias.name}" for alias in node.names})
    return defines, external


def read_sources(shared_dir: Path = SHARED_DIR) -> Dict[str, Source]:
    """Every vendorable file of ``shared/`` by its path there (``counting/confusion.py``).

    Imports inside ``shared/`` are relative and name names: ``from .inputs import as_array``
    within a sub-package, ``from ..stats.binomial import z_value`` across them.
    """
    sources = {}
    for path in sorted(shared_dir.rglob("*.py")):
        relative = path.relative_to(shared_dir)
        if path.name in NOT_VENDORED_FILES or relative.parts[0] in NOT_VENDORED_PACKAGES or len(relative.parts) != 2:
            continue
        name = relative.as_posix()
        text = path.read_text(encoding="utf-8")
        tree = ast.parse(text, filename=str(path))
        imports = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                target = _relative_target(relative, node)
                if target is None:
                    raise VendorError(f"shared/{name}:{node.lineno}: expected `from .<file> import <name>` or "
                                      f"`from ..<package>.<file> import <name>`, found {ast.get_source_segment(text, node)!r}; "
                                      "import names, not modules")
                imports.add(target)
        defines, external = _top_level_names(tree)
        sources[name] = Source(name, text, tree, imports, defines, external)
    return sources


def _relative_target(relative: Path, node: ast.ImportFrom) -> Optional[str]:
    """The ``shared/`` path a relative import names (``counting/inputs.py``), or None if not of our one style."""
    parts = (node.module or "").split(".")
    if node.level == 1 and len(parts) == 1 and parts[0]:
        return f"{relative.parts[0]}/{parts[0]}.py"
    if node.level == 2 and len(parts) == 2:
        return f"{parts[0]}/{parts[1]}.py"
    return None


def wanted_names(consumer: Path, helper: str) -> List[str]:
    """The names ``consumer`` imports from the helper module ``helper`` (relative or plain)."""
    if not consumer.exists():
        return []
    names = []
    for node in ast.walk(ast.parse(consumer.read_text(encoding="utf-8"), filename=str(consumer))):
        if isinstance(node, ast.ImportFrom) and node.module == helper:
            names.extend(alias.name for alias in node.names)
    return names


def bundle_files(names: List[str], consumer: str, sources: Dict[str, Source]) -> List[str]:
    """The shared files a consumer needs for ``names``, each after the files it imports."""
    defined_in: Dict[str, List[str]] = {}
    for source in sources.values():
        for name in source.defines:
            defined_in.setdefault(name, []).append(source.name)
    roots = []
    for name in names:
        places = defined_in.get(name, [])
        if len(places) != 1:
            found = "no shared/ file defines it" if not places else f"it is defined in {', '.join(f'shared/{p}' for p in sorted(places))}"
            raise VendorError(f"{consumer} imports {name!r}: expected one shared/ file defining it, but {found}")
        roots.append(places[0])
    ordered: List[str] = []
    visiting: List[str] = []

    def visit(file: str) -> None:
        if file in ordered:
            return
        if file in visiting:
            cycle = " -> ".join(visiting[visiting.index(file):] + [file])
            raise VendorError(f"shared/ imports in a cycle: {cycle}")
        if file not in sources:
            raise VendorError(f"{visiting[-1] if visiting else consumer} imports {file}, which is not a vendorable shared/ file")
        visiting.append(file)
        for imported in sorted(sources[file].imports):
            visit(imported)
        visiting.pop()
        ordered.append(file)

    for root in sorted(set(roots)):
        visit(root)
    return ordered


def check_one_meaning(files: List[str], sources: Dict[str, Source], helper: str) -> None:
    """A flat file is one namespace: fail if two of its sources give one name two meanings."""
    meaning: Dict[str, Tuple[str, str]] = {}  # name -> (file, what it is)
    for file in files:
        source = sources[file]
        own = {name: "a definition" for name in source.defines}
        own.update({name: f"an import of {target}" for name, target in source.external.items() if name not in own})
        for name, what in own.items():
            if name in meaning and (meaning[name][1] != what or what == "a definition"):
                first_file, first_what = meaning[name]
                raise VendorError(
                    f"{helper}: the name {name!r} is {first_what} in shared/{first_file} and {what} in shared/{file}; "
                    f"one flat file is one namespace, so rename one of them"
                )
            meaning.setdefault(name, (file, what))


# ----------------------------------------------------------------------------------------
# Writing one flat file
# ----------------------------------------------------------------------------------------


def _section(source: Source) -> List[str]:
    """The source's lines, with its relative imports commented out in place (same line count)."""
    lines = source.text.splitlines()
    for node in ast.walk(source.tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            indent = " " * node.col_offset
            # Inside a block, an import may be its only statement: `pass` keeps the block valid.
            lines[node.lineno - 1] = f"{indent}{'pass  ' if node.col_offset else ''}# vendored: {lines[node.lineno - 1].strip()}"
            for number in range(node.lineno, node.end_lineno):
                lines[number] = f"{indent}# {lines[number].strip()}"
    return lines


def flat_helper(consumer: str, names: List[str], helper: str, sources: Dict[str, Source]) -> str:
    """The text of one flat helper file (see the module doc)."""
    files = bundle_files(names, consumer, sources)
    check_one_meaning(files, sources, helper)
    sections = {file: _section(sources[file]) for file in files}
    # evaluate caches a loaded module under a hash of its code without comments: the digest of
    # everything, comments and banners included, is code, so any change reaches the cache.
    digest = hashlib.sha256("\n".join("\n".join(lines) for lines in sections.values()).encode("utf-8")).hexdigest()[:16]
    out = [
        f'"""GENERATED by `make vendor` (python -m shared.tooling.vendor) from shared/: do not edit.',
        "",
        f"Everything {consumer} imports, flattened from: {', '.join(files)} (sha256 {digest}).",
        "Fix a bug in shared/, never here: each section's banner maps its lines to the source,",
        "and `python -m shared.tooling.vendor --where <this file>:<line>` prints the shared/ file and line.",
        '"""',
    ]
    for file, lines in sections.items():
        offset = len(out) + 4  # the banner's 4 lines come first
        banner = f"# shared/{file}: lines {offset + 1}-{offset + len(lines)} here are its lines 1-{len(lines)} (offset {offset})"
        out += ["", BANNER_RULE, banner, BANNER_RULE]
        out += lines
    return "\n".join(out) + "\n"


def generated(folder: Path, sources: Optional[Dict[str, Source]] = None) -> Dict[Path, str]:
    """{helper path: text} for one module folder."""
    sources = read_sources() if sources is None else sources
    result = {}
    for consumer, helper_path in helper_files(folder).items():
        names = wanted_names(folder / consumer, helper_path.stem)
        if names:
            result[helper_path] = flat_helper(f"{folder.name}/{consumer}", names, helper_path.name, sources)
    return result


def vendor(check: bool, root: Path = REPO_ROOT) -> List[Path]:
    """Write (or, with ``check``, compare) every folder's helpers; returns those that were
    missing or differed (and, when writing, generated files no consumer imports any more)."""
    sources = read_sources()
    stale = []
    for folder in module_folders(root):
        wanted = generated(folder, sources)
        for path, text in wanted.items():
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path)
                if not check:
                    path.write_text(text, encoding="utf-8")
        for path in helper_files(folder).values():
            if path not in wanted and path.exists():
                stale.append(path)
                if not check:
                    path.unlink()
    return stale


def line_sources(path: Path) -> dict:
    """``{line: "shared/<file>:<line>"}`` for every line of a generated helper that is a line of
    ``shared/`` (read from the section banners, in one pass)."""
    sources, section = {}, None
    for number, text in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        match = _BANNER.match(text)
        if match:
            section = (match.group("file"), int(match.group("offset")), int(match.group("last")))
        elif section is not None and section[1] < number <= section[2]:
            sources[number] = f"shared/{section[0]}:{number - section[1]}"
    return sources


def where(location: str) -> str:
    """``"<helper file>:<line>"`` -> ``"shared/<file>:<line>"`` (from the section banners)."""
    path_text, _, line_text = location.rpartition(":")
    found = line_sources(Path(path_text)).get(int(line_text))
    return found or f"{location}: the generated header or a banner, not a line of shared/"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if a generated helper is missing or differs")
    parser.add_argument("--where", metavar="FILE:LINE", help="the shared/ file and line behind a line of a generated helper")
    args = parser.parse_args(argv)
    if args.where:
        print(where(args.where))
        return 0
    folders = module_folders()
    if not folders:
        print("no module folders found", file=sys.stderr)
        return 1
    try:
        stale = vendor(check=args.check)
    except VendorError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    for path in stale:
        state = "missing or differs from shared/" if args.check else "written"
        print(f"{state}: {path.relative_to(REPO_ROOT)}")
    if args.check and stale:
        print("run `make vendor` (python -m shared.tooling.vendor) to generate them", file=sys.stderr)
        return 1
    if not stale:
        print(f"helpers up to date in {', '.join(folder.name for folder in folders)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
