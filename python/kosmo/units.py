"""Physical units of a kosmo snapshot, with unyt (the unit library of yt).

Every snapshot states the cgs value of its code units (root attributes ``unit_l``, ``unit_d``,
``unit_t``, as RAMSES' info file) and every stored field and particle attribute the name of its
unit (``code_density``, ``code_velocity``, ...; docs/outputs.md). :func:`snapshot_registry` turns
these into a unyt ``UnitRegistry`` in which the code units are ordinary units, so an array read in
code units converts with ``.to("g/cm**3")``, ``.to("Msun/kpc**3")`` or ``.in_cgs()``.

Physical and comoving. In a cosmological run the code units are RAMSES' super-comoving ones at the
snapshot's expansion factor a (amr/units.f90): ``unit_l = a boxlen_ini Mpc/h``, ``unit_d = omega_m
rho_crit h^2 / a^3``, ``unit_t = a^2 / H0``. Converted to cgs or astronomical units they therefore
give **physical** (proper) values: proper densities, proper lengths, proper peculiar velocities.
Comoving lengths are the units with a ``cm`` suffix (yt's convention): ``Mpccm/h`` is a comoving
Mpc/h (1 Mpccm = a Mpc), so positions in the box run from 0 to ``boxlen_ini`` in ``Mpccm/h``. The
registry also holds ``h`` (H0 / 100 km/s/Mpc) and ``a``. A run that is not cosmological has a = 1,
h = 1 (kosmo writes H0 = 1 there, as RAMSES) and no distinction between the two.

Arrays are :class:`SnapshotArray`, a unyt array that keeps the stored values (code units: ``cells.
density`` holds exactly the numbers in the file) and takes a **bare number, numpy array or
dimensionless array** met in a sum, difference, comparison (``np.array_equal``, ``np.allclose``
too), minimum/maximum or remainder to be in its own units, and compares arrays of different
dimensions by their stored values (unyt would call them never equal). unyt alone would
refuse ``cells.x - 0.5`` (length minus a pure number); here it means 0.5 code lengths, as it did
when kosmo returned plain numpy arrays, so analysis written against code units keeps working.
Products, quotients and powers carry units as in unyt (``cells.density * cells.dx**3`` is a mass).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import unyt
from unyt import Unit, UnitRegistry, dimensions, unyt_array, unyt_quantity

__all__ = [
    "BOLTZMANN_CONSTANT",
    "HYDROGEN_MASS",
    "HYDROGEN_MASS_FRACTION",
    "MEAN_MOLECULAR_WEIGHT",
    "SnapshotArray",
    "SnapshotQuantity",
    "attach_units",
    "parse_units",
    "snapshot_registry",
]

#: RAMSES' constants (amr/units.f90, hydro/cooling_module.f90): with them T / mu equals RAMSES' T2
#: to round-off. (CODATA's m_H = 1.6735575e-24 g is 0.8 % heavier than RAMSES' rounded value.)
HYDROGEN_MASS = 1.6600000e-24  # g
BOLTZMANN_CONSTANT = 1.3806200e-16  # erg/K

#: Hydrogen mass fraction of primordial gas, X = 0.76 (RAMSES cooling_module X).
HYDROGEN_MASS_FRACTION = 0.76
#: Mean molecular weight of fully ionised primordial gas, mu = 4 / (3 + 5 X) = 0.588 (1 hydrogen
#: atom gives 2 particles, 1 helium atom 3): the default of the temperature field, correct for gas
#: above ~10^4 K; neutral gas has 4 / (1 + 3 X) = 1.22. Set ``ds.mean_molecular_weight`` to change it.
MEAN_MOLECULAR_WEIGHT = 4.0 / (3.0 + 5.0 * HYDROGEN_MASS_FRACTION)

#: Comoving counterparts ("<unit>cm", prefixable: Mpccm, kpccm) of these length units, as yt names them.
_COMOVING_LENGTHS = ("m", "pc", "AU", "au")


def snapshot_registry(unit_l: float, unit_d: float, unit_t: float, aexp: float = 1.0,
                      hubble: float = 1.0) -> UnitRegistry:
    """A unyt registry holding one snapshot's code units (cgs values ``unit_l`` cm, ``unit_d``
    g/cm^3, ``unit_t`` s), the comoving length units at expansion factor ``aexp`` and ``h`` =
    ``hubble`` (H0 / 100 km/s/Mpc).

    Code units, derived as RAMSES derives them from unit_l, unit_d, unit_t: ``code_length``,
    ``code_mass`` (unit_d unit_l^3), ``code_time``, ``code_density``, ``code_velocity``
    (unit_l / unit_t), ``code_momentum_density``, ``code_energy_density`` and ``code_pressure``
    (unit_d (unit_l / unit_t)^2), ``code_specific_energy``, ``code_acceleration``."""
    for name, value in (("unit_l", unit_l), ("unit_d", unit_d), ("unit_t", unit_t), ("aexp", aexp),
                        ("h", hubble)):
        if not (math.isfinite(value) and value > 0.0):
            raise ValueError(f"{name} must be positive and finite (got {value})")
    registry = UnitRegistry()
    velocity = unit_l / unit_t
    # unyt's base units are SI: values below are cgs converted (1 cm = 1e-2 m, 1 g = 1e-3 kg).
    code_units = {
        "code_length": (unit_l * 1e-2, dimensions.length),
        "code_mass": (unit_d * unit_l**3 * 1e-3, dimensions.mass),
        "code_time": (unit_t, dimensions.time),
        "code_density": (unit_d * 1e3, dimensions.density),
        "code_velocity": (velocity * 1e-2, dimensions.velocity),
        "code_momentum_density": (unit_d * velocity * 10.0, dimensions.density * dimensions.velocity),
        "code_energy_density": (unit_d * velocity**2 * 0.1, dimensions.pressure),
        "code_pressure": (unit_d * velocity**2 * 0.1, dimensions.pressure),
        "code_specific_energy": (velocity**2 * 1e-4, dimensions.velocity**2),
        "code_acceleration": (velocity / unit_t * 1e-2, dimensions.acceleration),
    }
    for name, (value, dimension) in code_units.items():
        registry.add(name, value, dimension)
    registry.add("h", hubble, dimensions.dimensionless, r"h")
    registry.add("a", aexp, dimensions.dimensionless)
    for length in _COMOVING_LENGTHS:
        registry.add(f"{length}cm", Unit(length, registry=registry).base_value * aexp, dimensions.length,
                     rf"\rm{{{length}}}/(1+z)", prefixable=True)
    return registry


def parse_units(text: str, registry: UnitRegistry) -> Unit | None:
    """The unit named in a snapshot (``code_density``, ``code_velocity**2``, ``g/cm^3``,
    ``dimensionless``), or None for no unit (``""``: integer attributes such as ids and families).
    A name unyt does not know is taken as dimensionless: the value is then a pure number."""
    text = text.strip()
    if not text:
        return None
    try:
        return Unit(text.replace("^", "**"), registry=registry)
    except (unyt.exceptions.UnitParseError, ValueError, TypeError, SyntaxError):
        return Unit("dimensionless", registry=registry)


def attach_units(values: np.ndarray, units: Unit | str, registry: UnitRegistry | None = None) -> "SnapshotArray":
    """``values`` as a :class:`SnapshotArray` in ``units`` (a view: no copy)."""
    unit = units if isinstance(units, Unit) else Unit(units, registry=registry)
    return SnapshotArray(np.asarray(values), unit, bypass_validation=True)


# --------------------------------------------------------------------------------------------
# Arrays that take bare numbers in their own units
# --------------------------------------------------------------------------------------------

#: Binary ufuncs whose operands must share a unit: a bare operand is given the other's unit.
_SAME_UNIT_UFUNCS = {
    np.add, np.subtract, np.maximum, np.minimum, np.fmax, np.fmin, np.remainder, np.fmod,
    np.floor_divide, np.hypot, np.arctan2, np.copysign, np.nextafter,
}
#: Comparisons: as above, and operands of different dimensions compare their stored values.
_COMPARISON_UFUNCS = {np.greater, np.greater_equal, np.less, np.less_equal, np.equal, np.not_equal}


def _is_bare(operand: Any) -> bool:
    """A number, numpy array or dimensionless unyt array: a pure number in code arithmetic."""
    return not isinstance(operand, unyt_array) or operand.units.is_dimensionless


def _pair_in_common_units(first: Any, second: Any) -> tuple[Any, Any]:
    """Two operands that must share a unit: a bare one (``_is_bare``) next to one with dimensions
    gets that one's unit."""
    if _is_bare(second) and not _is_bare(first):
        return first, _with_units_of(second, first.units)
    if _is_bare(first) and not _is_bare(second):
        return _with_units_of(first, second.units), second
    return first, second


