# Included by CMake right after `project(ggml)` (CMAKE_PROJECT_ggml_INCLUDE, set by setup.sh).
# The llama.cpp build runs at -O1 to halve the compile time of its large C++ files (HTTP server,
# JSON, argument parsing, chat templates), none of which is on the per-token path; the ggml
# directory — the tensor kernels every token runs through — keeps -O3.
set(CMAKE_C_FLAGS_RELEASE "-O3 -DNDEBUG")
set(CMAKE_CXX_FLAGS_RELEASE "-O3 -DNDEBUG")
