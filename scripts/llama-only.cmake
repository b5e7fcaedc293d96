# Included by CMake right after llama-cpp-python's project() (CMAKE_PROJECT_INCLUDE, passed by
# scripts/setup-embedded). llama-cpp-python forces llama.cpp's common library on with a cache
# entry, but the Python package never loads it; a normal variable of the same name takes
# precedence over the cache entry (policy CMP0126), so llama.cpp's own CMakeLists skips it.
set(LLAMA_BUILD_COMMON OFF)
