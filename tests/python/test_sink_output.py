"""Sink particles in outputs and restarts (docs/outputs.md "/sinks" and "sink_NNNNN.csv",
docs/galaxy.md "Sink particles"), through `kosmo run`:

* a 3-D AMR run with two accreting, gravitating sinks (ic_sink, Bondi accretion, sink_refine) on 2
  ranks writes every sink attribute into the HDF5 group /sinks and RAMSES' sink_NNNNN.csv, whose
  values are the HDF5 ones printed as Fortran's ES21.10;
* yt 4 reads the csv as its 'sink_csv' particle type: the ids, masses, positions, velocities and
  kosmo's extra column agn_energy of /sinks;
* stopped after coarse step 1 and restarted on 1 rank, the run's step-2 output equals the
  uninterrupted one bit for bit: every restart array of every level and every /sinks dataset;
* restarted from the RAMSES files instead (informat='ramses'), the sinks come back from the csv to
  its 11 significant digits, as RAMSES restarts from it."""
import shutil

import h5py
import numpy as np
import pytest
import yt

NAMELIST = """&RUN_PARAMS
hydro=.true.
poisson=.true.
sink=.true.
ndim=3
{run}
/
&AMR_PARAMS
levelmin=4
levelmax=5
/
&REFINE_PARAMS
sink_refine=.true.
/
&INIT_PARAMS
nregion=1
region_type(1)='square'
x_center=0.5
y_center=0.5
z_center=0.5
length_x=10.0
length_y=10.0
length_z=10.0
exp_region=10.0
d_region=1.0
p_region=1.0
/
&HYDRO_PARAMS
gamma=1.6666667
courant_factor=0.8
/
&SINK_PARAMS
accretion_scheme='bondi'
ir_cloud=2
/
&OUTPUT_PARAMS
tend=1.0
{output}
/
"""
# RAMSES ic_sink: m, x, y, z (from the box centre), vx, vy, vz, lx, ly, lz, m_smbh, dm.
IC_SINK = "0.01, 0.05, -0.02, 0.03, 0.5, -0.3, 0.2, 0, 0, 0, 0, 0\n0.02, -0.15, 0.1, -0.05, -0.2, 0.4, -0.1, 0, 0, 0, 0, 0.001\n"
RAMSES_COLUMNS = ["id", "msink", "x", "y", "z", "vx", "vy", "vz", "lx", "ly", "lz", "tform", "acc_rate", "del_mass",
                  "rho_gas", "cs**2", "etherm", "vx_gas", "vy_gas", "vz_gas", "mbh", "dmfsink", "level"]


def write_run(directory, run="", output=""):
    directory.mkdir(exist_ok=True)
    (directory / "sinks.nml").write_text(NAMELIST.format(run=run, output=output))
    (directory / "ic_sink").write_text(IC_SINK)


@pytest.fixture(scope="module")
def whole_run(tmp_path_factory, run_kosmo):
    """Two coarse steps on 2 ranks: output_00001 at t = 0, output_00002 after step 1, output_00003 after step 2."""
    directory = tmp_path_factory.mktemp("sinks") / "whole"
    write_run(directory)
    run_kosmo(["run", "sinks.nml", "--snapshot-steps", "1,2"], directory, nrank=2)
    return directory


def read_csv(path):
    lines = path.read_text().splitlines()
    names = [name.strip() for name in lines[0].split(",")]
    assert names[0] == "# id"
    names[0] = "id"
    rows = [[float(v) for v in line.split(",")] for line in lines[2:]]
    return names, lines, np.array(rows)


def sink_group(path):
    with h5py.File(path) as f:
        group = f["sinks"]
        data = {name: group[name][()] for name in group if isinstance(group[name], h5py.Dataset)}
        data.update({"restart/" + name: group["restart"][name][()] for name in group["restart"]})
        return dict(group.attrs), data


def es21_10(value):
    """Fortran's ES21.10 of a double, as a double: what the csv holds."""
    return float(f"{value:.10E}")


