# Included by CMake right after `project("llama.cpp")` (CMAKE_PROJECT_llama.cpp_INCLUDE, set by setup.sh).
# The build is a unity build (CMAKE_UNITY_BUILD): each target's sources are compiled a few at a
# time as one translation unit, so the large headers they share (JSON, HTTP, the C++ standard
# library) are parsed once per batch instead of once per file. mtmd's two public helper files
# refuse to be compiled next to mtmd's internal headers (#error), so they stay separate units;
# the directory exists only after add_subdirectory, hence the deferred call.
cmake_language(DEFER DIRECTORY "${CMAKE_SOURCE_DIR}" CALL
  set_source_files_properties
    "${CMAKE_SOURCE_DIR}/tools/mtmd/mtmd-helper.cpp"
    "${CMAKE_SOURCE_DIR}/tools/mtmd/mtmd-helper-gen.cpp"
  DIRECTORY "${CMAKE_SOURCE_DIR}/tools/mtmd"
  PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
