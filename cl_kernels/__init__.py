"""OpenCL C kernels of dmlsim, installed as the package data ``dmlsim.cl_kernels``."""
