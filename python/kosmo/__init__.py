"""kosmo analysis package: ``ds = kosmo.load("output_00002")`` gives leaf cells and particles as
numpy arrays carrying their units (unyt; kosmo.units), the redshift, age and cosmology; slices,
projections, radial profiles and power spectra of them; ``kosmo-plot`` draws them from the shell.

The snapshot layout is documented in docs/outputs.md, the analysis API in docs/analysis.md of the
kosmo repository.
"""

from . import units
from .dataset import Cells, Dataset, FieldInfo, Particles, load, parse_namelist_value
from .plots import SliceResult, sample_leaf_cells, slice_plot
from .spectra import (PowerSpectrum, density_projection, density_projection_plot, mass_assignment,
                             power_spectrum, power_spectrum_of_field, power_spectrum_of_particles,
                             resample_leaf_cells)
from .profiles import ProfileResult, RadialProfile, profile_plot, radial_profile
from .projections import ProjectionResult, project, projection_plot
from .units import SnapshotArray, SnapshotQuantity

__version__ = "0.1.0"

__all__ = [
    "Cells",
    "Dataset",
    "FieldInfo",
    "Particles",
    "PowerSpectrum",
    "ProfileResult",
    "ProjectionResult",
    "RadialProfile",
    "SliceResult",
    "SnapshotArray",
    "SnapshotQuantity",
    "density_projection",
    "density_projection_plot",
    "load",
    "mass_assignment",
    "parse_namelist_value",
    "power_spectrum",
    "power_spectrum_of_field",
    "power_spectrum_of_particles",
    "profile_plot",
    "project",
    "projection_plot",
    "radial_profile",
    "resample_leaf_cells",
    "sample_leaf_cells",
    "slice_plot",
    "units",
]
