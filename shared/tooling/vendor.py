"""Generate each module folder's helper files from ``shared/``: one flat file per consumer.

A module folder is uploaded to a Space as it is, and ``evaluate.load`` fetches only the
files its metric script imports directly (``from .helper import ...``); it does not follow
a helper's own imports. So each folder gets, generated here and never committed:

``<name>/shared_core.py``
    what ``<name>.py`` imports from ``shared/``, in one flat file. The script imports from
    it alone, one name per line: ``from .shared_core import CountsMetric``.
``<name>/shared_space.py``
    what the Space's ``app.py`` imports (``from shared_space import build_app``), and every
    top-level name of ``space/app.py`` (the Space helper's interface: the tests use it).

How a flat file is made
    Each ``shared/`` file is read as its top-level statements. A definition (function,
    class, assignment) binding a name the consumer imports is kept; then, name by name,
    every definition binding a name a kept statement reads anywhere inside it (decorators,
    bases, defaults, annotations, bodies, f-strings; scopes resolved by ``symtable``, so a
    local variable is not mistaken for a top-level name), a relative import leading to the
    file that defines the name. An external import is kept if a kept statement reads a name
    it binds; a top-level statement that is neither a definition nor an import (a call, an
    ``if``) is kept with its file, whatever it touches. Module docstrings and relative
    imports are left out. The kept statements, each with the comment lines above it, come
    in their files' dependency order (each file after the files it imports) and, within a
    file, in its own order, so whatever a definition needs on import is defined above it.
    Each run of consecutive kept lines opens with a banner naming its source and lines;
    every line under it is the source's own (a relative import inside a definition is
    commented out in place), so ``python -m shared.tooling.vendor --where
    balanced_accuracy/shared_core.py:1234`` prints the ``shared/`` file and line to fix.
One meaning for each name
    A flat file is one namespace. A top-level name that two of the files it draws on define
    (or import from different places) would silently be the last one: vendoring fails
    instead, naming both files (checked on the whole files, kept or not). So does a name a
    consumer imports that no ``shared/`` file defines, or that several do.

Usage::

    python -m shared.tooling.vendor                # write every folder's helpers (make vendor)
    python -m shared.tooling.vendor --check        # exit 1 if a helper is missing or differs
    python -m shared.tooling.vendor --where balanced_accuracy/shared_core.py:1234
"""

import argparse
import ast
import hashlib
import re
import symtable
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

SHARED_DIR = Path(__file__).resolve().parent.parent
REPO_ROOT = SHARED_DIR.parent
# Tools (vendoring, release, planning for examples) and package markers: never vendored.
NOT_VENDORED_PACKAGES = ("tooling",)
NOT_VENDORED_FILES = ("__init__.py",)
CORE_HELPER = "shared_core"  # what <name>.py imports: from .shared_core import ...
SPACE_HELPER = "shared_space"  # what app.py imports: from shared_space import ...
# The files committed in a module folder; the helpers above are generated beside them.
COMMITTED_FILES = ("README.md", "app.py", "requirements.txt")
# The shared/ file whose top-level names are a helper's interface, all of them kept: space/app.py
# says so in its doc ("the names a Space's app.py uses ... and those the tests use are importable from here").
INTERFACE_FILES = {SPACE_HELPER: ("space/app.py",)}
BANNER_RULE = "# " + "=" * 86
_BANNER = re.compile(r"^# shared/(?P<file>[\w./]+): lines (?P<here>\d+)-(?P<last>\d+) here are its lines (?P<first>\d+)-\d+$")


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
    cache: Dict[str, Any] = field(default_factory=dict, repr=False)  # what the functions below work out once


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
# What a consumer can reach: top-level statements, followed by the names they use
# ----------------------------------------------------------------------------------------


@dataclass
class Unit:
    """One top-level statement of a ``shared/`` file: the lines it spans (with the comments
    just above it), the top-level names it binds and the names it uses (anywhere inside it)."""

    first: int  # its first line, a comment or decorator above it included (1-based)
    last: int
    kind: str  # "definition", "import" (not relative), "relative" (import), "docstring" or "statement"
    binds: Set[str]
    uses: Set[str]


