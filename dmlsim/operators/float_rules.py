"""Rules shared by DirectML operators whose doc pages allow only FLOAT32/FLOAT16 tensors of a range of
dimension counts (GEMM, CONVOLUTION, UPSAMPLE_2D).

The generated descs (dmlsim.api.directml_schema) accept any data type and 1 to 8 dimensions; an
operator narrows them in its ``check`` with these helpers, each problem naming the struct field.
"""

from __future__ import annotations

from collections.abc import Sequence

from dmlsim.api.enums import DML_TENSOR_DATA_TYPE
from dmlsim.api.errors import Problems
from dmlsim.api.tensor import TensorLayout, data_type_name
from dmlsim.operators.base import ValidatedDesc

_T = DML_TENSOR_DATA_TYPE
FLOAT_TYPES = (_T.DML_TENSOR_DATA_TYPE_FLOAT32, _T.DML_TENSOR_DATA_TYPE_FLOAT16)


def require_float_tensors(v: ValidatedDesc, problems: Problems, names: Sequence[str],
                          dimension_counts: range) -> bool:
    """Each present tensor field in ``names`` is FLOAT32 or FLOAT16 with a dimension count in
    ``dimension_counts``; True when all are (the caller's shape rules may then index their sizes)."""
    ok = True
    for name in names:
        layout = v.tensors.get(name)
        if not isinstance(layout, TensorLayout):
            continue
        if layout.data_type not in FLOAT_TYPES:
            problems.add(f"{v.struct_name}.{name}.DataType {data_type_name(layout.data_type)} is not supported by "
                         f"{v.operator.name} (supported: FLOAT32, FLOAT16)")
            ok = False
        if len(layout.sizes) not in dimension_counts:
            problems.add(f"{v.struct_name}.{name}.DimensionCount {len(layout.sizes)} is not supported by "
                         f"{v.operator.name} (supported: {dimension_counts.start} to {dimension_counts.stop - 1})")
            ok = False
    return ok


def storage_defines(layout: TensorLayout) -> dict[str, bool]:
    """The kernel build define of a FLOAT32/FLOAT16 tensor's storage (dmlsim/cl_kernels/dmlsim.h)."""
    return {"STORE_HALF": layout.data_type == _T.DML_TENSOR_DATA_TYPE_FLOAT16}
