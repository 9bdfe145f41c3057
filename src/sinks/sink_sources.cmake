# The sink module's sources (sink particles, Bondi accretion, merging; docs/galaxy.md "Sink
# particles"), added to the kosmo_sinks library of src/sinks/CMakeLists.txt after it is defined.
target_sources(kosmo_sinks PRIVATE
               ${CMAKE_CURRENT_LIST_DIR}/agn_feedback_module.cpp
               ${CMAKE_CURRENT_LIST_DIR}/agn_kernels.cpp
               ${CMAKE_CURRENT_LIST_DIR}/agn_settings.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_accretion.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_bondi.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_cell_sums.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_creation.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_initial_file.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_merging.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_module.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_parameters.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_output_clouds.cpp
               ${CMAKE_CURRENT_LIST_DIR}/sink_restart.cpp)
# Physical units (star_formation/physical_units.hpp) and the cosmological clock.
# AGN feedback (agn_*.cpp) reuses the supernova feedback's cell search, exchange and restriction.
target_link_libraries(kosmo_sinks PUBLIC kosmo_core kosmo_cosmology kosmo_particles kosmo_parallel kosmo_feedback PRIVATE kosmo_star_formation)
