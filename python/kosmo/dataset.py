"""Reading a kosmo snapshot (``output_NNNNN/kosmo_NNNNN.h5``) into numpy arrays.

The HDF5 layout is described in docs/outputs.md. Everything here is vectorised: one numpy
expression per level, never a Python loop over octs or cells.
"""

from __future__ import annotations

import pathlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Iterator

import h5py
import numpy as np

#: Layout versions this reader understands (root attribute ``format_version``).
SUPPORTED_FORMAT_VERSIONS = (1,)

_COORDINATES = ("x", "y", "z")


@dataclass(frozen=True)
class FieldInfo:
    """One stored cell field, as registered by the code that wrote it."""

    name: str
    units: str
    comoving_exponent: int


class Cells(Mapping):
    """Leaf cells as named numpy arrays, by attribute (``cells.density``) or item
    (``cells["density"]``). Keys: ``x y z dx level`` and then every stored field."""

    def __init__(self, arrays: dict[str, np.ndarray]):
        self._arrays = dict(arrays)

    def __getitem__(self, name: str) -> np.ndarray:
        try:
            return self._arrays[name]
        except KeyError:
            raise KeyError(f"no cell array {name!r}; available: {', '.join(self._arrays)}") from None

    def __getattr__(self, name: str) -> np.ndarray:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self._arrays[name]
        except KeyError:
            raise AttributeError(f"no cell array {name!r}; available: {', '.join(self._arrays)}") from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._arrays)

    def __len__(self) -> int:
        return len(self._arrays)

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self._arrays))

    @property
    def ncells(self) -> int:
        """Number of leaf cells."""
        return int(self._arrays["x"].size)

    def __repr__(self) -> str:
        return f"<kosmo.Cells: {self.ncells} leaf cells; {', '.join(self._arrays)}>"


# --------------------------------------------------------------------------------------------
# Namelist values, as stored in /parameters/value ("7", "1.0d0", ".true.", "'hilbert'", "1,2,3").

_INTEGER = re.compile(r"^[+-]?\d+$")
_REAL = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eEdDqQ][+-]?\d+)?$")
_REPEAT = re.compile(r"^(\d+)\*(.*)$", re.DOTALL)
_TRUE = {".true.", ".t.", "t", "true"}
_FALSE = {".false.", ".f.", "f", "false"}


# One item: an optional repeat count "r*", then a quoted string (doubled quotes inside) or a run
# of characters that are neither separators (comma, blank) nor quotes.
_ITEM = re.compile(r"""(?:\d+\*)?(?:'(?:[^']|'')*'|"(?:[^"]|"")*"|[^,\s'"]+)""")


def _split_items(text: str) -> list[str]:
    """Split a namelist value list on commas and blanks outside quotes."""
    return _ITEM.findall(text)


def _parse_scalar(item: str) -> Any:
    item = item.strip()
    if len(item) >= 2 and item[0] in "'\"" and item[-1] == item[0]:
        quote = item[0]
        return item[1:-1].replace(quote * 2, quote)
    lowered = item.lower()
    if lowered in _TRUE:
        return True
    if lowered in _FALSE:
        return False
    if _INTEGER.match(item):
        return int(item)
    if _REAL.match(item):
        return float(re.sub(r"[dDqQ]", "e", item))
    return item


def parse_namelist_value(text: str) -> Any:
    """A namelist value as Python: int, float (``1.0d0``), bool (``.true.``), str (quotes
    removed) or, for several items (``1,2,3``, ``3*0.5``), a list of those."""
    items: list[Any] = []
    for item in _split_items(text.strip()):
        repeat = _REPEAT.match(item)
        if repeat and not item.startswith(("'", '"')):
            items.extend([_parse_scalar(repeat.group(2))] * int(repeat.group(1)))
        else:
            items.append(_parse_scalar(item))
    if not items:
        return ""
    return items[0] if len(items) == 1 else items


# --------------------------------------------------------------------------------------------


