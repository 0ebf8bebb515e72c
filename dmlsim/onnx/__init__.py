"""ONNX integration: the ``ai.onnx.preview.training`` backend (see :mod:`dmlsim.backend`)."""
