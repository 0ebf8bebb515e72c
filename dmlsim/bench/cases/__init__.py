"""The bench cases of ``dmlsim bench``: one module per operator (or operator family), each registering its
:class:`~dmlsim.bench.registry.BenchCase` subclasses with :func:`~dmlsim.bench.registry.register_case`.

:func:`dmlsim.bench.registry.discover` imports every module here; a new case needs no line anywhere else.
A case builds its workload through the public API and :mod:`dmlsim.quick`, and may import its operator's
float64 reference for the numpy peer. C peers a case builds (``native_adam_step.c``) sit beside it as
package data.
"""