def test_sinks_in_hdf5_and_csv(whole_run):
    attrs, sinks = sink_group(whole_run / "output_00003" / "kosmo_00003.h5")
    assert attrs["count"] == 2 and attrs["largest_identity"] == 2
    assert [a.decode() for a in sinks["attributes"]] == ["birth_time", "accreted_mass", "accretion_rate", "agn_energy"]
    np.testing.assert_array_equal(sinks["identity"], [1, 2])
    np.testing.assert_array_equal(sinks["family"], [3, 3])
    # Both sinks accreted since t = 0: the file holds the evolved state, not the initial one.
    assert np.all(sinks["mass"] > [0.01, 0.02]) and np.all(sinks["accreted_mass"] > [0.0, 0.001])
    assert np.all(sinks["accretion_rate"] > 0)

    names, lines, rows = read_csv(whole_run / "output_00003" / "sink_00003.csv")
    assert names == RAMSES_COLUMNS + ["agn_energy"]
    assert lines[0].startswith(" # id,msink,x,y,z,vx,vy,vz,lx,ly,lz,tform,acc_rate,del_mass,rho_gas,cs**2,etherm,")
    # Fortran (I10,21(A1,ES21.10),A1,I10): fixed widths.
    for line in lines[2:]:
        fields = line.split(",")
        assert len(fields[0]) == 10 and all(len(v) == 21 for v in fields[1:22]) and len(fields[22]) == 10
    column = {name: rows[:, i] for i, name in enumerate(names)}
    np.testing.assert_array_equal(column["id"], sinks["identity"])
    expected = {"msink": sinks["mass"], "mbh": sinks["mass"], "x": sinks["position_x"], "y": sinks["position_y"],
                "z": sinks["position_z"], "vx": sinks["velocity_x"], "vy": sinks["velocity_y"], "vz": sinks["velocity_z"],
                "tform": sinks["birth_time"], "acc_rate": sinks["accretion_rate"], "dmfsink": sinks["accreted_mass"],
                "agn_energy": sinks["agn_energy"]}
    for name, values in expected.items():
        np.testing.assert_array_equal(column[name], [es21_10(v) for v in values], err_msg=name)
    np.testing.assert_array_equal(column["level"], [4, 4])
    for name in ("lx", "ly", "lz", "del_mass", "rho_gas", "cs**2", "etherm"):
        np.testing.assert_array_equal(column[name], [0.0, 0.0], err_msg=name)


def test_part_files_hold_the_clouds(whole_run):
    """RAMSES' part_ files hold each sink's cloud (family 3, identity -(sink index)) on the rank owning it."""
    from ramses_files import FortranRecords, load_snapshot
    _, sinks = sink_group(whole_run / "output_00003" / "kosmo_00003.h5")
    snapshot = load_snapshot(3, whole_run)
    clouds = snapshot["particles"]
    # ir_cloud = 2: the lattice points of step dx_min / 2 within 2 dx_min, 257 per sink.
    assert snapshot["header"]["counts"]["cloud"] == 2 * 257 and len(clouds["mass"]) == 2 * 257
    np.testing.assert_array_equal(clouds["family"], 3)
    for index in range(2):
        mine = clouds["identity"] == -(index + 1)
        assert mine.sum() == 257
        np.testing.assert_allclose(clouds["mass"][mine].sum(), sinks["mass"][index], rtol=1e-14)
        np.testing.assert_array_equal(clouds["birth_time"][mine], sinks["birth_time"][index])
        offset = np.stack([clouds[f"position_{a}"][mine] - sinks[f"position_{a}"][index] for a in "xyz"])
        offset -= np.round(offset)  # periodic unit box
        assert np.all(np.sqrt((offset ** 2).sum(axis=0)) <= 2 / 32 * (1 + 1e-12))
        for a in "xyz":
            np.testing.assert_array_equal(clouds[f"velocity_{a}"][mine], sinks[f"velocity_{a}"][index])
    # Each part file's header says nsink = 2, and the clouds split between the two ranks' files.
    counts = []
    for cpu in (1, 2):
        part = FortranRecords(whole_run / "output_00003" / f"part_00003.out{cpu:05d}")
        part.read("<i4", 1), part.read("<i4", 1)  # ncpu, ndim
        counts.append(int(part.read("<i4", 1)[0]))
        part.read("<i4", 4), part.read("<i4", 1), part.read("<f8", 1), part.read("<f8", 1)
        assert int(part.read("<i4", 1)[0]) == 2
    assert sum(counts) == 514 and min(counts) > 0