def _comparable(first: Any, second: Any) -> tuple[Any, Any]:
    """Two operands of a comparison: as for a sum, and when both have dimensions and they differ,
    their stored values (unyt would call them never equal, or raise)."""
    first, second = _pair_in_common_units(first, second)
    if (isinstance(first, unyt_array) and isinstance(second, unyt_array)
            and not first.units.same_dimensions_as(second.units)):
        return first.view(np.ndarray), second.view(np.ndarray)
    return first, second


def _with_units_of(operand: Any, unit: Unit) -> Any:
    if isinstance(operand, unyt_array):
        return operand.view(np.ndarray) * unit if operand.units.is_dimensionless else operand
    array = np.asarray(operand)
    if array.dtype.kind not in "biuf":  # strings, objects, booleans arrays of masks: as unyt does
        return operand
    return unyt_array(array, unit, bypass_validation=True) if array.shape else unyt_quantity(array, unit)


#: Array functions whose result has the unit of their data operands (np.where's choices, the
#: arrays joined by np.concatenate, ...): with mixed or bare operands, all are taken in the unit
#: of the first operand that has one.
_SAME_UNIT_FUNCTIONS = {
    np.where, np.concatenate, np.stack, np.hstack, np.vstack, np.dstack, np.column_stack, np.append,
    np.clip, np.select,
}