def _as_str(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


def _string_column(group: h5py.Group, name: str) -> list[str]:
    data = group[name][()]
    return [_as_str(item).rstrip("\0") for item in np.atleast_1d(data)]


@dataclass
class _LevelLeaves:
    """Where one level's leaf cells sit in the concatenated arrays, and their integer cell
    coordinates (2 i_d + bit_d(c), per axis) for exact point lookup."""

    level: int
    start: int
    stop: int
    cell_index: np.ndarray  # (nleaf, ndim) int64


class Dataset:
    """One kosmo snapshot. Metadata is read at once; ``cells`` is read on first use."""

    def __init__(self, filename: str | pathlib.Path):
        self.filename = pathlib.Path(filename)
        with h5py.File(self.filename, "r") as f:
            attrs = f.attrs
            if _as_str(attrs.get("format", "")) != "kosmo":
                raise ValueError(f"{self.filename} is not a kosmo snapshot (no format='kosmo' attribute)")
            self.format_version = int(attrs["format_version"])
            if self.format_version not in SUPPORTED_FORMAT_VERSIONS:
                raise ValueError(
                    f"{self.filename} has layout version {self.format_version}; this reader knows "
                    f"{SUPPORTED_FORMAT_VERSIONS} (update the kosmo package)"
                )
            self.kosmo_version = _as_str(attrs["kosmo_version"])
            self.output_number = int(attrs.get("output_number", -1))
            self.ndim = int(attrs["ndim"])
            self.levelmin = int(attrs["levelmin"])
            self.levelmax = int(attrs["levelmax"])
            self.nx, self.ny, self.nz = (int(attrs[key]) for key in ("nx", "ny", "nz"))
            self.boxlen = float(attrs["boxlen"])
            self.time = float(attrs["time"])
            self.aexp = float(attrs["aexp"])
            self.step = int(attrs["step"])
            self.ncpu = int(attrs["ncpu"])
            self.ordering = _as_str(attrs["ordering"])
            self.units = {key: float(attrs[key]) for key in ("unit_l", "unit_d", "unit_t")}
            self.cosmological = bool(attrs.get("cosmological", 0))
            self.cosmology = {key: float(attrs[key]) for key in ("H0", "omega_m", "omega_l", "omega_k", "omega_b")
                              if key in attrs}

            fields = f["fields"]
            self.fields: dict[str, FieldInfo] = {
                name: FieldInfo(name, units, int(exponent))
                for name, units, exponent in zip(
                    _string_column(fields, "name"),
                    _string_column(fields, "units"),
                    np.atleast_1d(fields["comoving_exponent"][()]),
                )
            }

            parameters = f["parameters"]
            self.params: dict[str, dict[str, Any]] = {}
            self.params_raw: dict[str, dict[str, str]] = {}
            self.params_from_file: dict[str, dict[str, bool]] = {}
            for block, name, value, from_file in zip(
                _string_column(parameters, "block"),
                _string_column(parameters, "name"),
                _string_column(parameters, "value"),
                np.atleast_1d(parameters["from_file"][()]),
            ):
                self.params.setdefault(block, {})[name] = parse_namelist_value(value)
                self.params_raw.setdefault(block, {})[name] = value
                self.params_from_file.setdefault(block, {})[name] = bool(from_file)

            self._octs = {
                level: int(f[_level_group(level)].attrs["noct"]) for level in range(1, self.levelmax + 1)
            }
        self._cells: Cells | None = None
        self._leaves: list[_LevelLeaves] = []

    # ---- geometry ---------------------------------------------------------------------------

    @property
    def box_size(self) -> np.ndarray:
        """Extent of the box along x, y, z in code length: n_d * boxlen / nx (cubic cells)."""
        return np.array([self.nx, self.ny, self.nz], dtype=float) * (self.boxlen / self.nx)

    def cell_size(self, level: int) -> float:
        """Cell size at a level: boxlen / nx / 2**level."""
        return self.boxlen / self.nx / 2.0**level

    def octs_per_level(self) -> dict[int, int]:
        """Number of octs stored at each level 1..levelmax (refined and leaf)."""
        return dict(self._octs)

    @property
    def cells(self) -> Cells:
        """Leaf cells: positions x, y, z (cell centres, code length, 0..box size; absent axes of
        1-D and 2-D runs hold the box centre), dx, level, and every stored field."""
        if self._cells is None:
            self._cells = self._read_leaf_cells()
        return self._cells

    def _read_leaf_cells(self) -> Cells:
        ndim, ncell = self.ndim, 2**self.ndim
        # bit d of cell c is its offset along axis d (c = cx + 2 cy + 4 cz, as RAMSES)
        bits = (np.arange(ncell)[:, None] >> np.arange(ndim)[None, :]) & 1  # (ncell, ndim)
        positions: list[np.ndarray] = []
        sizes, levels = [], []
        values: dict[str, list[np.ndarray]] = {name: [] for name in self.fields}
        self._leaves = []
        start = 0
        with h5py.File(self.filename, "r") as f:
            for level in range(1, self.levelmax + 1):
                group = f[_level_group(level)]
                if self._octs[level] == 0:
                    continue
                octs = group["oct_coordinates"][()].reshape(-1, ndim).astype(np.int64)
                leaf = group["son_flags"][()].reshape(-1, ncell) == 0  # (noct, ncell)
                cell_index = (2 * octs[:, None, :] + bits[None, :, :])[leaf]  # (nleaf, ndim)
                dx = self.cell_size(level)
                positions.append((cell_index + 0.5) * dx)
                sizes.append(np.full(len(cell_index), dx))
                levels.append(np.full(len(cell_index), level, dtype=np.int32))
                for name in self.fields:
                    values[name].append(group["fields"][name][()].reshape(-1, ncell)[leaf])
                self._leaves.append(_LevelLeaves(level, start, start + len(cell_index), cell_index))
                start += len(cell_index)

        position = np.concatenate(positions) if positions else np.zeros((0, ndim))
        centre = 0.5 * self.box_size
        arrays: dict[str, np.ndarray] = {}
        for axis, name in enumerate(_COORDINATES):
            arrays[name] = position[:, axis] if axis < ndim else np.full(len(position), centre[axis])
        arrays["dx"] = np.concatenate(sizes) if sizes else np.zeros(0)
        arrays["level"] = np.concatenate(levels) if levels else np.zeros(0, dtype=np.int32)
        for name, pieces in values.items():
            arrays[name] = np.concatenate(pieces) if pieces else np.zeros(0)
        return Cells(arrays)

    def _leaf_levels(self) -> list[_LevelLeaves]:
        """Per level: the leaf cells' range in ``cells`` and their integer coordinates."""
        self.cells  # noqa: B018 - reads the cells on first use
        return self._leaves

    def __repr__(self) -> str:
        return (
            f"<kosmo.Dataset {self.filename}: ndim={self.ndim} levels {self.levelmin}..{self.levelmax} "
            f"t={self.time:g} step={self.step} fields={list(self.fields)}>"
        )


def _level_group(level: int) -> str:
    return f"level_{level:02d}"


def _resolve(path: str | pathlib.Path) -> pathlib.Path:
    """The HDF5 file of an output directory, of its info file, or the file itself."""
    path = pathlib.Path(path)
    if path.is_dir():
        match = re.search(r"(\d+)$", path.name)
        if match and (path / f"kosmo_{match.group(1)}.h5").is_file():
            return path / f"kosmo_{match.group(1)}.h5"
        candidates = sorted(path.glob("kosmo_*.h5"))
        if len(candidates) != 1:
            raise FileNotFoundError(f"{path}: expected one kosmo_NNNNN.h5, found {len(candidates)}")
        return candidates[0]
    if not path.exists():
        raise FileNotFoundError(path)
    info = re.fullmatch(r"info_(\d+)\.txt", path.name)
    if info:
        h5 = path.parent / f"kosmo_{info.group(1)}.h5"
        if not h5.is_file():
            raise FileNotFoundError(f"{path}: no {h5.name} next to it")
        return h5
    return path


def load(path: str | pathlib.Path) -> Dataset:
    """Open a snapshot: ``output_NNNNN`` directory, its ``info_NNNNN.txt``, or ``kosmo_NNNNN.h5``."""
    return Dataset(_resolve(path))