def _module_scope_names(node: ast.AST) -> Set[str]:
    """The names a top-level statement reads in the module's own scope: an assignment's
    value, a definition's decorators, defaults, bases and annotations, a comprehension's
    first iterable; not what the scopes it opens read (``_global_names`` has those)."""
    used = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, ast.Name) and not isinstance(item.ctx, ast.Store):
            used.add(item.id)
        if isinstance(item, ast.AugAssign) and isinstance(item.target, ast.Name):  # `X += ...` reads X
            used.add(item.target.id)
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            arguments = item.args
            stack += [*arguments.defaults, *(d for d in arguments.kw_defaults if d is not None)]
            stack += [arg.annotation for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                                                 arguments.vararg, arguments.kwarg) if arg is not None and arg.annotation is not None]
            stack += list(getattr(item, "decorator_list", []))
            stack += [item.returns] if getattr(item, "returns", None) is not None else []
        elif isinstance(item, ast.ClassDef):
            stack += [*item.decorator_list, *item.bases, *(keyword.value for keyword in item.keywords)]
        elif isinstance(item, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            stack.append(item.generators[0].iter)
        else:
            stack += list(ast.iter_child_nodes(item))
    return used


def _global_names(table: symtable.SymbolTable) -> Set[str]:
    """The module-level names a scope and the scopes inside it read or assign (``global``).
    A class body looks up a name it reads in the module when the class has not bound it yet
    (``X = X``), so every name a class body reads counts."""
    names = {symbol.get_name() for symbol in table.get_symbols()
             if symbol.is_global() or table.get_type() == "class" and symbol.is_referenced()}
    for child in table.get_children():
        names |= _global_names(child)
    return names


def _string_annotation_names(node: ast.AST) -> Set[str]:
    """Names inside string annotations (``"Counts"``): not evaluated on import, kept all the same."""
    used = set()
    for item in ast.walk(node):
        annotation = (item.annotation if isinstance(item, (ast.arg, ast.AnnAssign)) else
                      item.returns if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) else None)
        for part in ast.walk(annotation) if annotation is not None else ():
            if isinstance(part, ast.Constant) and isinstance(part.value, str):
                try:
                    used.update(name.id for name in ast.walk(ast.parse(part.value, mode="eval")) if isinstance(name, ast.Name))
                except SyntaxError:
                    pass
    return used


def _bound_names(node: ast.stmt) -> Set[str]:
    """The module-level names a top-level statement binds (inside an ``if``, ``try``, ``for``
    or ``with`` too), not those of the scopes it opens."""
    bound = set()
    stack = [node]
    while stack:
        item = stack.pop()
        if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(item.name)
        elif isinstance(item, (ast.Import, ast.ImportFrom)):
            bound.update((alias.asname or alias.name).split(".")[0] for alias in item.names)
        elif isinstance(item, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            continue
        else:
            if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store):
                bound.add(item.id)
            stack += list(ast.iter_child_nodes(item))
    return bound


def _is_plain_assignment(node: ast.stmt) -> bool:
    """``NAME = ...``, ``A, B = ...``, ``NAME: T = ...``: binds names, changes nothing else."""
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, ast.AnnAssign) and node.simple:
        targets = [node.target]
    else:
        return False
    return all(isinstance(item, (ast.Name, ast.Tuple, ast.List)) for target in targets for item in ast.walk(target)
               if not isinstance(item, ast.expr_context))


