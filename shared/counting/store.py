"""The store: what ``add_batch`` keeps between calls, and what processes hand to process 0.

A ``Store`` holds count tables (``counts.CountTable``: sufficient statistics, whose size
follows the number of distinct label tuples, not the number of samples), moments (named
float64 arrays that merge by addition, such as cross-sums over clusters) and, for inputs a
compute-time threshold still has to turn into labels, raw columns (copies, in the
narrowest type that holds them). Every batch is validated and counted into a store of
its own first; ``merge`` then checks that it fits what is already kept (the same kinds
of labels, row widths and counting settings) before anything changes, so a rejected
batch loses nothing already stored.

In distributed mode each process ``save``s its store to its cache file and process 0
``load``s and merges them: a file holds counts, a few kilobytes for labels, whatever
the number of samples.
"""

import json
from typing import Any, Dict, List, Optional, Sequence, Set

import numpy as np

from .counts import CountTable
from .counts import JointCounts
from .counts import narrowest
from .counts import squared_weights
from .inputs import is_string_array


class Store:
    """Count tables (by name) and raw columns (by name, a list of batch chunks); see the module doc."""

    def __init__(self):
        self.tables: Dict[str, CountTable] = {}
        self.raw: Dict[str, List[Optional[np.ndarray]]] = {}
        self.settings: Dict[str, Any] = {}  # how batches were counted (e.g. top-k's labels): must agree
        # The dtypes the references came in, over all batches: whether a value looks like
        # padding depends on it (255 marks void pixels in uint8 segmentation maps).
        self.reference_dtypes: Set[str] = set()
        # Sums that merge by addition (e.g. cross-sums over clusters): float64 arrays by name.
        self.moments: Dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        """Samples stored."""
        counted = sum(len(table) for name, table in self.tables.items() if not name.startswith("_"))
        first = next(iter(self.raw.values()), None)
        return counted + (sum(len(chunk) for chunk in first if chunk is not None) if first else 0)

    def note_references(self, references: np.ndarray) -> None:
        """Record the dtype of a batch's references, as given (before any conversion)."""
        self.reference_dtypes.add(references.dtype.name)

    def keep_raw(self, columns: Dict[str, Optional[np.ndarray]]) -> None:
        """Keep one batch's raw columns (None: a column this batch does not have)."""
        if self.raw and set(columns) != set(self.raw):
            raise ValueError(f"expected the columns {sorted(self.raw)} like the earlier batches, found {sorted(columns)}.")
        for name, column in columns.items():
            self.raw.setdefault(name, []).append(None if column is None else narrowest(column))

    def merge(self, other: "Store") -> None:
        """Add ``other`` (a batch, or another process's store); checks everything first."""
        for key, value in other.settings.items():
            if key in self.settings and self.settings[key] != value:
                raise ValueError(f"{key}: expected {self.settings[key]!r} like the earlier batches, found {value!r}.")
        for name, table in other.tables.items():
            if name in self.tables:
                for mine, theirs in zip(self.tables[name].axes, table.axes):
                    if theirs.kind is not None and mine.kind is not None and theirs.kind != mine.kind:
                        raise TypeError(f"{mine.name}: expected {mine.kind} labels like the earlier batches, found {theirs.kind}s.")
        for name, chunks in other.raw.items():
            self._check_raw(name, chunks)
        for name, values in other.moments.items():
            if name in self.moments and self.moments[name].shape != values.shape:
                raise ValueError(f"{name}: expected sums of shape {self.moments[name].shape} like the earlier batches, found "
                                 f"{values.shape}.")
        self.settings.update(other.settings)
        for name, values in other.moments.items():  # new arrays: the other store's stay its own
            self.moments[name] = np.array(values, dtype=np.float64) + self.moments.get(name, 0.0)
        self.reference_dtypes |= other.reference_dtypes
        for name, table in other.tables.items():
            if name not in self.tables:
                self.tables[name] = CountTable(table.names)
            self.tables[name].absorb(table)
        if other.raw and not self.raw:
            self.raw = {name: [] for name in other.raw}
        for name, chunks in other.raw.items():
            self.raw[name].extend(chunks)

    def _check_raw(self, name: str, chunks: List[Optional[np.ndarray]]) -> None:
        mine = [chunk for chunk in self.raw.get(name, []) if chunk is not None and chunk.size]
        theirs = [chunk for chunk in chunks if chunk is not None and chunk.size]
        if not mine or not theirs:
            return
        kind = (lambda chunk: "string" if is_string_array(chunk) else "float" if chunk.dtype.kind == "f" else "integer")
        if kind(mine[0]) != kind(theirs[0]) and "string" in (kind(mine[0]), kind(theirs[0])):
            raise TypeError(f"{name}: expected {kind(mine[0])} values like the earlier batches, found {kind(theirs[0])} values.")
        if mine[0].shape[1:] != theirs[0].shape[1:]:
            raise ValueError(f"{name}: expected rows of length {mine[0].shape[1:]} like the earlier batches, found {theirs[0].shape[1:]}.")

    def raw_columns(self) -> Optional[Dict[str, Optional[np.ndarray]]]:
        """The raw columns, each one array (None for a column no batch had), or None if none was kept."""
        if not self.raw:
            return None
        columns = {}
        for name, chunks in self.raw.items():
            present = [chunk for chunk in chunks if chunk is not None]
            if present and len(present) != len(chunks):
                raise ValueError(f"{name}: given with some batches and not others; pass it with every batch or with none.")
            columns[name] = None if not present else present[0] if len(present) == 1 else np.concatenate(present)
        return columns

    # ------------------------------------------------------------------ files
    def save(self, path: str) -> None:
        """Write the store to ``path`` (NumPy's npz; no pickled objects)."""
        arrays: Dict[str, np.ndarray] = {}
        layout = {"settings": self.settings, "reference_dtypes": sorted(self.reference_dtypes), "tables": {}, "raw": {}}
        for name, table in self.tables.items():
            counts = table.result()
            layout["tables"][name] = {"keys": table.names, "weighted": counts.w is not None, "w2_exponent": counts.w2_exponent}
            # Integer keys and counts in their narrowest types: the file is what a process hands over.
            for key, values in counts.keys.items():
                arrays[f"table/{name}/key/{key}"] = values.astype(str) if values.dtype == object else narrowest(values)
            arrays[f"table/{name}/n"] = narrowest(counts.n)
            for field in ("w", "w2"):
                if getattr(counts, field) is not None:
                    arrays[f"table/{name}/{field}"] = getattr(counts, field)
        for name, column in (self.raw_columns() or {}).items():
            layout["raw"][name] = column is not None
            if column is not None:
                arrays[f"raw/{name}"] = column.astype(str) if column.dtype == object else column
        for name, values in self.moments.items():
            arrays[f"moments/{name}"] = values
        arrays["layout"] = np.array(json.dumps(layout))
        with open(path, "wb") as file:
            np.savez(file, **arrays)

    @classmethod
    def load(cls, path: str) -> "Store":
        store = cls()
        with np.load(path, allow_pickle=False) as data:
            layout = json.loads(str(data["layout"]))
            store.settings = layout["settings"]
            store.reference_dtypes = set(layout.get("reference_dtypes", ()))
            for name, spec in layout["tables"].items():
                fields = {field: data[f"table/{name}/{field}"] for field in ("n", "w", "w2") if f"table/{name}/{field}" in data}
                fields["n"] = fields["n"].astype(np.int64)
                counts = JointCounts({key: data[f"table/{name}/key/{key}"] for key in spec["keys"]}, **fields,
                                     w2_exponent=spec["w2_exponent"])
                store.tables[name] = CountTable(spec["keys"])
                store.tables[name].merge(counts)
            for name, present in layout["raw"].items():
                store.raw[name] = [data[f"raw/{name}"] if present else None]
            moments = [key for key in data.files if key.startswith("moments/")]
            store.moments = {key[len("moments/"):]: data[key].astype(np.float64) for key in moments}
        return store


