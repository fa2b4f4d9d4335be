# tessera_add_plugin(NAME SOURCES...): a backend or kernel plugin, built as a MODULE
# named lib<NAME>.so into the plugin directory. Only the entry point is exported, and
# -fno-gnu-unique keeps the library unloadable (GCC's unique symbols would pin it).
function(tessera_add_plugin name)
  add_library(${name} MODULE ${ARGN})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${TESSERA_PLUGIN_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  target_link_libraries(${name} PRIVATE tessera_plugin_sdk)
  target_compile_options(${name} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-fno-gnu-unique>)
  install(TARGETS ${name} LIBRARY DESTINATION ${TESSERA_PLUGIN_INSTALL_DIR})
endfunction()