def top_level_units(source: Source) -> List[Unit]:
    """The file's top-level statements in order. A unit starts after the previous one ends,
    so the comments above a definition go with it; statements sharing a line are one unit.
    Worked out once per source (every helper asks)."""
    if "units" in source.cache:
        return source.cache["units"]
    units: List[Unit] = []
    body = source.tree.body
    # The scopes a statement opens (functions, classes, lambdas, comprehensions), by the line they start on.
    scopes: Dict[int, List[symtable.SymbolTable]] = {}
    for table in symtable.symtable(source.text, source.name, "exec").get_children():
        scopes.setdefault(table.get_lineno(), []).append(table)

    def uses(node: ast.stmt) -> Set[str]:
        names = _module_scope_names(node) | _string_annotation_names(node)
        opens = min([node.lineno, *(item.lineno for item in getattr(node, "decorator_list", []))])
        for line in range(opens, node.end_lineno + 1):
            for table in scopes.get(line, ()):
                names |= _global_names(table)
        return names

    for index, node in enumerate(body):
        first = node.decorator_list[0].lineno if getattr(node, "decorator_list", None) else node.lineno
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) or _is_plain_assignment(node):
            kind = "definition"
        elif isinstance(node, ast.ImportFrom) and node.level:
            kind = "relative"
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            kind = "import"
        elif index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            kind = "docstring"
        else:
            kind = "statement"  # anything else (a call, an if, an augmented assignment...): kept with its file
        if units and first <= units[-1].last:  # `a = 1; b = 2`
            merged = units[-1]
            merged.last, merged.binds, merged.uses = node.end_lineno, merged.binds | _bound_names(node), merged.uses | uses(node)
            merged.kind = merged.kind if merged.kind == kind else "statement"
            continue
        start = units[-1].last + 1 if units else 1
        units.append(Unit(min(start, first), node.end_lineno, kind, _bound_names(node), uses(node)))
    source.cache["units"] = units
    return units


