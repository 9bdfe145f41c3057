"""kosmo analysis package: ``ds = kosmo.load("output_00002")`` gives leaf cells as numpy arrays.

The snapshot layout is documented in docs/outputs.md of the kosmo repository.
"""

from .dataset import Cells, Dataset, FieldInfo, load, parse_namelist_value
from .plots import SliceResult, sample_leaf_cells, slice_plot

__version__ = "0.1.0"

__all__ = [
    "Cells",
    "Dataset",
    "FieldInfo",
    "SliceResult",
    "load",
    "parse_namelist_value",
    "sample_leaf_cells",
    "slice_plot",
]
