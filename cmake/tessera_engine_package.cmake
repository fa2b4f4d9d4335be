# The engine library as a CMake package, for programs that embed Tessera
# (examples/embed): `cmake --install <build> --component engine` installs the static
# library, the headers of core/ and dsl/ (under include/tessera-engine) and the package
# Tessera (Tessera::engine); it needs the sdk component in the same prefix.
include(CMakePackageConfigHelpers)
set_target_properties(tessera_core PROPERTIES EXPORT_NAME engine)
add_library(Tessera::engine ALIAS tessera_core)

set(TESSERA_ENGINE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Tessera)
install(TARGETS tessera_core EXPORT TesseraTargets ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT engine)
install(DIRECTORY core dsl DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/tessera-engine COMPONENT engine
  FILES_MATCHING PATTERN "*.h")
install(EXPORT TesseraTargets NAMESPACE Tessera:: DESTINATION ${TESSERA_ENGINE_CMAKE_DIR} COMPONENT engine)
configure_package_config_file(cmake/TesseraConfig.cmake.in ${CMAKE_BINARY_DIR}/TesseraConfig.cmake
  INSTALL_DESTINATION ${TESSERA_ENGINE_CMAKE_DIR})
# The engine's API changes with any minor release, like the plugin ABI.
write_basic_package_version_file(${CMAKE_BINARY_DIR}/TesseraConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/TesseraConfig.cmake ${CMAKE_BINARY_DIR}/TesseraConfigVersion.cmake
  DESTINATION ${TESSERA_ENGINE_CMAKE_DIR} COMPONENT engine)

# The in-tree stand-in: find_package(Tessera) in an example finds this, and the target
# Tessera::engine is the alias above.
set(TESSERA_ENGINE_IN_TREE_DIR ${CMAKE_BINARY_DIR}/engine-in-tree)
file(WRITE ${TESSERA_ENGINE_IN_TREE_DIR}/TesseraConfig.cmake
  "# In-tree Tessera: Tessera::engine is an alias of tessera_core.\n")
file(COPY ${CMAKE_BINARY_DIR}/TesseraConfigVersion.cmake DESTINATION ${TESSERA_ENGINE_IN_TREE_DIR})
