"""Shared OpenCL kernel headers (``dmlsim.h``: storage types, tensor arguments, strided addressing) and the
bench roofline's copy kernel, shipped as package data; an operator's own kernel lives in its folder."""