def stored_rows(stored: Store, table_name: str, keys: Sequence[str]) -> JointCounts:
    """Everything ``stored`` for one system as one ``JointCounts``: the counted tuples of the table
    ``table_name``, then each raw row (scores a compute-time threshold still needs) as a tuple
    of one sample with its weight, the squared weights of both on one exponent."""
    counted = stored.tables.get(table_name, CountTable(list(keys))).result()
    raw = stored.raw_columns()
    if not raw:
        return counted
    values = {key: np.concatenate([counted.keys[key], raw[key]]) if counted.n.size else raw[key] for key in keys}
    raw_n = np.ones(raw["references"].size, np.int64)  # one sample per raw row
    n = np.concatenate([counted.n, raw_n]) if counted.n.size else raw_n
    if counted.w is None and raw["sample_weight"] is None:
        return JointCounts(values, n)
    ones = np.ones(raw["references"].size)
    raw_weight = ones if raw["sample_weight"] is None else raw["sample_weight"]
    raw_squares, raw_exponent = (ones, 0) if raw["sample_weight"] is None else squared_weights(raw_weight)
    counted_w = counted.weight.astype(np.float64)
    counted_squares = counted_w if counted.w2 is None else counted.w2  # unweighted: weight 1 per sample
    # Nothing counted: no exponent of its own (0 could make tiny raw squares underflow).
    counted_exponent = counted.w2_exponent if counted.n.size else raw_exponent
    exponent = max(counted_exponent, raw_exponent)
    w = np.concatenate([counted_w, raw_weight])
    w2 = np.concatenate([np.ldexp(counted_squares, 2 * (counted_exponent - exponent)), np.ldexp(raw_squares, 2 * (raw_exponent - exponent))])
    return JointCounts(values, n, w, w2, exponent)
