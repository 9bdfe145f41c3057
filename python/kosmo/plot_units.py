"""The physical units and labels the plots use, computed from what every snapshot carries: the
expansion factor ``aexp``, ``H0`` and the RAMSES unit attributes ``unit_l``, ``unit_d``, ``unit_t``
(cgs, physical at ``aexp``: docs/outputs.md), and the density and pressure fields.

Everything here takes plain numbers out of the dataset with ``np.asarray``/``float`` so that it
works the same whether the dataset hands out numpy or unit-carrying (unyt) arrays. Objects that
are not full datasets (they lack ``units`` or ``aexp``) are drawn in code units.

Conventions for cosmological runs (RAMSES' super-comoving units: the box is 1 code length and the
mean matter density 1 code density):

* lengths in comoving Mpc/h: ``code length * unit_l / aexp / (Mpc / h)``;
* projected (surface) densities in comoving M_sun/h per (Mpc/h)^2: a column of code mass per code
  area times ``unit_d * unit_l^3`` (grams) over ``(unit_l / aexp)^2`` (comoving cm^2);
* a code density is the overdensity rho / mean matter density.
"""

from __future__ import annotations

import numpy as np

#: cgs constants: the megaparsec and the solar mass (IAU 2015 nominal values), and RAMSES' own
#: hydrogen mass and Boltzmann constant (cooling_module: mH, kB), so that temperatures match RAMSES'.
MEGAPARSEC_CM = 3.0856775814913673e24
SOLAR_MASS_G = 1.98841e33
HYDROGEN_MASS_G = 1.66e-24
BOLTZMANN_ERG_PER_K = 1.3806200e-16
#: Mean molecular weight of fully ionised primordial gas (hydrogen mass fraction X = 0.76):
#: mu = 4 / (3 + 5 X), the value for gas heated by structure formation (no cooling in the run).
IONISED_PRIMORDIAL_MU = 4.0 / (3.0 + 5.0 * 0.76)


def is_cosmological(ds) -> bool:
    return bool(getattr(ds, "cosmological", False)) and hasattr(ds, "units") and hasattr(ds, "aexp")


def hubble_parameter(ds) -> float:
    """h = H0 / (100 km/s/Mpc) of a cosmological dataset."""
    return float(ds.cosmology["H0"]) / 100.0


def redshift(ds) -> float:
    """z = 1/aexp - 1, using ``ds.current_redshift`` when the dataset has it; a run that ended at
    a = 1 to round-off reports z = 0 exactly (not -2e-13)."""
    z = getattr(ds, "current_redshift", None)
    z = 1.0 / float(ds.aexp) - 1.0 if z is None else float(np.asarray(z))
    return 0.0 if abs(z) < 1e-9 else z


def epoch_label(ds) -> str:
    """``z = 0.00`` for cosmological runs, ``t = 0.01`` (code time) otherwise."""
    if is_cosmological(ds):
        return f"z = {redshift(ds):.2f}"
    return f"t = {float(getattr(ds, 'time', 0.0)):.4g}"


def length_unit(ds) -> tuple[float, str]:
    """(factor, name): a code length times factor is a length in the unit `name` (comoving Mpc/h
    in a cosmological run, else code length)."""
    if is_cosmological(ds):
        megaparsec_over_h = MEGAPARSEC_CM / hubble_parameter(ds)
        return float(ds.units["unit_l"]) / float(ds.aexp) / megaparsec_over_h, "Mpc/h, comoving"
    return 1.0, "code length"


def surface_density_unit(ds) -> tuple[float, str]:
    """(factor, name): a projected density in code mass per code area times factor is in the unit
    `name`: M_sun h^-1 (Mpc/h)^-2 comoving in a cosmological run, g/cm^2 when the run has physical
    units (&UNITS_PARAMS), else code units."""
    if is_cosmological(ds):
        h = hubble_parameter(ds)
        grams_per_comoving_cm2 = float(ds.units["unit_d"]) * float(ds.units["unit_l"]) * float(ds.aexp) ** 2
        return grams_per_comoving_cm2 * MEGAPARSEC_CM ** 2 / (SOLAR_MASS_G * h), "M$_\\odot$ h$^{-1}$ / (Mpc/h)$^2$"
    units = getattr(ds, "units", None)
    if units and (float(units["unit_d"]) != 1.0 or float(units["unit_l"]) != 1.0):
        return float(units["unit_d"]) * float(units["unit_l"]), "g/cm$^2$"
    return 1.0, "code mass / code length$^2$"


def density_label(ds) -> str:
    """Units of a code density: the overdensity in a cosmological run."""
    return "$\\rho / \\bar\\rho_m$" if is_cosmological(ds) else "code density"


def temperature(ds) -> np.ndarray:
    """Gas temperature of every leaf cell in K: the dataset's ``temperature`` field when it has
    one, else T = mu m_H / k_B * P / rho * (unit_l / unit_t)^2 with mu of fully ionised primordial
    gas (:data:`IONISED_PRIMORDIAL_MU`) and RAMSES' m_H and k_B."""
    cells = ds.cells
    if "temperature" in cells:
        return np.asarray(cells["temperature"], dtype=float)
    if "pressure" not in cells or "density" not in cells:
        raise KeyError("temperature needs the pressure and density fields, which this output lacks")
    units = getattr(ds, "units", None) or {"unit_l": 1.0, "unit_t": 1.0}
    velocity_unit = float(units["unit_l"]) / float(units["unit_t"])
    ratio = np.asarray(cells["pressure"], dtype=float) / np.asarray(cells["density"], dtype=float)
    return IONISED_PRIMORDIAL_MU * HYDROGEN_MASS_G / BOLTZMANN_ERG_PER_K * velocity_unit ** 2 * ratio


#: Fields computed from others (name: function of the dataset giving one value per leaf cell).
DERIVED_FIELDS = {"temperature": temperature}
#: Units of the derived fields.
DERIVED_UNITS = {"temperature": "K"}


def cell_field(ds, name: str) -> np.ndarray:
    """One value per leaf cell of a stored field or a derived one (temperature), as a float array."""
    cells = ds.cells
    if name in cells:
        return np.asarray(cells[name], dtype=float)
    if name in DERIVED_FIELDS:
        return DERIVED_FIELDS[name](ds)
    derived = list(getattr(cells, "derived_fields", []))  # the dataset's own (temperature with its mu, ...)
    available = list(cells) + derived + [name for name in DERIVED_FIELDS if name not in derived and name not in cells]
    raise KeyError(f"no field {name!r}; available: {', '.join(available)}")


def field_units(ds, name: str) -> str:
    """Units of a stored or derived field, as the output's metadata gives them."""
    if name in DERIVED_UNITS:
        return DERIVED_UNITS[name]
    fields = getattr(ds, "fields", {})
    if name == "density" and is_cosmological(ds):
        return density_label(ds)
    return fields[name].units if name in fields else ""
