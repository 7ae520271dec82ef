# `cmake --install`: the tools, libtisa.so, the static libraries and headers (the source ones and the generated
# ones), the descriptions and target data (installed by their directories), and a tisaConfig.cmake
# with which a downstream project does find_package(tisa) and links tisa::tisa (libtisa.so for the
# C++ kernel API and everything below it, with MLIR's and LLVM's headers; MLIR and LLVM come from
# Debian's libMLIR.so and libLLVM.so) or tisa::libtisa (libtisa.so for the C API alone).
set(TISA_INSTALLED_LIBRARIES TisaSemantics TisaTarget TisaDisasm TisaAArch64Runner TisaNVPTXCheck
    TisaTargets TisaCodegen TisaMatcher TisaTransforms TisaKernels)
if(TARGET TisaAMXEmulator)
  list(APPEND TISA_INSTALLED_LIBRARIES TisaAMXEmulator)
endif()
install(TARGETS ${TISA_INSTALLED_LIBRARIES} EXPORT tisaTargets ARCHIVE DESTINATION lib/tisa
        LIBRARY DESTINATION lib/tisa)
# libtisa.so (kernels/CMakeLists.txt) in PREFIX/lib, beside a pkg-config file for C callers that
# do not use CMake (`pkg-config --cflags --libs tisa`).
install(TARGETS TisaShared EXPORT tisaTargets LIBRARY DESTINATION lib)
configure_file(cmake/tisa.pc.in ${PROJECT_BINARY_DIR}/tisa.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/tisa.pc DESTINATION lib/pkgconfig)
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
