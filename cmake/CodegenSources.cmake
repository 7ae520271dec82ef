# The sources whose hash identifies the code generator in the kernel cache key (TISA_CODEGEN_ID):
# tisa_codegen_sources(VAR ROOT [CONFIGURE_DEPENDS]) globs them under ROOT. Both the build
# (kernels/CMakeLists.txt, for the step's dependencies) and the step itself (CodegenId.cmake)
# use this one list.
function(tisa_codegen_sources var root)
  file(GLOB_RECURSE found ${ARGN} LIST_DIRECTORIES false
       ${root}/include/tisa/*.h ${root}/include/tisa/*.td
       ${root}/semantics/*.cpp ${root}/matcher/*.cpp
       ${root}/transforms/*.cpp ${root}/transforms/*.h ${root}/transforms/*.td
       ${root}/targets/*.cpp
       ${root}/kernels/*.cpp ${root}/kernels/*.h)
  list(SORT found)
  set(${var} ${found} PARENT_SCOPE)
endfunction()
