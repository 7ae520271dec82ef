# `cmake --install`: the tools, the static libraries and headers (the source ones and the generated
# ones), the descriptions and target data (installed by their directories), and a tisaConfig.cmake
# with which a downstream project does find_package(tisa) and links tisa::tisa (the kernel API and
# everything below it; MLIR and LLVM come from Debian's libMLIR.so and libLLVM.so).
set(TISA_INSTALLED_LIBRARIES TisaSemantics TisaTarget TisaDisasm TisaAArch64Runner TisaNVPTXCheck
    TisaTargets TisaCodegen TisaMatcher TisaTransforms TisaKernels)
if(TARGET TisaAMXEmulator)
  list(APPEND TISA_INSTALLED_LIBRARIES TisaAMXEmulator)
endif()
install(TARGETS ${TISA_INSTALLED_LIBRARIES} EXPORT tisaTargets ARCHIVE DESTINATION lib/tisa
        LIBRARY DESTINATION lib/tisa)
install(DIRECTORY include/tisa DESTINATION include FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_BINARY_DIR}/include/tisa DESTINATION include
        FILES_MATCHING PATTERN "*.h" PATTERN "*.inc" PATTERN "CMakeFiles" EXCLUDE)
install(EXPORT tisaTargets NAMESPACE tisa:: DESTINATION lib/cmake/tisa)
include(CMakePackageConfigHelpers)
configure_package_config_file(cmake/tisaConfig.cmake.in
  ${PROJECT_BINARY_DIR}/tisaConfig.cmake INSTALL_DESTINATION lib/cmake/tisa)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/tisaConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/tisaConfig.cmake ${PROJECT_BINARY_DIR}/tisaConfigVersion.cmake
        DESTINATION lib/cmake/tisa)
