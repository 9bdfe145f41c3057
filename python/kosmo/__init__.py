"""kosmo analysis package: ``ds = kosmo.load("output_00002")`` gives leaf cells as numpy arrays;
slices, projections and radial profiles of them; ``kosmo-plot`` draws them from the shell.

The snapshot layout is documented in docs/outputs.md, the analysis API in docs/analysis.md of the
kosmo repository.
"""

from .dataset import Cells, Dataset, FieldInfo, Particles, load, parse_namelist_value
from .plots import SliceResult, sample_leaf_cells, slice_plot
from .profiles import ProfileResult, RadialProfile, profile_plot, radial_profile
from .projections import ProjectionResult, project, projection_plot

__version__ = "0.1.0"

__all__ = [
    "Cells",
    "Dataset",
    "FieldInfo",
    "Particles",
    "ProfileResult",
    "ProjectionResult",
    "RadialProfile",
    "SliceResult",
    "load",
    "parse_namelist_value",
    "profile_plot",
    "project",
    "projection_plot",
    "radial_profile",
    "sample_leaf_cells",
    "slice_plot",
]