#: Array functions comparing two operands (which unyt finds unequal when their units differ).
_COMPARISON_FUNCTIONS = {np.array_equal, np.array_equiv, np.allclose, np.isclose}


def _first_unit(operands: Any) -> Unit | None:
    if isinstance(operands, unyt_array):
        return operands.units
    if isinstance(operands, dict):
        operands = list(operands.values())
    if isinstance(operands, (list, tuple)):
        for operand in operands:
            unit = _first_unit(operand)
            if unit is not None:
                return unit
    return None


def _values_in(operands: Any, unit: Unit) -> Any:
    """Operands with every unyt array converted to ``unit`` (None: left in its own) and stripped
    to numpy."""
    if isinstance(operands, unyt_array):
        return operands.to_value(unit) if unit is not None else operands.view(np.ndarray)
    if isinstance(operands, dict):  # keyword arguments: ``out`` is written in place, in its own unit
        return {key: value.view(np.ndarray) if key == "out" and isinstance(value, unyt_array)
                else _values_in(value, unit) for key, value in operands.items()}
    if isinstance(operands, (list, tuple)):
        return type(operands)(_values_in(operand, unit) for operand in operands)
    return operands


def _interpolate(x, xp, fp, *args, **kwargs):
    abscissa = _first_unit((xp, x))
    values = np.interp(_values_in(x, abscissa), _values_in(xp, abscissa), np.asarray(fp), *args, **kwargs)
    unit = _first_unit(fp)
    return values if unit is None else attach_units(values, unit)


def _as_snapshot(result: Any) -> Any:
    """unyt builds scalars and some arrays as plain unyt types: give them the lenient class back."""
    if type(result) is unyt_quantity:
        return result.view(SnapshotQuantity)
    if type(result) is unyt_array:
        return result.view(SnapshotArray)
    if isinstance(result, tuple):
        return tuple(_as_snapshot(item) for item in result)
    if isinstance(result, list):
        return [_as_snapshot(item) for item in result]
    return result


class SnapshotArray(unyt_array):
    """A unyt array in which a bare number or numpy array added, subtracted, compared, or taken as
    minimum, maximum or remainder with it is in the array's own units (module docstring). Results
    stay SnapshotArray (scalars SnapshotQuantity); ``.to(...)``, ``.in_cgs()``, ``.units``,
    ``.value`` are unyt's."""

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        if method == "__call__" and len(inputs) == 2 and ufunc in _COMPARISON_UFUNCS:
            inputs = _comparable(*inputs)
            if not any(isinstance(operand, unyt_array) for operand in inputs):
                return getattr(ufunc, method)(*inputs, **kwargs)
        elif method == "__call__" and len(inputs) == 2 and ufunc in _SAME_UNIT_UFUNCS:
            inputs = _pair_in_common_units(*inputs)
        return _as_snapshot(super().__array_ufunc__(ufunc, method, *inputs, **kwargs))

    def __array_function__(self, func, types, args, kwargs):
        if func in _COMPARISON_FUNCTIONS and len(args) >= 2:
            args = (*_comparable(args[0], args[1]), *args[2:])
            if not any(isinstance(operand, unyt_array) for operand in args[:2]):
                return func(*args, **kwargs)
        try:
            return _as_snapshot(super().__array_function__(func, types, args, kwargs))
        except (unyt.exceptions.UnitInconsistencyError, unyt.exceptions.UnitOperationError, TypeError,
                AttributeError):
            pass
        # unyt refused mixed units or bare values (or tripped on an argument its wrappers do not
        # handle: np.clip's None, np.searchsorted's plain array): treat them as numpy treats the
        # stored values (a genuine error, numpy raises again).
        if func is np.interp:  # x in the unit of xp, the result in the unit of fp
            return _interpolate(*args, **kwargs)
        if func in _SAME_UNIT_FUNCTIONS:  # everything in the first operand's unit
            unit = _first_unit((args, kwargs))
            return attach_units(func(*_values_in(args, unit), **_values_in(kwargs, unit)), unit)
        return func(*_values_in(args, None), **_values_in(kwargs, None))

    def __getitem__(self, item):
        return _as_snapshot(super().__getitem__(item))


class SnapshotQuantity(SnapshotArray, unyt_quantity):
    """A scalar :class:`SnapshotArray` (a reduction or one element of an array). It hashes as its
    value, like the numpy scalar it replaces (it compares equal to that bare number)."""

    def __hash__(self) -> int:
        return hash(self.view(np.ndarray).item())
