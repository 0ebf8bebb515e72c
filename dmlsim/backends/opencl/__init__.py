"""OpenCL runtime of dmlsim: adapters, programs, launches (pyopencl)."""
