#pragma once
// The namelist keys of the mesh itself, which every run needs whatever its physics: the coarse grid,
// the refinement levels and the box (&AMR_PARAMS), the geometric refinement region and the
// prolongation operator (&REFINE_PARAMS), and the code units (&UNITS_PARAMS).
namespace kosmo::core {

class SchemaBuilder;

void declare_mesh_parameters(SchemaBuilder& schema);

}  // namespace kosmo::core
