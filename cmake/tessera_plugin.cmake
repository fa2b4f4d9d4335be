# tessera_add_plugin(NAME [NO_INSTALL] [OUTPUT_DIRECTORY DIR] SOURCES...): a backend or
# kernel plugin, built as a MODULE named lib<NAME>.so. Only the entry point should be
# exported: visibility is hidden, and -fno-gnu-unique keeps the library unloadable
# (GCC's unique symbols would pin it in memory). Used in this tree and shipped with the
# installed plugin SDK (find_package(TesseraPluginSDK)), so both build plugins alike.
#   NO_INSTALL        no install rule (also when the variable TESSERA_PLUGIN_NO_INSTALL
#                     is true in the calling directory)
#   OUTPUT_DIRECTORY  where the .so is built; default TESSERA_PLUGIN_OUTPUT_DIR if set,
#                     else CMake's default
# Installed to TESSERA_PLUGIN_INSTALL_DIR if set, else <libdir>/tessera: a directory the
# tessera CLI searches.
include_guard(GLOBAL)
include(GNUInstallDirs)

function(tessera_add_plugin name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_INSTALL" "OUTPUT_DIRECTORY" "")
  add_library(${name} MODULE ${arg_UNPARSED_ARGUMENTS})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    CXX_VISIBILITY_PRESET hidden
    C_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON)
  if(arg_OUTPUT_DIRECTORY)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${arg_OUTPUT_DIRECTORY})
  elseif(TESSERA_PLUGIN_OUTPUT_DIR)
    set_target_properties(${name} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${TESSERA_PLUGIN_OUTPUT_DIR})
  endif()
  target_link_libraries(${name} PRIVATE Tessera::plugin_sdk)
  target_compile_options(${name} PRIVATE $<$<CXX_COMPILER_ID:GNU>:-fno-gnu-unique>)
  if(NOT arg_NO_INSTALL AND NOT TESSERA_PLUGIN_NO_INSTALL)
    if(TESSERA_PLUGIN_INSTALL_DIR)
      set(destination ${TESSERA_PLUGIN_INSTALL_DIR})
    else()
      set(destination ${CMAKE_INSTALL_LIBDIR}/tessera)
    endif()
    install(TARGETS ${name} LIBRARY DESTINATION ${destination})
  endif()
endfunction()