def test_yt_reads_the_sinks(whole_run):
    # yt reads sink_NNNNN.csv with pandas (python[test] installs it).
    yt.set_log_level(40)
    _, sinks = sink_group(whole_run / "output_00003" / "kosmo_00003.h5")
    ds = yt.load(str(whole_run / "output_00003" / "info_00003.txt"))
    assert ("sink_csv", "particle_mass") in ds.field_list
    ad = ds.all_data()
    np.testing.assert_array_equal(ad["sink_csv", "particle_identifier"].v, sinks["identity"])
    np.testing.assert_allclose(ad["sink_csv", "particle_mass"].to("code_mass").v, sinks["mass"], rtol=1e-10)
    for axis in "xyz":
        np.testing.assert_allclose(ad["sink_csv", f"particle_position_{axis}"].to("code_length").v, sinks[f"position_{axis}"], rtol=1e-10)
        np.testing.assert_allclose(ad["sink_csv", f"particle_velocity_{axis}"].v, sinks[f"velocity_{axis}"], rtol=1e-10)
    np.testing.assert_array_equal(ad["sink_csv", "particle_agn_energy"].v, sinks["agn_energy"])


def restart_arrays(path):
    """Every level's restart arrays in oct-coordinate order, and the time and step."""
    out = {}
    with h5py.File(path) as f:
        for level in range(1, f.attrs["levelmax"] + 1):
            group = f[f"level_{level:02d}"]
            coordinates = group["oct_coordinates"][()]
            order = np.lexsort(coordinates.T[::-1]) if len(coordinates) else []
            out[(level, "oct_coordinates")] = coordinates[order]
            for name in group["restart"] if "restart" in group else []:
                out[(level, name)] = group["restart"][name][()][order]
        return out, f.attrs["time"], f.attrs["step"]


def test_restart_on_one_rank_is_bit_identical(whole_run, tmp_path, run_kosmo):
    restarted = tmp_path / "restarted"
    write_run(restarted, run="nrestart=2")
    shutil.copytree(whole_run / "output_00002", restarted / "output_00002")
    result = run_kosmo(["run", "sinks.nml", "--snapshot-steps", "2"], restarted, nrank=1)
    assert "Restarted from output_00002" in result.stdout
    cells_whole, time_whole, step_whole = restart_arrays(whole_run / "output_00003" / "kosmo_00003.h5")
    cells_restarted, time_restarted, step_restarted = restart_arrays(restarted / "output_00003" / "kosmo_00003.h5")
    assert (time_restarted, step_restarted) == (time_whole, step_whole) and step_whole == 2
    assert cells_whole.keys() == cells_restarted.keys()
    assert sum(len(v) for k, v in cells_whole.items() if k[1] == "oct_coordinates" and k[0] == 5) > 0  # AMR around the sinks
    for key in cells_whole:
        np.testing.assert_array_equal(cells_whole[key], cells_restarted[key], err_msg=str(key))
    attrs_whole, sinks_whole = sink_group(whole_run / "output_00003" / "kosmo_00003.h5")
    attrs_restarted, sinks_restarted = sink_group(restarted / "output_00003" / "kosmo_00003.h5")
    assert attrs_whole == attrs_restarted
    assert sinks_whole.keys() == sinks_restarted.keys() and "restart/pending_kick_x" in sinks_whole
    for name in sinks_whole:
        np.testing.assert_array_equal(sinks_whole[name], sinks_restarted[name], err_msg=name)
    # The restart continued from the step-1 sinks, which had moved and grown since t = 0.
    _, sinks_step1 = sink_group(whole_run / "output_00002" / "kosmo_00002.h5")
    assert np.all(sinks_whole["mass"] > sinks_step1["mass"])


def test_restart_from_ramses_files_reads_the_csv(whole_run, tmp_path, run_kosmo):
    restarted = tmp_path / "ramses"
    write_run(restarted, run="nrestart=2", output="informat='ramses'")
    shutil.copytree(whole_run / "output_00002", restarted / "output_00002")
    (restarted / "output_00002" / "kosmo_00002.h5").unlink()  # only RAMSES' files to read
    run_kosmo(["run", "sinks.nml", "--snapshot-steps", "2"], restarted, nrank=1)
    _, sinks_whole = sink_group(whole_run / "output_00003" / "kosmo_00003.h5")
    attrs, sinks = sink_group(restarted / "output_00003" / "kosmo_00003.h5")
    assert attrs["largest_identity"] == 2
    np.testing.assert_array_equal(sinks["identity"], sinks_whole["identity"])
    for name in ("mass", "position_x", "position_y", "position_z", "velocity_x", "velocity_y", "velocity_z",
                 "accreted_mass", "accretion_rate", "birth_time"):
        np.testing.assert_allclose(sinks[name], sinks_whole[name], rtol=1e-8, atol=1e-12, err_msg=name)
