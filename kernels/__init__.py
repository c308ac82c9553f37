"""The chapter's C++ kernels with their Python wrappers. Importing a submodule compiles
(or reuses) its library: `from kernels import rms_norm`."""
