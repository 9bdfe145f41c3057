"""output_precision='single': the snapshot's fields are float32 (the double values rounded once),
the restart data stays float64 and identical, and kosmo.load reads both alike."""
import h5py
import numpy as np

import kosmo
from namelists import sedov3d


def test_single_precision_fields_keep_exact_restart_data(tmp_path, run_kosmo):
    files = {}
    for precision in ("double", "single"):
        where = tmp_path / precision
        where.mkdir()
        (where / "sedov.nml").write_text(
            sedov3d(levelmax=4, tout=(0.0, 0.002), output_params=f"output_precision='{precision}'"))
        run_kosmo(["run", "sedov.nml"], where, nrank=2)
        files[precision] = where / "output_00002" / "kosmo_00002.h5"
    with h5py.File(files["double"], "r") as double, h5py.File(files["single"], "r") as single:
        levels = [name for name in double if name.startswith("level_") and double[name].attrs["noct"] > 0]
        assert levels
        for level in levels:
            for name in double[level]["fields"]:
                d, s = double[level]["fields"][name], single[level]["fields"][name]
                assert d.dtype == np.float64 and s.dtype == np.float32
                np.testing.assert_array_equal(s[()], d[()].astype(np.float32))
            for name in double[level]["restart"]:
                d, s = double[level]["restart"][name], single[level]["restart"][name]
                assert d.dtype == s.dtype == np.float64
                np.testing.assert_array_equal(s[()], d[()])
    assert files["single"].stat().st_size < files["double"].stat().st_size
    a, b = kosmo.load(files["double"].parent).cells, kosmo.load(files["single"].parent).cells
    assert a.ncells == b.ncells
    np.testing.assert_allclose(b.density, a.density, rtol=1e-7)