def _relative_bindings(source: Source) -> Dict[str, str]:
    """{name: the shared/ file it is imported from}, for every relative import of the file."""
    if "relative" in source.cache:
        return source.cache["relative"]
    bound = source.cache["relative"] = {}
    for node in ast.walk(source.tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            target = _relative_target(Path(source.name), node)
            bound.update({alias.asname or alias.name: target for alias in node.names})
    return bound


def reachable_units(roots: List[Tuple[str, str]], sources: Dict[str, Source]) -> Dict[str, Set[int]]:
    """{shared file: indices of its units to keep}: the units binding each (file, name) of
    ``roots``, then whatever the kept units use, name by name, followed through relative
    imports into the file that defines it. A file with any unit kept keeps its statements
    that are not definitions or imports (they may register or configure something)."""
    units: Dict[str, List[Unit]] = {}
    relative: Dict[str, Dict[str, str]] = {}
    binders: Dict[str, Dict[str, List[int]]] = {}  # file -> name -> the units binding it

    def read(file: str) -> None:  # only the files a helper reaches are analysed
        if file in units:
            return
        units[file], relative[file], binders[file] = top_level_units(sources[file]), _relative_bindings(sources[file]), {}
        for index, unit in enumerate(units[file]):
            if unit.kind in ("definition", "import", "statement"):
                for name in unit.binds:
                    binders[file].setdefault(name, []).append(index)

    kept: Dict[str, Set[int]] = {}
    pending = list(roots)
    seen: Set[Tuple[str, str]] = set()

    def keep(file: str, index: int) -> None:
        if index in kept.setdefault(file, set()):
            return
        if not kept[file]:  # the file's first kept unit: its other statements come along
            for other, unit in enumerate(units[file]):
                if unit.kind == "statement" and other != index:
                    kept[file].add(other)
                    pending.extend((file, name) for name in units[file][other].uses)
        kept[file].add(index)
        pending.extend((file, name) for name in units[file][index].uses)

    while pending:
        file, name = pending.pop()
        if (file, name) in seen:
            continue
        seen.add((file, name))
        read(file)
        if name in binders[file]:
            for index in binders[file][name]:
                keep(file, index)
        elif name in relative[file]:
            pending.append((relative[file][name], name))
        # otherwise a builtin or a local name: nothing to keep
    return {file: indices for file, indices in kept.items() if indices}


# ----------------------------------------------------------------------------------------
# Writing one flat file
# ----------------------------------------------------------------------------------------


def _source_lines(source: Source) -> List[str]:
    """The source's lines, with its relative imports commented out in place (same line count)."""
    if "lines" in source.cache:
        return source.cache["lines"]
    lines = source.cache["lines"] = source.text.splitlines()
    for node in ast.walk(source.tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            indent = " " * node.col_offset
            # Inside a block, an import may be its only statement: `pass` keeps the block valid.
            lines[node.lineno - 1] = f"{indent}{'pass  ' if node.col_offset else ''}# vendored: {lines[node.lineno - 1].strip()}"
            for number in range(node.lineno, node.end_lineno):
                lines[number] = f"{indent}# {lines[number].strip()}"
    return lines


def _runs(source: Source, keep: Set[int]) -> List[Tuple[int, List[str]]]:
    """The kept units as runs of consecutive source lines: [(first line number, lines)],
    blank lines at a run's start left out (a banner stands there)."""
    units = top_level_units(source)
    lines = _source_lines(source)
    runs: List[Tuple[int, List[str]]] = []
    previous = None
    for index in sorted(keep):
        unit = units[index]
        if previous is not None and previous == index - 1:
            runs[-1][1].extend(lines[unit.first - 1:unit.last])
        else:
            first = unit.first
            while first < unit.last and not lines[first - 1].strip():
                first += 1
            runs.append((first, lines[first - 1:unit.last]))
        previous = index
    return runs


def _banner(file: str, here: int, first: int, count: int) -> str:
    return f"# shared/{file}: lines {here}-{here + count - 1} here are its lines {first}-{first + count - 1}"


def flat_helper(consumer: str, names: List[str], helper: str, sources: Dict[str, Source]) -> str:
    """The text of one flat helper file (see the module doc)."""
    files = bundle_files(names, consumer, sources)
    check_one_meaning(files, sources, helper)
    roots = [(file, name) for name in names for file in files if name in sources[file].defines]
    # A helper's interface file keeps every top-level name it defines or imports (the Space's
    # tests call `run_metric` and the controls through the app's helper, not only `build_app`).
    for interface in INTERFACE_FILES.get(Path(helper).stem, ()):
        if interface in files:
            roots += [(interface, name) for name in sorted(sources[interface].defines | set(_relative_bindings(sources[interface])))]
    kept = reachable_units(roots, sources)
    files = [file for file in files if file in kept]
    runs = {file: _runs(sources[file], kept[file]) for file in files}
    kept_lines = sum(len(lines) for file_runs in runs.values() for _, lines in file_runs)
    total_lines = sum(len(sources[file].text.splitlines()) for file in files)
    # evaluate caches a loaded module under a hash of its code without comments: the digest of
    # everything, comments and banners included, is code, so any change reaches the cache.
    digest = hashlib.sha256("\n".join(f"{file}:{first}\n" + "\n".join(lines) for file, file_runs in runs.items()
                                      for first, lines in file_runs).encode("utf-8")).hexdigest()[:16]
    summary = (f"The top-level definitions of shared/ that {consumer} can reach from the names it imports: "
               f"{kept_lines} of the {total_lines} lines of the {len(files)} files its banners name (sha256 {digest}).")
    out = [
        f'"""GENERATED by `make vendor` (python -m shared.tooling.vendor) from shared/: do not edit.',
        "",
        *textwrap.wrap(summary, width=96, break_on_hyphens=False),
        "Fix a bug in shared/, never here: each banner maps the lines below it to their source,",
        "and `python -m shared.tooling.vendor --where <this file>:<line>` prints the shared/ file and line.",
        '"""',
    ]
    for file in files:
        for number, (first, lines) in enumerate(runs[file]):
            if number == 0:
                out += ["", BANNER_RULE, _banner(file, len(out) + 5, first, len(lines)), BANNER_RULE]
            else:
                out += ["", _banner(file, len(out) + 3, first, len(lines))]
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
            here, first = int(match.group("here")), int(match.group("first"))
            section = (match.group("file"), here - first, here, int(match.group("last")))
        elif section is not None and section[2] <= number <= section[3]:
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
