"""A reader of RAMSES output directories that works the way RAMSES' own tests/visu/visu_ramses.py
does - every file opened by name, every Fortran record read in order - written from the format
(shared/reference/ramses-format.md; RAMSES amr/output_amr.f90, hydro/output_hydro.f90,
pm/output_part.f90), not from that script. It checks what a strict reader needs as it goes
(record lengths, the header agreeing with the info file, one file per cpu), so that an output kosmo
writes is also one RAMSES' test suite and its users' scripts can read.

    snapshot = load_snapshot(2, path=run_directory)   # output_00002/
    snapshot["info"]["time"], snapshot["data"]["density"], snapshot["data"]["x"], ...
"""
import pathlib
import re

import numpy as np

# Fortran "struct" codes of the descriptor files and the numpy types they stand for.
DESCRIPTOR_TYPES = {"d": "<f8", "f": "<f4", "i": "<i4", "q": "<i8", "b": "<i1"}


class FortranRecords:
    """Little-endian Fortran sequential records: int32 length, payload, the same int32 length."""

    def __init__(self, path: pathlib.Path):
        self.path = path
        self.data = path.read_bytes()
        self.offset = 0

    def read(self, dtype, count=None) -> np.ndarray:
        assert self.offset + 4 <= len(self.data), f"{self.path}: record expected at byte {self.offset}, file ends"
        length = int(np.frombuffer(self.data, "<i4", 1, self.offset)[0])
        end = self.offset + 4 + length
        assert end + 4 <= len(self.data), f"{self.path}: record of {length} bytes runs past the end"
        trailing = int(np.frombuffer(self.data, "<i4", 1, end)[0])
        assert trailing == length, f"{self.path}: record markers {length} and {trailing} differ"
        dtype = np.dtype(dtype)
        assert length % dtype.itemsize == 0, f"{self.path}: a {length}-byte record is not of {dtype}"
        values = np.frombuffer(self.data, dtype, length // dtype.itemsize, self.offset + 4)
        if count is not None:
            assert values.size == count, f"{self.path}: record holds {values.size} values, {count} expected"
        self.offset = end + 4
        return values

    def skip(self, records=1):
        for _ in range(records):
            length = int(np.frombuffer(self.data, "<i4", 1, self.offset)[0])
            self.offset += length + 8

    def at_end(self) -> bool:
        return self.offset == len(self.data)


def read_info(path: pathlib.Path) -> dict:
    """info_NNNNN.txt: `key = value` lines (integers, then reals) up to `ordering type=`."""
    info = {}
    lines = path.read_text().splitlines()
    for line in lines:
        if line.startswith("ordering type="):
            info["ordering"] = line.split("=", 1)[1].strip()
            break
        if "=" in line:
            key, value = (part.strip() for part in line.split("=", 1))
            info[key] = int(value) if re.fullmatch(r"[-+]?\d+", value) else float(value)
    for key in ("ncpu", "ndim", "levelmin", "levelmax", "ngridmax", "nstep_coarse", "boxlen", "time", "aexp",
                "unit_l", "unit_d", "unit_t", "ordering"):
        assert key in info, f"{path}: no {key}"
    return info


def read_descriptor(path: pathlib.Path) -> list:
    """hydro_ or part_file_descriptor.txt, version 1: `# version:  1`, then `ivar, name, type` lines."""
    lines = path.read_text().splitlines()
    assert lines[0] == "# version:  1", f"{path}: first line {lines[0]!r}"
    fields = []
    for line in lines[1:]:
        if line.startswith("#"):
            continue
        index, name, kind = (part.strip() for part in line.split(","))
        assert int(index) == len(fields) + 1 and kind in DESCRIPTOR_TYPES, f"{path}: {line!r}"
        fields.append((name, kind))
    return fields


def read_header(path: pathlib.Path) -> dict:
    """header_NNNNN.txt: particle counts per family (RAMSES output_header) and the field line."""
    lines = path.read_text().splitlines()
    assert lines[0].split() == ["#", "Family", "Count"], f"{path}: {lines[0]!r}"
    counts = {}
    row = 1
    while lines[row].strip() != "Particle fields":
        name, count = lines[row].split()
        counts[name] = counts.get(name, 0) + int(count)
        row += 1
    return {"counts": counts, "total": sum(counts.values()), "fields": lines[row + 1].split()}


def _amr_header(amr: FortranRecords, info: dict) -> dict:
    """Records 1-32 of the amr file."""
    h = {"ncpu": int(amr.read("<i4", 1)[0]), "ndim": int(amr.read("<i4", 1)[0])}
    h["nx"] = amr.read("<i4", 3)
    h["nlevelmax"], h["ngridmax"], h["nboundary"], _ = (int(amr.read("<i4", 1)[0]) for _ in range(4))
    h["boxlen"] = float(amr.read("<f8", 1)[0])
    h["noutput"], h["iout"], h["ifout"] = (int(v) for v in amr.read("<i4", 3))
    h["tout"] = amr.read("<f8", h["noutput"])
    h["aout"] = amr.read("<f8", h["noutput"])
    h["t"] = float(amr.read("<f8", 1)[0])
    amr.read("<f8", h["nlevelmax"])  # dtold
    amr.read("<f8", h["nlevelmax"])  # dtnew
    h["nstep"], h["nstep_coarse"] = (int(v) for v in amr.read("<i4", 2))
    amr.read("<f8", 3)   # einit, mass_tot_0, rho_tot
    amr.read("<f8", 7)   # omegas, h0, aexp_ini, boxlen_ini
    amr.read("<f8", 5)   # aexp, hexp, aexp_old, epot_tot_int, epot_tot_old
    amr.read("<f8", 1)   # mass_sph
    ncpu, nlevelmax = h["ncpu"], h["nlevelmax"]
    amr.read("<i4", ncpu * nlevelmax)  # headl
    amr.read("<i4", ncpu * nlevelmax)  # taill
    h["numbl"] = amr.read("<i4", ncpu * nlevelmax).reshape(nlevelmax, ncpu)  # cpu fastest
    amr.read("<i4", 10 * nlevelmax)    # numbtot
    h["numbb"] = np.zeros((nlevelmax, 0), dtype=int)
    if h["nboundary"] > 0:
        amr.skip(2)  # headb, tailb
        h["numbb"] = amr.read("<i4", h["nboundary"] * nlevelmax).reshape(nlevelmax, h["nboundary"])
    amr.read("<i4", 5)  # headf, tailf, numbf, used_mem, used_mem_tot
    ordering = amr.read("S1").tobytes().decode().strip()
    amr.skip(5 if ordering == "bisection" else 1)  # bound_key, or the bisection's five records
    ncoarse = int(np.prod(h["nx"]))
    amr.skip(3)  # son, flag1, cpu_map of the coarse cells
    assert h["ndim"] == info["ndim"] and h["ncpu"] == info["ncpu"] and h["nlevelmax"] == info["levelmax"], \
        f"{amr.path}: ndim/ncpu/nlevelmax {h['ndim']}/{h['ncpu']}/{h['nlevelmax']} differ from the info file"
    assert h["nstep_coarse"] == info["nstep_coarse"] and abs(h["t"] - info["time"]) <= 1e-14 * max(1.0, abs(h["t"])), \
        f"{amr.path}: step or time differ from the info file"
    h["ncoarse"] = ncoarse
    return h


def _cpu_cells(directory: pathlib.Path, number: int, cpu: int, info: dict, variables: list) -> dict:
    """Leaf cells of the octs that cpu file `cpu` owns: positions, sizes, levels and variables."""
    amr = FortranRecords(directory / f"amr_{number:05d}.out{cpu:05d}")
    hydro = FortranRecords(directory / f"hydro_{number:05d}.out{cpu:05d}")
    h = _amr_header(amr, info)
    ndim, ncpu, twotondim = h["ndim"], h["ncpu"], 2 ** h["ndim"]
    ncpu_h, nvar, ndim_h, nlevelmax_h, nboundary_h = (int(hydro.read("<i4", 1)[0]) for _ in range(5))
    gamma = float(hydro.read("<f8", 1)[0])
    assert (ncpu_h, ndim_h, nlevelmax_h, nboundary_h) == (ncpu, ndim, h["nlevelmax"], h["nboundary"]), \
        f"{hydro.path}: header disagrees with the amr file"
    assert nvar == len(variables), f"{hydro.path}: nvar = {nvar}, the descriptor lists {len(variables)}"
    # RAMSES' non-periodic boxes carry a layer of boundary coarse cells; yt's convention strips it.
    shift = (h["nx"][:ndim] - 1) / 2.0 if h["nboundary"] > 0 else np.zeros(ndim)
    columns = {key: [] for key in ["x", "y", "z"][:ndim] + ["dx", "level"] + [name for name, _ in variables]}
    for level in range(1, h["nlevelmax"] + 1):
        for domain in range(1, ncpu + h["nboundary"] + 1):
            ncache = int(h["numbl"][level - 1, domain - 1] if domain <= ncpu else h["numbb"][level - 1, domain - ncpu - 1])
            assert int(hydro.read("<i4", 1)[0]) == level, f"{hydro.path}: level record"
            assert int(hydro.read("<i4", 1)[0]) == ncache, f"{hydro.path}: ncache differs from the amr file's"
            if ncache == 0:
                continue
            amr.read("<i4", ncache)  # ind_grid
            amr.skip(2)              # next, prev
            centres = np.stack([amr.read("<f8", ncache) for _ in range(ndim)], axis=1)
            amr.skip(1 + 2 * ndim)   # father, nbor
            son = np.stack([amr.read("<i4", ncache) for _ in range(twotondim)], axis=1)
            amr.skip(2 * twotondim)  # cpu_map, flag1
            values = np.stack([np.stack([hydro.read("<f8", ncache) for _ in range(nvar)], axis=1)
                               for _ in range(twotondim)], axis=1)  # (ncache, ind, var)
            if domain != cpu:
                continue  # another cpu's octs: ghost copies, that cpu's file holds them as its own
            leaf = son == 0
            size = 0.5 ** level
            for ind in range(twotondim):
                offset = np.array([((ind >> d) & 1) - 0.5 for d in range(ndim)])
                position = (centres[leaf[:, ind]] - shift + offset * size) * info["boxlen"]
                for d, axis in enumerate("xyz"[:ndim]):
                    columns[axis].append(position[:, d])
                count = int(leaf[:, ind].sum())
                columns["dx"].append(np.full(count, size * info["boxlen"]))
                columns["level"].append(np.full(count, level, dtype=np.int32))
                for k, (name, _) in enumerate(variables):
                    columns[name].append(values[leaf[:, ind], ind, k])
    assert amr.at_end() and hydro.at_end(), f"cpu {cpu}: bytes left after the last level"
    return {key: np.concatenate(parts) if parts else np.zeros(0) for key, parts in columns.items()}, gamma


def _particles(directory: pathlib.Path, number: int, info: dict) -> dict:
    fields = read_descriptor(directory / "part_file_descriptor.txt")
    columns = {name: [] for name, _ in fields}
    for cpu in range(1, info["ncpu"] + 1):
        part = FortranRecords(directory / f"part_{number:05d}.out{cpu:05d}")
        assert int(part.read("<i4", 1)[0]) == info["ncpu"] and int(part.read("<i4", 1)[0]) == info["ndim"]
        npart = int(part.read("<i4", 1)[0])
        part.read("<i4", 4)  # localseed
        part.read("<i4", 1)  # nstar_tot
        part.read("<f8", 1)  # mstar_tot
        part.read("<f8", 1)  # mstar_lost
        part.read("<i4", 1)  # nsink
        for name, kind in fields:
            columns[name].append(part.read(DESCRIPTOR_TYPES[kind], npart))
        assert part.at_end(), f"{part.path}: records beyond the descriptor's"
    return {name: np.concatenate(parts) for name, parts in columns.items()}


def load_snapshot(number: int, path=".") -> dict:
    """Everything in output_NNNNN/ of `path`: info, header, the leaf cells of every cpu file with
    the variables of hydro_file_descriptor.txt, and the particles when the output has part files."""
    directory = pathlib.Path(path) / f"output_{number:05d}"
    info = read_info(directory / f"info_{number:05d}.txt")
    header = read_header(directory / f"header_{number:05d}.txt")
    amr_files = sorted(directory.glob(f"amr_{number:05d}.out*"))
    assert [p.name for p in amr_files] == [f"amr_{number:05d}.out{cpu:05d}" for cpu in range(1, info["ncpu"] + 1)], \
        f"{directory}: amr files {[p.name for p in amr_files]} for ncpu = {info['ncpu']}"
    variables = read_descriptor(directory / "hydro_file_descriptor.txt")
    parts = [_cpu_cells(directory, number, cpu, info, variables) for cpu in range(1, info["ncpu"] + 1)]
    data = {key: np.concatenate([cells[key] for cells, _ in parts]) for key in parts[0][0]}
    snapshot = {"info": info, "header": header, "data": data, "gamma": parts[0][1], "variables": variables}
    if (directory / "part_file_descriptor.txt").is_file():
        snapshot["particles"] = _particles(directory, number, info)
        assert len(snapshot["particles"]["mass"]) == header["total"], "part files and header_NNNNN.txt disagree"
    else:
        assert header["total"] == 0, f"{directory}: the header counts particles but there are no part files"
    return snapshot
