"""`kosmo decompose` through the binary: one JSON object with the documented keys; k-section has
exactly 6 partners per rank on a uniform periodic grid where every axis is cut at least 3 times,
and the message count of the hierarchical exchange is sum(k_l - 1)."""
import json

import pytest

KEYS = {"nrank", "ordering", "partners_mean", "partners_max", "tree_levels", "messages_per_exchange", "imbalance",
        "ghost_ratio", "surface_to_volume", "build_seconds"}


@pytest.mark.parametrize("nrank,messages", [(96, 7), (320, 10)])
def test_ksection_uniform_grid_has_six_partners(tmp_path, run_kosmo, nrank, messages):
    result = run_kosmo(["decompose", "--nrank", str(nrank), "--ordering", "ksection", "--grid", "64", "--load", "uniform"],
                       tmp_path)
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert KEYS <= set(line)
    assert line["nrank"] == nrank and line["ordering"] == "ksection"
    assert line["partners_mean"] == 6 and line["partners_max"] == 6
    assert line["messages_per_exchange"] == messages


def test_hilbert_is_available_as_the_reference(tmp_path, run_kosmo):
    result = run_kosmo(["decompose", "--nrank", "96", "--ordering", "hilbert", "--grid", "64", "--load", "uniform"], tmp_path)
    line = json.loads(result.stdout.strip().splitlines()[-1])
    assert line["ordering"] == "hilbert" and line["partners_mean"] > 6


def test_bad_flag_is_reported(tmp_path, run_kosmo):
    result = run_kosmo(["decompose", "--nrank", "0", "--grid", "64"], tmp_path, check=False)
    assert result.returncode != 0 and "nrank" in result.stderr
