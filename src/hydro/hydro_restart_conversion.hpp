#pragma once
// The hydro module's side of a restart from RAMSES binary outputs (informat='ramses'): which
// primitive variables a hydro_NNNNN.outCCCCC file holds, which conservative restart fields they
// become, and the conversion of one cell, handed to io::read_ramses_restart_share so that io/
// repeats none of hydro's names (hydro_variables.hpp) or formulas.
#include "io/cell_variable_conversion.hpp"

namespace kosmo::hydro {

// For a D-dimensional run with `npassive` passive scalars: the file variables density,
// velocity_x.., pressure, scalar_NN (RAMSES' own names accepted too: metallicity or any scalar_*
// for the passive scalars, matched in file order), converted to density, momentum_* = rho v,
// total_energy = p / (gamma - 1) + rho v^2 / 2 and scalar_NN_density = rho s.
template <int D>
io::CellVariableConversion ramses_restart_conversion(int npassive, bool metallicity = false);

}  // namespace kosmo::hydro
