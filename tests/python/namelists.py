"""Namelists the end-to-end tests share, derived from examples/ so that there is one copy of each."""
import pathlib

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def sedov3d(levelmin=3, levelmax=5, size=0.1, pressure=50.0, density=1.0, tout=(0.0, 0.004, 0.008), run_params="",
            output_params=""):
    """examples/sedov3d.nml (energy in a small sphere at the centre of a periodic box: region 2 is a
    'square' with exp_region=2, i.e. a sphere of diameter `size`) with its levels, the blast's
    size, pressure and density, the output times and extra &RUN_PARAMS / &OUTPUT_PARAMS keys
    replaced."""
    text = (EXAMPLES / "sedov3d.nml").read_text()
    replacements = {
        "levelmin=5": f"levelmin={levelmin}",
        "levelmax=7": f"levelmax={levelmax}",
        "length_x=10.0,0.06": f"length_x=10.0,{size}",
        "length_y=10.0,0.06": f"length_y=10.0,{size}",
        "length_z=10.0,0.06": f"length_z=10.0,{size}",
        "p_region=1e-5,1415.0": f"p_region=1e-5,{pressure}",
        "d_region=1.0,1.0": f"d_region=1.0,{density}",
        "noutput=3\ntout=0.0,0.03,0.07": f"noutput={len(tout)}\ntout=" + ",".join(repr(t) for t in tout),
        "&RUN_PARAMS\n": "&RUN_PARAMS\n" + (run_params + "\n" if run_params else ""),
        "&OUTPUT_PARAMS\n": "&OUTPUT_PARAMS\n" + (output_params + "\n" if output_params else ""),
    }
    for old, new in replacements.items():
        assert old in text, f"examples/sedov3d.nml no longer contains {old!r}"
        text = text.replace(old, new, 1)
    return text
