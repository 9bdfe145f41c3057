#pragma once
// `kosmo grafic NAMELIST DIRECTORY`: writes the initial conditions of a filetype='gaussian' namelist
// (kosmo's generator, cosmology/initial_conditions.hpp) as single-level grafic files
// (io/grafic_file.hpp), so that RAMSES (filetype='grafic', initfile(1)=DIRECTORY) and kosmo start
// from the same realisation (docs/performance.md, "The 64³ dark-matter box against RAMSES").
#include <iosfwd>
#include <string>
#include <vector>

namespace kosmo::driver {

// arguments: NAMELIST DIRECTORY (the directory is created if missing; existing grafic files in it
// are overwritten). Writes ic_deltab (linear overdensity at aexp_ini), ic_velc{x,y,z} (growing-mode
// peculiar velocity, proper km/s) and ic_posc{x,y,z} (Zel'dovich displacement from the cell centre,
// comoving Mpc/h), with the header's cosmology that of the namelist. Prints what it wrote to `out`.
// kosmo::Error on a namelist that is not a cosmological filetype='gaussian' one or a directory that
// cannot be written. Returns the exit status (0).
int grafic_command(const std::vector<std::string>& arguments, std::ostream& out);

}  // namespace kosmo::driver
