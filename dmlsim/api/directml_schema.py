# GENERATED FILE: do not edit by hand. Written by tools/gen_directml_schema.py from DirectML's
# DirectMLSchema.h (microsoft/DirectML, DxDispatch's DirectMLHelpers) and the enum tables beside it;
# change the generator and run it again.
"""Every DirectML operator desc of directml.h (up to DML_FEATURE_LEVEL_6_4) and the enums they use.

Each desc is a dataclass with the header's field names in header order; each field carries its schema
kind (dmlsim.api.schema): input/output tensor (optional or not, tensor arrays with their count field),
FLOAT/UINT/UINT64/INT/BOOL or enum attributes, DML_SCALE_BIAS, DML_SIZE_2D, DML_SCALAR_UNION (read as
the data type its ``*DataType`` field names), UINT/INT/FLOAT arrays with their count field, and
nested operator descs (fused activations, ``ActivationDescs``). Tensor fields accept any data type
and 1 to 8 dimensions here: the generic checks; implemented operators narrow them in their own descs.
:data:`OPERATOR_SCHEMAS` gives each operator's type, desc, feature level and in-place support.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from dmlsim.api.enums import DML_OPERATOR_TYPE, DML_TENSOR_DATA_TYPE
from dmlsim.api.schema import (
    ANY_DATA_TYPE,
    ANY_DIMENSION_COUNT,
    GeneratedDesc,
    OperatorSchema,
    attribute,
    tensor_input,
    tensor_output,
)
from dmlsim.api.structs import (
    DML_OPERATOR_DESC,
    DML_SCALAR_UNION,
    DML_SCALE_BIAS,
    DML_SIZE_2D,
    DML_TENSOR_DESC,
)

_OP = DML_OPERATOR_TYPE


class DML_AXIS_DIRECTION(IntEnum):
    DML_AXIS_DIRECTION_INCREASING = 0
    DML_AXIS_DIRECTION_DECREASING = 1


class DML_CONVOLUTION_DIRECTION(IntEnum):
    DML_CONVOLUTION_DIRECTION_FORWARD = 0
    DML_CONVOLUTION_DIRECTION_BACKWARD = 1


class DML_CONVOLUTION_MODE(IntEnum):
    DML_CONVOLUTION_MODE_CONVOLUTION = 0
    DML_CONVOLUTION_MODE_CROSS_CORRELATION = 1


class DML_DEPTH_SPACE_ORDER(IntEnum):
    DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW = 0
    DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH = 1


class DML_INTERPOLATION_MODE(IntEnum):
    DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR = 0
    DML_INTERPOLATION_MODE_LINEAR = 1


class DML_IS_INFINITY_MODE(IntEnum):
    DML_IS_INFINITY_MODE_EITHER = 0
    DML_IS_INFINITY_MODE_POSITIVE = 1
    DML_IS_INFINITY_MODE_NEGATIVE = 2


class DML_MATRIX_TRANSFORM(IntEnum):
    DML_MATRIX_TRANSFORM_NONE = 0
    DML_MATRIX_TRANSFORM_TRANSPOSE = 1


class DML_MULTIHEAD_ATTENTION_MASK_TYPE(IntEnum):
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE = 0
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH = 1
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START = 2
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END = 3
    DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN = 4


class DML_PADDING_MODE(IntEnum):
    DML_PADDING_MODE_CONSTANT = 0
    DML_PADDING_MODE_EDGE = 1
    DML_PADDING_MODE_REFLECTION = 2
    DML_PADDING_MODE_SYMMETRIC = 3
    DML_PADDING_MODE_WRAP = 4


class DML_QUANTIZATION_TYPE(IntEnum):
    DML_QUANTIZATION_TYPE_NONE = 0
    DML_QUANTIZATION_TYPE_SCALE = 1
    DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT = 2


class DML_RANDOM_GENERATOR_TYPE(IntEnum):
    DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 = 0


class DML_RECURRENT_NETWORK_DIRECTION(IntEnum):
    DML_RECURRENT_NETWORK_DIRECTION_FORWARD = 0
    DML_RECURRENT_NETWORK_DIRECTION_BACKWARD = 1
    DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL = 2


class DML_REDUCE_FUNCTION(IntEnum):
    DML_REDUCE_FUNCTION_ARGMAX = 0
    DML_REDUCE_FUNCTION_ARGMIN = 1
    DML_REDUCE_FUNCTION_AVERAGE = 2
    DML_REDUCE_FUNCTION_L1 = 3
    DML_REDUCE_FUNCTION_L2 = 4
    DML_REDUCE_FUNCTION_LOG_SUM = 5
    DML_REDUCE_FUNCTION_LOG_SUM_EXP = 6
    DML_REDUCE_FUNCTION_MAX = 7
    DML_REDUCE_FUNCTION_MIN = 8
    DML_REDUCE_FUNCTION_MULTIPLY = 9
    DML_REDUCE_FUNCTION_SUM = 10
    DML_REDUCE_FUNCTION_SUM_SQUARE = 11


class DML_ROUNDING_MODE(IntEnum):
    DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN = 0
    DML_ROUNDING_MODE_TOWARD_ZERO = 1
    DML_ROUNDING_MODE_TOWARD_INFINITY = 2


OPERATOR_ENUMS: tuple[type[IntEnum], ...] = (
    DML_AXIS_DIRECTION,
    DML_CONVOLUTION_DIRECTION,
    DML_CONVOLUTION_MODE,
    DML_DEPTH_SPACE_ORDER,
    DML_INTERPOLATION_MODE,
    DML_IS_INFINITY_MODE,
    DML_MATRIX_TRANSFORM,
    DML_MULTIHEAD_ATTENTION_MASK_TYPE,
    DML_PADDING_MODE,
    DML_QUANTIZATION_TYPE,
    DML_RANDOM_GENERATOR_TYPE,
    DML_RECURRENT_NETWORK_DIRECTION,
    DML_REDUCE_FUNCTION,
    DML_ROUNDING_MODE,
)

# Every member under its full header name, as C spells it.
DML_AXIS_DIRECTION_INCREASING = DML_AXIS_DIRECTION.DML_AXIS_DIRECTION_INCREASING
DML_AXIS_DIRECTION_DECREASING = DML_AXIS_DIRECTION.DML_AXIS_DIRECTION_DECREASING
DML_CONVOLUTION_DIRECTION_FORWARD = DML_CONVOLUTION_DIRECTION.DML_CONVOLUTION_DIRECTION_FORWARD
DML_CONVOLUTION_DIRECTION_BACKWARD = DML_CONVOLUTION_DIRECTION.DML_CONVOLUTION_DIRECTION_BACKWARD
DML_CONVOLUTION_MODE_CONVOLUTION = DML_CONVOLUTION_MODE.DML_CONVOLUTION_MODE_CONVOLUTION
DML_CONVOLUTION_MODE_CROSS_CORRELATION = DML_CONVOLUTION_MODE.DML_CONVOLUTION_MODE_CROSS_CORRELATION
DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW = DML_DEPTH_SPACE_ORDER.DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW
DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH = DML_DEPTH_SPACE_ORDER.DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH
DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR = DML_INTERPOLATION_MODE.DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR
DML_INTERPOLATION_MODE_LINEAR = DML_INTERPOLATION_MODE.DML_INTERPOLATION_MODE_LINEAR
DML_IS_INFINITY_MODE_EITHER = DML_IS_INFINITY_MODE.DML_IS_INFINITY_MODE_EITHER
DML_IS_INFINITY_MODE_POSITIVE = DML_IS_INFINITY_MODE.DML_IS_INFINITY_MODE_POSITIVE
DML_IS_INFINITY_MODE_NEGATIVE = DML_IS_INFINITY_MODE.DML_IS_INFINITY_MODE_NEGATIVE
DML_MATRIX_TRANSFORM_NONE = DML_MATRIX_TRANSFORM.DML_MATRIX_TRANSFORM_NONE
DML_MATRIX_TRANSFORM_TRANSPOSE = DML_MATRIX_TRANSFORM.DML_MATRIX_TRANSFORM_TRANSPOSE
DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE = DML_MULTIHEAD_ATTENTION_MASK_TYPE.DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE
DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH = DML_MULTIHEAD_ATTENTION_MASK_TYPE.DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH
DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START = DML_MULTIHEAD_ATTENTION_MASK_TYPE.DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START
DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END = DML_MULTIHEAD_ATTENTION_MASK_TYPE.DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END
DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN = DML_MULTIHEAD_ATTENTION_MASK_TYPE.DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN
DML_PADDING_MODE_CONSTANT = DML_PADDING_MODE.DML_PADDING_MODE_CONSTANT
DML_PADDING_MODE_EDGE = DML_PADDING_MODE.DML_PADDING_MODE_EDGE
DML_PADDING_MODE_REFLECTION = DML_PADDING_MODE.DML_PADDING_MODE_REFLECTION
DML_PADDING_MODE_SYMMETRIC = DML_PADDING_MODE.DML_PADDING_MODE_SYMMETRIC
DML_PADDING_MODE_WRAP = DML_PADDING_MODE.DML_PADDING_MODE_WRAP
DML_QUANTIZATION_TYPE_NONE = DML_QUANTIZATION_TYPE.DML_QUANTIZATION_TYPE_NONE
DML_QUANTIZATION_TYPE_SCALE = DML_QUANTIZATION_TYPE.DML_QUANTIZATION_TYPE_SCALE
DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT = DML_QUANTIZATION_TYPE.DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT
DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10 = DML_RANDOM_GENERATOR_TYPE.DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10
DML_RECURRENT_NETWORK_DIRECTION_FORWARD = DML_RECURRENT_NETWORK_DIRECTION.DML_RECURRENT_NETWORK_DIRECTION_FORWARD
DML_RECURRENT_NETWORK_DIRECTION_BACKWARD = DML_RECURRENT_NETWORK_DIRECTION.DML_RECURRENT_NETWORK_DIRECTION_BACKWARD
DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL = DML_RECURRENT_NETWORK_DIRECTION.DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL
DML_REDUCE_FUNCTION_ARGMAX = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_ARGMAX
DML_REDUCE_FUNCTION_ARGMIN = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_ARGMIN
DML_REDUCE_FUNCTION_AVERAGE = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_AVERAGE
DML_REDUCE_FUNCTION_L1 = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_L1
DML_REDUCE_FUNCTION_L2 = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_L2
DML_REDUCE_FUNCTION_LOG_SUM = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_LOG_SUM
DML_REDUCE_FUNCTION_LOG_SUM_EXP = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_LOG_SUM_EXP
DML_REDUCE_FUNCTION_MAX = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_MAX
DML_REDUCE_FUNCTION_MIN = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_MIN
DML_REDUCE_FUNCTION_MULTIPLY = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_MULTIPLY
DML_REDUCE_FUNCTION_SUM = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_SUM
DML_REDUCE_FUNCTION_SUM_SQUARE = DML_REDUCE_FUNCTION.DML_REDUCE_FUNCTION_SUM_SQUARE
DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN = DML_ROUNDING_MODE.DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN
DML_ROUNDING_MODE_TOWARD_ZERO = DML_ROUNDING_MODE.DML_ROUNDING_MODE_TOWARD_ZERO
DML_ROUNDING_MODE_TOWARD_INFINITY = DML_ROUNDING_MODE.DML_ROUNDING_MODE_TOWARD_INFINITY


@dataclass
class DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_ABS_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_ACOS_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_ADD_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_ASIN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_ATAN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_CEIL_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_CLIP_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)
    Min: float | None = attribute("FLOAT")
    Max: float | None = attribute("FLOAT")


@dataclass
class DML_ELEMENT_WISE_COS_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_EXP_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_LOG_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_LOGICAL_OR_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_LOGICAL_XOR_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_MAX_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_MEAN_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_MIN_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_POW_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ExponentTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)
    Exponent: float | None = attribute("FLOAT")


@dataclass
class DML_ELEMENT_WISE_RECIP_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_SIN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_SQRT_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_TAN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)
    Min: float | None = attribute("FLOAT")


@dataclass
class DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                           optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                           optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_ELU_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_HARDMAX_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_IDENTITY_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_LINEAR_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    SlopeTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_RELU_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")
    Gamma: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_SIGMOID_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_SOFTMAX_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Steepness: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_TANH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")


@dataclass
class DML_CONVOLUTION_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    FilterTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Mode: DML_CONVOLUTION_MODE | int | None = attribute(DML_CONVOLUTION_MODE)
    Direction: DML_CONVOLUTION_DIRECTION | int | None = attribute(DML_CONVOLUTION_DIRECTION)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    OutputPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    GroupCount: int | None = attribute("UINT")
    FusedActivation: DML_OPERATOR_DESC | None = attribute("OPERATOR_DESC", optional=True)


@dataclass
class DML_GEMM_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    CTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT, optional=True,
                                                   inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    TransA: DML_MATRIX_TRANSFORM | int | None = attribute(DML_MATRIX_TRANSFORM)
    TransB: DML_MATRIX_TRANSFORM | int | None = attribute(DML_MATRIX_TRANSFORM)
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")
    FusedActivation: DML_OPERATOR_DESC | None = attribute("OPERATOR_DESC", optional=True)


@dataclass
class DML_REDUCE_OPERATOR_DESC(GeneratedDesc):
    Function: DML_REDUCE_FUNCTION | int | None = attribute(DML_REDUCE_FUNCTION)
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    AxisCount: int | None = attribute("UINT")
    Axes: list[int] | None = attribute("UINT_ARRAY", array_count="AxisCount")


@dataclass
class DML_AVERAGE_POOLING_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    IncludePadding: bool | None = attribute("BOOL")


@dataclass
class DML_LP_POOLING_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    P: int | None = attribute("UINT")


@dataclass
class DML_MAX_POOLING_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_ROI_POOLING_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ROITensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                     inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    SpatialScale: float | None = attribute("FLOAT")
    PooledSize: DML_SIZE_2D | None = attribute("SIZE_2D")


@dataclass
class DML_SLICE_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Offsets: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Sizes: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_CAST_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_SPLIT_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputCount: int | None = attribute("UINT")
    OutputTensors: list[DML_TENSOR_DESC] | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                array_count="OutputCount")
    Axis: int | None = attribute("UINT")


@dataclass
class DML_JOIN_OPERATOR_DESC(GeneratedDesc):
    InputCount: int | None = attribute("UINT")
    InputTensors: list[DML_TENSOR_DESC] | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                              array_count="InputCount", inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")


@dataclass
class DML_PADDING_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    PaddingMode: DML_PADDING_MODE | int | None = attribute(DML_PADDING_MODE)
    PaddingValue: float | None = attribute("FLOAT")
    DimensionCount: int | None = attribute("UINT")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_VALUE_SCALE_2D_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Scale: float | None = attribute("FLOAT")
    ChannelCount: int | None = attribute("UINT")
    Bias: list[float] | None = attribute("FLOAT_ARRAY", array_count="ChannelCount")


@dataclass
class DML_UPSAMPLE_2D_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleSize: DML_SIZE_2D | None = attribute("SIZE_2D")
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)


@dataclass
class DML_GATHER_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    IndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")
    IndexDimensions: int | None = attribute("UINT")


@dataclass
class DML_SPACE_TO_DEPTH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BlockSize: int | None = attribute("UINT")


@dataclass
class DML_DEPTH_TO_SPACE_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BlockSize: int | None = attribute("UINT")


@dataclass
class DML_TILE_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    RepeatsCount: int | None = attribute("UINT")
    Repeats: list[int] | None = attribute("UINT_ARRAY", array_count="RepeatsCount")


@dataclass
class DML_TOP_K_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputValueTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputIndexTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")
    K: int | None = attribute("UINT")


@dataclass
class DML_BATCH_NORMALIZATION_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    MeanTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      inplace_eligible=False)
    VarianceTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                          inplace_eligible=False)
    ScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Spatial: bool | None = attribute("BOOL")
    Epsilon: float | None = attribute("FLOAT")
    FusedActivation: DML_OPERATOR_DESC | None = attribute("OPERATOR_DESC", optional=True)


@dataclass
class DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       optional=True, inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    CrossChannel: bool | None = attribute("BOOL")
    NormalizeVariance: bool | None = attribute("BOOL")
    Epsilon: float | None = attribute("FLOAT")
    FusedActivation: DML_OPERATOR_DESC | None = attribute("OPERATOR_DESC", optional=True)


@dataclass
class DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    CrossChannel: bool | None = attribute("BOOL")
    LocalSize: int | None = attribute("UINT")
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")
    Bias: float | None = attribute("FLOAT")


@dataclass
class DML_LP_NORMALIZATION_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")
    Epsilon: float | None = attribute("FLOAT")
    P: int | None = attribute("UINT")


@dataclass
class DML_RNN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    WeightTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    RecurrenceTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    HiddenInitTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    SequenceLengthsTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    OutputSequenceTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True)
    OutputSingleTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               optional=True)
    ActivationDescCount: int | None = attribute("UINT")
    ActivationDescs: list[DML_OPERATOR_DESC] | None = attribute("OPERATOR_DESC_ARRAY",
                                                                array_count="ActivationDescCount")
    Direction: DML_RECURRENT_NETWORK_DIRECTION | int | None = attribute(DML_RECURRENT_NETWORK_DIRECTION)


@dataclass
class DML_LSTM_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    WeightTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    RecurrenceTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    HiddenInitTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    CellMemInitTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                             optional=True, inplace_eligible=False)
    SequenceLengthsTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    PeepholeTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                          optional=True, inplace_eligible=False)
    OutputSequenceTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True)
    OutputSingleTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               optional=True)
    OutputCellSingleTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                   optional=True)
    ActivationDescCount: int | None = attribute("UINT")
    ActivationDescs: list[DML_OPERATOR_DESC] | None = attribute("OPERATOR_DESC_ARRAY",
                                                                array_count="ActivationDescCount")
    Direction: DML_RECURRENT_NETWORK_DIRECTION | int | None = attribute(DML_RECURRENT_NETWORK_DIRECTION)
    ClipThreshold: float | None = attribute("FLOAT")
    UseClipThreshold: bool | None = attribute("BOOL")
    CoupleInputForget: bool | None = attribute("BOOL")


@dataclass
class DML_GRU_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    WeightTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    RecurrenceTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    HiddenInitTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    SequenceLengthsTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    OutputSequenceTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True)
    OutputSingleTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               optional=True)
    ActivationDescCount: int | None = attribute("UINT")
    ActivationDescs: list[DML_OPERATOR_DESC] | None = attribute("OPERATOR_DESC_ARRAY",
                                                                array_count="ActivationDescCount")
    Direction: DML_RECURRENT_NETWORK_DIRECTION | int | None = attribute(DML_RECURRENT_NETWORK_DIRECTION)
    LinearBeforeReset: bool | None = attribute("BOOL")


@dataclass
class DML_ELEMENT_WISE_SIGN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_ERF_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_SINH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_COSH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_TANH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_ASINH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_ATANH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)


@dataclass
class DML_ELEMENT_WISE_IF_OPERATOR_DESC(GeneratedDesc):
    ConditionTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                           inplace_eligible=False)
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_ADD1_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    FusedActivation: DML_OPERATOR_DESC | None = attribute("OPERATOR_DESC", optional=True)


@dataclass
class DML_ACTIVATION_SHRINK_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Bias: float | None = attribute("FLOAT")
    Threshold: float | None = attribute("FLOAT")


@dataclass
class DML_MAX_POOLING1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputIndicesTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                optional=True)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_MAX_UNPOOLING_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    IndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_DIAGONAL_MATRIX_OPERATOR_DESC(GeneratedDesc):
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Offset: int | None = attribute("INT")
    Value: float | None = attribute("FLOAT")


@dataclass
class DML_SCATTER_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    IndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    UpdatesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")


@dataclass
class DML_ONE_HOT_OPERATOR_DESC(GeneratedDesc):
    IndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    ValuesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")


@dataclass
class DML_RESAMPLE_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)
    ScaleCount: int | None = attribute("UINT")
    Scales: list[float] | None = attribute("FLOAT_ARRAY", array_count="ScaleCount")


@dataclass
class DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_ROUND_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    RoundingMode: DML_ROUNDING_MODE | int | None = attribute(DML_ROUNDING_MODE)


@dataclass
class DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InfinityMode: DML_IS_INFINITY_MODE | int | None = attribute(DML_IS_INFINITY_MODE)


@dataclass
class DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_FILL_VALUE_CONSTANT_OPERATOR_DESC(GeneratedDesc):
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ValueDataType: DML_TENSOR_DATA_TYPE | int | None = attribute(DML_TENSOR_DATA_TYPE)
    Value: DML_SCALAR_UNION | float | None = attribute("SCALAR_UNION", data_type_field="ValueDataType")


@dataclass
class DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC(GeneratedDesc):
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ValueDataType: DML_TENSOR_DATA_TYPE | int | None = attribute(DML_TENSOR_DATA_TYPE)
    ValueStart: DML_SCALAR_UNION | float | None = attribute("SCALAR_UNION", data_type_field="ValueDataType")
    ValueDelta: DML_SCALAR_UNION | float | None = attribute("SCALAR_UNION", data_type_field="ValueDataType")


@dataclass
class DML_CUMULATIVE_SUMMATION_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")
    AxisDirection: DML_AXIS_DIRECTION | int | None = attribute(DML_AXIS_DIRECTION)
    HasExclusiveSum: bool | None = attribute("BOOL")


@dataclass
class DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    SequenceLengthsTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")


@dataclass
class DML_GATHER_ELEMENTS_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    IndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")


@dataclass
class DML_GATHER_ND_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    IndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InputDimensionCount: int | None = attribute("UINT")
    IndicesDimensionCount: int | None = attribute("UINT")


@dataclass
class DML_SCATTER_ND_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    IndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    UpdatesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InputDimensionCount: int | None = attribute("UINT")
    IndicesDimensionCount: int | None = attribute("UINT")


@dataclass
class DML_MAX_POOLING2_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputIndicesTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                optional=True)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_SLICE1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    InputWindowOffsets: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    InputWindowSizes: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    InputWindowStrides: list[int] | None = attribute("INT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_TOP_K1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputValueTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputIndexTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")
    K: int | None = attribute("UINT")
    AxisDirection: DML_AXIS_DIRECTION | int | None = attribute(DML_AXIS_DIRECTION)


@dataclass
class DML_DEPTH_TO_SPACE1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BlockSize: int | None = attribute("UINT")
    Order: DML_DEPTH_SPACE_ORDER | int | None = attribute(DML_DEPTH_SPACE_ORDER)


@dataclass
class DML_SPACE_TO_DEPTH1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BlockSize: int | None = attribute("UINT")
    Order: DML_DEPTH_SPACE_ORDER | int | None = attribute(DML_DEPTH_SPACE_ORDER)


@dataclass
class DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       optional=True, inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    AxisCount: int | None = attribute("UINT")
    Axes: list[int] | None = attribute("UINT_ARRAY", array_count="AxisCount")
    NormalizeVariance: bool | None = attribute("BOOL")
    Epsilon: float | None = attribute("FLOAT")
    FusedActivation: DML_OPERATOR_DESC | None = attribute("OPERATOR_DESC", optional=True)


@dataclass
class DML_RESAMPLE1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)
    DimensionCount: int | None = attribute("UINT")
    Scales: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    InputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    OutputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    AZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    AScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    AZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    BZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    OutputScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                             inplace_eligible=False)
    OutputZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_CONVOLUTION_INTEGER_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    InputZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                optional=True, inplace_eligible=False)
    FilterTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    FilterZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    GroupCount: int | None = attribute("UINT")


@dataclass
class DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    InputScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            inplace_eligible=False)
    InputZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                optional=True, inplace_eligible=False)
    FilterTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    FilterScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                             inplace_eligible=False)
    FilterZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    OutputScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                             inplace_eligible=False)
    OutputZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    GroupCount: int | None = attribute("UINT")


@dataclass
class DML_ELEMENT_WISE_BIT_AND_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_BIT_OR_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_CELU_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    IncludePadding: bool | None = attribute("BOOL")


@dataclass
class DML_MAX_POOLING_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_RANDOM_GENERATOR_OPERATOR_DESC(GeneratedDesc):
    InputStateTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputStateTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                              optional=True)
    Type: DML_RANDOM_GENERATOR_TYPE | int | None = attribute(DML_RANDOM_GENERATOR_TYPE)


@dataclass
class DML_NONZERO_COORDINATES_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputCountTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputCoordinatesTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_RESAMPLE_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)
    DimensionCount: int | None = attribute("UINT")
    Scales: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    InputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    OutputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_SLICE_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    InputWindowOffsets: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    InputWindowSizes: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    InputWindowStrides: list[int] | None = attribute("INT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_ADAM_OPTIMIZER_OPERATOR_DESC(GeneratedDesc):
    InputParametersTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InputFirstMomentTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InputSecondMomentTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    GradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    TrainingStepTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputParametersTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputFirstMomentTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputSecondMomentTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE,
                                                                     dimension_counts=ANY_DIMENSION_COUNT)
    LearningRate: float | None = attribute("FLOAT")
    Beta1: float | None = attribute("FLOAT")
    Beta2: float | None = attribute("FLOAT")
    Epsilon: float | None = attribute("FLOAT")


@dataclass
class DML_ARGMIN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    AxisCount: int | None = attribute("UINT")
    Axes: list[int] | None = attribute("UINT_ARRAY", array_count="AxisCount")
    AxisDirection: DML_AXIS_DIRECTION | int | None = attribute(DML_AXIS_DIRECTION)


@dataclass
class DML_ARGMAX_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    AxisCount: int | None = attribute("UINT")
    Axes: list[int] | None = attribute("UINT_ARRAY", array_count="AxisCount")
    AxisDirection: DML_AXIS_DIRECTION | int | None = attribute(DML_AXIS_DIRECTION)


@dataclass
class DML_ROI_ALIGN_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ROITensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                     inplace_eligible=False)
    BatchIndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                              inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ReductionFunction: DML_REDUCE_FUNCTION | int | None = attribute(DML_REDUCE_FUNCTION)
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)
    SpatialScaleX: float | None = attribute("FLOAT")
    SpatialScaleY: float | None = attribute("FLOAT")
    OutOfBoundsInputValue: float | None = attribute("FLOAT")
    MinimumSamplesPerOutput: int | None = attribute("UINT")
    MaximumSamplesPerOutput: int | None = attribute("UINT")


@dataclass
class DML_GATHER_ND1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    IndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InputDimensionCount: int | None = attribute("UINT")
    IndicesDimensionCount: int | None = attribute("UINT")
    BatchDimensionCount: int | None = attribute("UINT")


@dataclass
class DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Min: float | None = attribute("FLOAT")
    Max: float | None = attribute("FLOAT")


@dataclass
class DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    CrossChannel: bool | None = attribute("BOOL")
    LocalSize: int | None = attribute("UINT")
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")
    Bias: float | None = attribute("FLOAT")


@dataclass
class DML_CUMULATIVE_PRODUCT_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Axis: int | None = attribute("UINT")
    AxisDirection: DML_AXIS_DIRECTION | int | None = attribute(DML_AXIS_DIRECTION)
    HasExclusiveProduct: bool | None = attribute("BOOL")


@dataclass
class DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    MeanTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      inplace_eligible=False)
    VarianceTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                          inplace_eligible=False)
    ScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputScaleGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE,
                                                                      dimension_counts=ANY_DIMENSION_COUNT)
    OutputBiasGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE,
                                                                     dimension_counts=ANY_DIMENSION_COUNT)
    Epsilon: float | None = attribute("FLOAT", optional=True)


@dataclass
class DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    AScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    AZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    BZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    OutputScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                             inplace_eligible=False)
    OutputZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputScaleTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputZeroPointTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ROI_ALIGN1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ROITensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                     inplace_eligible=False)
    BatchIndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                              inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ReductionFunction: DML_REDUCE_FUNCTION | int | None = attribute(DML_REDUCE_FUNCTION)
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)
    SpatialScaleX: float | None = attribute("FLOAT")
    SpatialScaleY: float | None = attribute("FLOAT")
    InputPixelOffset: float | None = attribute("FLOAT")
    OutputPixelOffset: float | None = attribute("FLOAT")
    OutOfBoundsInputValue: float | None = attribute("FLOAT")
    MinimumSamplesPerOutput: int | None = attribute("UINT")
    MaximumSamplesPerOutput: int | None = attribute("UINT")
    AlignRegionsToCorners: bool | None = attribute("BOOL")


@dataclass
class DML_ROI_ALIGN_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       optional=True, inplace_eligible=False)
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    ROITensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                     inplace_eligible=False)
    BatchIndicesTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                              inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True)
    OutputROIGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                    optional=True)
    ReductionFunction: DML_REDUCE_FUNCTION | int | None = attribute(DML_REDUCE_FUNCTION)
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)
    SpatialScaleX: float | None = attribute("FLOAT")
    SpatialScaleY: float | None = attribute("FLOAT")
    InputPixelOffset: float | None = attribute("FLOAT")
    OutputPixelOffset: float | None = attribute("FLOAT")
    MinimumSamplesPerOutput: int | None = attribute("UINT")
    MaximumSamplesPerOutput: int | None = attribute("UINT")
    AlignRegionsToCorners: bool | None = attribute("BOOL")


@dataclass
class DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      inplace_eligible=False)
    FusedAddTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                          optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputMeanTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputVarianceTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Epsilon: float | None = attribute("FLOAT")
    FusedActivation: DML_OPERATOR_DESC | None = attribute("OPERATOR_DESC", optional=True)


@dataclass
class DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    MeanTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      inplace_eligible=False)
    VarianceTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                          inplace_eligible=False)
    ScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputScaleGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE,
                                                                      dimension_counts=ANY_DIMENSION_COUNT)
    OutputBiasGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE,
                                                                     dimension_counts=ANY_DIMENSION_COUNT)
    Epsilon: float | None = attribute("FLOAT")


@dataclass
class DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ScaleBias: DML_SCALE_BIAS | None = attribute("SCALE_BIAS", optional=True)
    MinMaxDataType: DML_TENSOR_DATA_TYPE | int | None = attribute(DML_TENSOR_DATA_TYPE)
    Min: DML_SCALAR_UNION | float | None = attribute("SCALAR_UNION", data_type_field="MinMaxDataType")
    Max: DML_SCALAR_UNION | float | None = attribute("SCALAR_UNION", data_type_field="MinMaxDataType")


@dataclass
class DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    MinMaxDataType: DML_TENSOR_DATA_TYPE | int | None = attribute(DML_TENSOR_DATA_TYPE)
    Min: DML_SCALAR_UNION | float | None = attribute("SCALAR_UNION", data_type_field="MinMaxDataType")
    Max: DML_SCALAR_UNION | float | None = attribute("SCALAR_UNION", data_type_field="MinMaxDataType")


@dataclass
class DML_PADDING1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    PaddingMode: DML_PADDING_MODE | int | None = attribute(DML_PADDING_MODE)
    PaddingValueDataType: DML_TENSOR_DATA_TYPE | int | None = attribute(DML_TENSOR_DATA_TYPE)
    PaddingValue: DML_SCALAR_UNION | float | None = attribute("SCALAR_UNION", data_type_field="PaddingValueDataType")
    DimensionCount: int | None = attribute("UINT")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_GELU_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    AxisCount: int | None = attribute("UINT")
    Axes: list[int] | None = attribute("UINT_ARRAY", array_count="AxisCount")


@dataclass
class DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    AxisCount: int | None = attribute("UINT")
    Axes: list[int] | None = attribute("UINT_ARRAY", array_count="AxisCount")


@dataclass
class DML_ACTIVATION_HARDMAX1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    AxisCount: int | None = attribute("UINT")
    Axes: list[int] | None = attribute("UINT_ARRAY", array_count="AxisCount")


@dataclass
class DML_RESAMPLE2_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)
    RoundingDirection: DML_AXIS_DIRECTION | int | None = attribute(DML_AXIS_DIRECTION)
    DimensionCount: int | None = attribute("UINT")
    Scales: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    InputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    OutputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_RESAMPLE_GRAD1_OPERATOR_DESC(GeneratedDesc):
    InputGradientTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                               inplace_eligible=False)
    OutputGradientTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)
    RoundingDirection: DML_AXIS_DIRECTION | int | None = attribute(DML_AXIS_DIRECTION)
    DimensionCount: int | None = attribute("UINT")
    Scales: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    InputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    OutputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_DIAGONAL_MATRIX1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    ValueDataType: DML_TENSOR_DATA_TYPE | int | None = attribute(DML_TENSOR_DATA_TYPE)
    Value: DML_SCALAR_UNION | float | None = attribute("SCALAR_UNION", data_type_field="ValueDataType")
    DiagonalFillBegin: int | None = attribute("INT")
    DiagonalFillEnd: int | None = attribute("INT")


@dataclass
class DML_MULTIHEAD_ATTENTION_OPERATOR_DESC(GeneratedDesc):
    QueryTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       optional=True, inplace_eligible=False)
    KeyTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT, optional=True,
                                                     inplace_eligible=False)
    ValueTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       optional=True, inplace_eligible=False)
    StackedQueryKeyTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    StackedKeyValueTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    StackedQueryKeyValueTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE,
                                                                      dimension_counts=ANY_DIMENSION_COUNT,
                                                                      optional=True, inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    MaskTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    RelativePositionBiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE,
                                                                      dimension_counts=ANY_DIMENSION_COUNT,
                                                                      optional=True, inplace_eligible=False)
    PastKeyTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         optional=True, inplace_eligible=False)
    PastValueTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                           optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputPresentKeyTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                   optional=True)
    OutputPresentValueTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE,
                                                                     dimension_counts=ANY_DIMENSION_COUNT,
                                                                     optional=True)
    Scale: float | None = attribute("FLOAT")
    MaskFilterValue: float | None = attribute("FLOAT")
    HeadCount: int | None = attribute("UINT")
    MaskType: DML_MULTIHEAD_ATTENTION_MASK_TYPE | int | None = attribute(DML_MULTIHEAD_ATTENTION_MASK_TYPE)


@dataclass
class DML_LP_POOLING1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    P: int | None = attribute("UINT")


@dataclass
class DML_AVERAGE_POOLING1_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    IncludePadding: bool | None = attribute("BOOL")


@dataclass
class DML_ACTIVATION_SWISH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    SigmoidInputScale: float | None = attribute("FLOAT")


@dataclass
class DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    Alpha: float | None = attribute("FLOAT")
    Beta: float | None = attribute("FLOAT")


@dataclass
class DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    InputScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            inplace_eligible=False)
    InputZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                optional=True, inplace_eligible=False)
    OutputScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                             inplace_eligible=False)
    OutputZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    WindowSize: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    IncludePadding: bool | None = attribute("BOOL")


@dataclass
class DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC(GeneratedDesc):
    ATensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    AScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    AZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    BTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                   inplace_eligible=False)
    BScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                        inplace_eligible=False)
    BZeroPointTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                            optional=True, inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    ScaleTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       optional=True, inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    AxisCount: int | None = attribute("UINT")
    Axes: list[int] | None = attribute("UINT_ARRAY", array_count="AxisCount")
    UseMean: bool | None = attribute("BOOL")
    UseVariance: bool | None = attribute("BOOL")
    Epsilon: float | None = attribute("FLOAT")
    FusedActivation: DML_OPERATOR_DESC | None = attribute("OPERATOR_DESC", optional=True)


@dataclass
class DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC(GeneratedDesc):
    QueryTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       optional=True, inplace_eligible=False)
    KeyTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT, optional=True,
                                                     inplace_eligible=False)
    ValueTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       optional=True, inplace_eligible=False)
    StackedQueryKeyTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    StackedKeyValueTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                 optional=True, inplace_eligible=False)
    StackedQueryKeyValueTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE,
                                                                      dimension_counts=ANY_DIMENSION_COUNT,
                                                                      optional=True, inplace_eligible=False)
    BiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    MaskTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                      optional=True, inplace_eligible=False)
    RelativePositionBiasTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE,
                                                                      dimension_counts=ANY_DIMENSION_COUNT,
                                                                      optional=True, inplace_eligible=False)
    PastKeyTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                         optional=True, inplace_eligible=False)
    PastValueTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                           optional=True, inplace_eligible=False)
    PastSequenceLengthsTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE,
                                                                     dimension_counts=ANY_DIMENSION_COUNT,
                                                                     optional=True, inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    OutputPresentKeyTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                                   optional=True)
    OutputPresentValueTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE,
                                                                     dimension_counts=ANY_DIMENSION_COUNT,
                                                                     optional=True)
    Scale: float | None = attribute("FLOAT")
    MaskFilterValue: float | None = attribute("FLOAT")
    QueryHeadCount: int | None = attribute("UINT")
    KeyValueHeadCount: int | None = attribute("UINT")
    MaskType: DML_MULTIHEAD_ATTENTION_MASK_TYPE | int | None = attribute(DML_MULTIHEAD_ATTENTION_MASK_TYPE)


@dataclass
class DML_QUANTIZE_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    QuantizationType: DML_QUANTIZATION_TYPE | int | None = attribute(DML_QUANTIZATION_TYPE)
    QuantizationTensorCount: int | None = attribute("UINT")
    QuantizationTensors: list[DML_TENSOR_DESC] | None = tensor_input(ANY_DATA_TYPE,
                                                                     dimension_counts=ANY_DIMENSION_COUNT,
                                                                     array_count="QuantizationTensorCount",
                                                                     inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_DEQUANTIZE_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    QuantizationType: DML_QUANTIZATION_TYPE | int | None = attribute(DML_QUANTIZATION_TYPE)
    QuantizationTensorCount: int | None = attribute("UINT")
    QuantizationTensors: list[DML_TENSOR_DESC] | None = tensor_input(ANY_DATA_TYPE,
                                                                     dimension_counts=ANY_DIMENSION_COUNT,
                                                                     array_count="QuantizationTensorCount",
                                                                     inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)


@dataclass
class DML_RESAMPLE3_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    InterpolationMode: DML_INTERPOLATION_MODE | int | None = attribute(DML_INTERPOLATION_MODE)
    RoundingDirection: DML_AXIS_DIRECTION | int | None = attribute(DML_AXIS_DIRECTION)
    DimensionCount: int | None = attribute("UINT")
    Scales: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    InputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    OutputPixelOffsets: list[float] | None = attribute("FLOAT_ARRAY", array_count="DimensionCount")
    Antialiased: bool | None = attribute("BOOL")


@dataclass
class DML_FOLD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    WindowSizes: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")


@dataclass
class DML_UNFOLD_OPERATOR_DESC(GeneratedDesc):
    InputTensor: DML_TENSOR_DESC | None = tensor_input(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT,
                                                       inplace_eligible=False)
    OutputTensor: DML_TENSOR_DESC | None = tensor_output(ANY_DATA_TYPE, dimension_counts=ANY_DIMENSION_COUNT)
    DimensionCount: int | None = attribute("UINT")
    WindowSizes: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Strides: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    Dilations: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    StartPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")
    EndPadding: list[int] | None = attribute("UINT_ARRAY", array_count="DimensionCount")

DML_SCATTER_ELEMENTS_OPERATOR_DESC = DML_SCATTER_OPERATOR_DESC


OPERATOR_SCHEMAS: tuple[OperatorSchema, ...] = (
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_IDENTITY, DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ABS, DML_ELEMENT_WISE_ABS_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ACOS, DML_ELEMENT_WISE_ACOS_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ADD, DML_ELEMENT_WISE_ADD_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ASIN, DML_ELEMENT_WISE_ASIN_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ATAN, DML_ELEMENT_WISE_ATAN_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_CEIL, DML_ELEMENT_WISE_CEIL_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_CLIP, DML_ELEMENT_WISE_CLIP_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_COS, DML_ELEMENT_WISE_COS_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_DIVIDE, DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_EXP, DML_ELEMENT_WISE_EXP_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_FLOOR, DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOG, DML_ELEMENT_WISE_LOG_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOGICAL_AND, DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOGICAL_EQUALS, DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC, 0x1000,
                   False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN,
                   DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN, DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC,
                   0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOGICAL_NOT, DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOGICAL_OR, DML_ELEMENT_WISE_LOGICAL_OR_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOGICAL_XOR, DML_ELEMENT_WISE_LOGICAL_XOR_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_MAX, DML_ELEMENT_WISE_MAX_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_MEAN, DML_ELEMENT_WISE_MEAN_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_MIN, DML_ELEMENT_WISE_MIN_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_MULTIPLY, DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_POW, DML_ELEMENT_WISE_POW_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_CONSTANT_POW, DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC, 0x1000,
                   True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_RECIP, DML_ELEMENT_WISE_RECIP_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_SIN, DML_ELEMENT_WISE_SIN_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_SQRT, DML_ELEMENT_WISE_SQRT_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_SUBTRACT, DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_TAN, DML_ELEMENT_WISE_TAN_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_THRESHOLD, DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_QUANTIZE_LINEAR, DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC,
                   0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_DEQUANTIZE_LINEAR, DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC,
                   0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_ELU, DML_ACTIVATION_ELU_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_HARDMAX, DML_ACTIVATION_HARDMAX_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_HARD_SIGMOID, DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_IDENTITY, DML_ACTIVATION_IDENTITY_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_LEAKY_RELU, DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_LINEAR, DML_ACTIVATION_LINEAR_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_LOG_SOFTMAX, DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_PARAMETERIZED_RELU, DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC,
                   0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS, DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC,
                   0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_RELU, DML_ACTIVATION_RELU_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_SCALED_ELU, DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_SCALED_TANH, DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_SIGMOID, DML_ACTIVATION_SIGMOID_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_SOFTMAX, DML_ACTIVATION_SOFTMAX_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_SOFTPLUS, DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_SOFTSIGN, DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_TANH, DML_ACTIVATION_TANH_OPERATOR_DESC, 0x1000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU, DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC, 0x1000,
                   True),
    OperatorSchema(_OP.DML_OPERATOR_CONVOLUTION, DML_CONVOLUTION_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_GEMM, DML_GEMM_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_REDUCE, DML_REDUCE_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_AVERAGE_POOLING, DML_AVERAGE_POOLING_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_LP_POOLING, DML_LP_POOLING_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_MAX_POOLING, DML_MAX_POOLING_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_ROI_POOLING, DML_ROI_POOLING_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_SLICE, DML_SLICE_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_CAST, DML_CAST_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_SPLIT, DML_SPLIT_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_JOIN, DML_JOIN_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_PADDING, DML_PADDING_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_VALUE_SCALE_2D, DML_VALUE_SCALE_2D_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_UPSAMPLE_2D, DML_UPSAMPLE_2D_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_GATHER, DML_GATHER_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_SPACE_TO_DEPTH, DML_SPACE_TO_DEPTH_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_DEPTH_TO_SPACE, DML_DEPTH_TO_SPACE_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_TILE, DML_TILE_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_TOP_K, DML_TOP_K_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_BATCH_NORMALIZATION, DML_BATCH_NORMALIZATION_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION, DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC, 0x1000,
                   False),
    OperatorSchema(_OP.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION, DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC,
                   0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_LP_NORMALIZATION, DML_LP_NORMALIZATION_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_RNN, DML_RNN_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_LSTM, DML_LSTM_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_GRU, DML_GRU_OPERATOR_DESC, 0x1000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_SIGN, DML_ELEMENT_WISE_SIGN_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_IS_NAN, DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC, 0x2000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ERF, DML_ELEMENT_WISE_ERF_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_SINH, DML_ELEMENT_WISE_SINH_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_COSH, DML_ELEMENT_WISE_COSH_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_TANH, DML_ELEMENT_WISE_TANH_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ASINH, DML_ELEMENT_WISE_ASINH_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ACOSH, DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ATANH, DML_ELEMENT_WISE_ATANH_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_IF, DML_ELEMENT_WISE_IF_OPERATOR_DESC, 0x2000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ADD1, DML_ELEMENT_WISE_ADD1_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_SHRINK, DML_ACTIVATION_SHRINK_OPERATOR_DESC, 0x2000, True),
    OperatorSchema(_OP.DML_OPERATOR_MAX_POOLING1, DML_MAX_POOLING1_OPERATOR_DESC, 0x2000, False),
    OperatorSchema(_OP.DML_OPERATOR_MAX_UNPOOLING, DML_MAX_UNPOOLING_OPERATOR_DESC, 0x2000, False),
    OperatorSchema(_OP.DML_OPERATOR_DIAGONAL_MATRIX, DML_DIAGONAL_MATRIX_OPERATOR_DESC, 0x2000, False),
    OperatorSchema(_OP.DML_OPERATOR_SCATTER, DML_SCATTER_OPERATOR_DESC, 0x2000, False),
    OperatorSchema(_OP.DML_OPERATOR_ONE_HOT, DML_ONE_HOT_OPERATOR_DESC, 0x2000, False),
    OperatorSchema(_OP.DML_OPERATOR_RESAMPLE, DML_RESAMPLE_OPERATOR_DESC, 0x2000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_LEFT, DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC, 0x2100,
                   True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_BIT_SHIFT_RIGHT, DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC,
                   0x2100, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ROUND, DML_ELEMENT_WISE_ROUND_OPERATOR_DESC, 0x2100, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_IS_INFINITY, DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC, 0x2100, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_MODULUS_TRUNCATE, DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC,
                   0x2100, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_MODULUS_FLOOR, DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC, 0x2100,
                   True),
    OperatorSchema(_OP.DML_OPERATOR_FILL_VALUE_CONSTANT, DML_FILL_VALUE_CONSTANT_OPERATOR_DESC, 0x2100, True),
    OperatorSchema(_OP.DML_OPERATOR_FILL_VALUE_SEQUENCE, DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC, 0x2100, True),
    OperatorSchema(_OP.DML_OPERATOR_CUMULATIVE_SUMMATION, DML_CUMULATIVE_SUMMATION_OPERATOR_DESC, 0x2100, True),
    OperatorSchema(_OP.DML_OPERATOR_REVERSE_SUBSEQUENCES, DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_GATHER_ELEMENTS, DML_GATHER_ELEMENTS_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_GATHER_ND, DML_GATHER_ND_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_SCATTER_ND, DML_SCATTER_ND_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_MAX_POOLING2, DML_MAX_POOLING2_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_SLICE1, DML_SLICE1_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_TOP_K1, DML_TOP_K1_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_DEPTH_TO_SPACE1, DML_DEPTH_TO_SPACE1_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_SPACE_TO_DEPTH1, DML_SPACE_TO_DEPTH1_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION1, DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC,
                   0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_RESAMPLE1, DML_RESAMPLE1_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_MATRIX_MULTIPLY_INTEGER, DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_QUANTIZED_LINEAR_MATRIX_MULTIPLY,
                   DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_CONVOLUTION_INTEGER, DML_CONVOLUTION_INTEGER_OPERATOR_DESC, 0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_QUANTIZED_LINEAR_CONVOLUTION, DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC,
                   0x2100, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_BIT_AND, DML_ELEMENT_WISE_BIT_AND_OPERATOR_DESC, 0x3000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_BIT_OR, DML_ELEMENT_WISE_BIT_OR_OPERATOR_DESC, 0x3000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_BIT_XOR, DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC, 0x3000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_BIT_NOT, DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC, 0x3000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_BIT_COUNT, DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL,
                   DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL,
                   DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_CELU, DML_ACTIVATION_CELU_OPERATOR_DESC, 0x3000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_RELU_GRAD, DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_AVERAGE_POOLING_GRAD, DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_MAX_POOLING_GRAD, DML_MAX_POOLING_GRAD_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_RANDOM_GENERATOR, DML_RANDOM_GENERATOR_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_NONZERO_COORDINATES, DML_NONZERO_COORDINATES_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_RESAMPLE_GRAD, DML_RESAMPLE_GRAD_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_SLICE_GRAD, DML_SLICE_GRAD_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_ADAM_OPTIMIZER, DML_ADAM_OPTIMIZER_OPERATOR_DESC, 0x3000, True),
    OperatorSchema(_OP.DML_OPERATOR_ARGMIN, DML_ARGMIN_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_ARGMAX, DML_ARGMAX_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_ROI_ALIGN, DML_ROI_ALIGN_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_GATHER_ND1, DML_GATHER_ND1_OPERATOR_DESC, 0x3000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_ATAN_YX, DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC, 0x3100, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD, DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC, 0x3100, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_DIFFERENCE_SQUARE, DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC,
                   0x3100, True),
    OperatorSchema(_OP.DML_OPERATOR_LOCAL_RESPONSE_NORMALIZATION_GRAD,
                   DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC, 0x3100, False),
    OperatorSchema(_OP.DML_OPERATOR_CUMULATIVE_PRODUCT, DML_CUMULATIVE_PRODUCT_OPERATOR_DESC, 0x3100, True),
    OperatorSchema(_OP.DML_OPERATOR_BATCH_NORMALIZATION_GRAD, DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC, 0x3100,
                   False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_QUANTIZED_LINEAR_ADD,
                   DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC, 0x4000, False),
    OperatorSchema(_OP.DML_OPERATOR_DYNAMIC_QUANTIZE_LINEAR, DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC, 0x4000, False),
    OperatorSchema(_OP.DML_OPERATOR_ROI_ALIGN1, DML_ROI_ALIGN1_OPERATOR_DESC, 0x4000, False),
    OperatorSchema(_OP.DML_OPERATOR_ROI_ALIGN_GRAD, DML_ROI_ALIGN_GRAD_OPERATOR_DESC, 0x4100, False),
    OperatorSchema(_OP.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING, DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC,
                   0x4100, False),
    OperatorSchema(_OP.DML_OPERATOR_BATCH_NORMALIZATION_TRAINING_GRAD,
                   DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC, 0x4100, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_CLIP1, DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC, 0x5000, True),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_CLIP_GRAD1, DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC, 0x5000, True),
    OperatorSchema(_OP.DML_OPERATOR_PADDING1, DML_PADDING1_OPERATOR_DESC, 0x5000, False),
    OperatorSchema(_OP.DML_OPERATOR_ELEMENT_WISE_NEGATE, DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC, 0x5000, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_GELU, DML_ACTIVATION_GELU_OPERATOR_DESC, 0x5100, True),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_SOFTMAX1, DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC, 0x5100, False),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_LOG_SOFTMAX1, DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC, 0x5100, False),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_HARDMAX1, DML_ACTIVATION_HARDMAX1_OPERATOR_DESC, 0x5100, False),
    OperatorSchema(_OP.DML_OPERATOR_RESAMPLE2, DML_RESAMPLE2_OPERATOR_DESC, 0x5100, False),
    OperatorSchema(_OP.DML_OPERATOR_RESAMPLE_GRAD1, DML_RESAMPLE_GRAD1_OPERATOR_DESC, 0x5100, False),
    OperatorSchema(_OP.DML_OPERATOR_DIAGONAL_MATRIX1, DML_DIAGONAL_MATRIX1_OPERATOR_DESC, 0x5100, False),
    OperatorSchema(_OP.DML_OPERATOR_MULTIHEAD_ATTENTION, DML_MULTIHEAD_ATTENTION_OPERATOR_DESC, 0x6100, False),
    OperatorSchema(_OP.DML_OPERATOR_LP_POOLING1, DML_LP_POOLING1_OPERATOR_DESC, 0x6200, False),
    OperatorSchema(_OP.DML_OPERATOR_AVERAGE_POOLING1, DML_AVERAGE_POOLING1_OPERATOR_DESC, 0x6200, False),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_SWISH, DML_ACTIVATION_SWISH_OPERATOR_DESC, 0x6200, False),
    OperatorSchema(_OP.DML_OPERATOR_ACTIVATION_HARD_SWISH, DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC, 0x6200, False),
    OperatorSchema(_OP.DML_OPERATOR_QUANTIZED_LINEAR_AVERAGE_POOLING,
                   DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC, 0x6200, False),
    OperatorSchema(_OP.DML_OPERATOR_MATRIX_MULTIPLY_INTEGER_TO_FLOAT,
                   DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC, 0x6200, False),
    OperatorSchema(_OP.DML_OPERATOR_MEAN_VARIANCE_NORMALIZATION2, DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC,
                   0x6300, False),
    OperatorSchema(_OP.DML_OPERATOR_MULTIHEAD_ATTENTION1, DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC, 0x6300, False),
    OperatorSchema(_OP.DML_OPERATOR_QUANTIZE, DML_QUANTIZE_OPERATOR_DESC, 0x6300, False),
    OperatorSchema(_OP.DML_OPERATOR_DEQUANTIZE, DML_DEQUANTIZE_OPERATOR_DESC, 0x6300, False),
    OperatorSchema(_OP.DML_OPERATOR_RESAMPLE3, DML_RESAMPLE3_OPERATOR_DESC, 0x6400, False),
    OperatorSchema(_OP.DML_OPERATOR_FOLD, DML_FOLD_OPERATOR_DESC, 0x6400, False),
    OperatorSchema(_OP.DML_OPERATOR_UNFOLD, DML_UNFOLD_OPERATOR_DESC, 0x6400, False),
)

# Activation operators a FusedActivation / ActivationDescs entry may be (element-wise ones).
FUSED_ACTIVATION_TYPES: frozenset[int] = frozenset({
    _OP.DML_OPERATOR_ACTIVATION_ELU,
    _OP.DML_OPERATOR_ACTIVATION_HARD_SIGMOID,
    _OP.DML_OPERATOR_ACTIVATION_IDENTITY,
    _OP.DML_OPERATOR_ACTIVATION_LEAKY_RELU,
    _OP.DML_OPERATOR_ACTIVATION_LINEAR,
    _OP.DML_OPERATOR_ACTIVATION_PARAMETRIC_SOFTPLUS,
    _OP.DML_OPERATOR_ACTIVATION_RELU,
    _OP.DML_OPERATOR_ACTIVATION_SCALED_ELU,
    _OP.DML_OPERATOR_ACTIVATION_SCALED_TANH,
    _OP.DML_OPERATOR_ACTIVATION_SIGMOID,
    _OP.DML_OPERATOR_ACTIVATION_SOFTPLUS,
    _OP.DML_OPERATOR_ACTIVATION_SOFTSIGN,
    _OP.DML_OPERATOR_ACTIVATION_TANH,
    _OP.DML_OPERATOR_ACTIVATION_THRESHOLDED_RELU,
    _OP.DML_OPERATOR_ACTIVATION_SHRINK,
    _OP.DML_OPERATOR_ACTIVATION_CELU,
    _OP.DML_OPERATOR_ACTIVATION_GELU,
    _OP.DML_OPERATOR_ACTIVATION_SWISH,
    _OP.DML_OPERATOR_ACTIVATION_HARD_SWISH,
})

# The public names (dmlsim re-exports them, keeping its hand-written descs of implemented operators).
__all__ = [
    "DML_ACTIVATION_CELU_OPERATOR_DESC",
    "DML_ACTIVATION_ELU_OPERATOR_DESC",
    "DML_ACTIVATION_GELU_OPERATOR_DESC",
    "DML_ACTIVATION_HARDMAX1_OPERATOR_DESC",
    "DML_ACTIVATION_HARDMAX_OPERATOR_DESC",
    "DML_ACTIVATION_HARD_SIGMOID_OPERATOR_DESC",
    "DML_ACTIVATION_HARD_SWISH_OPERATOR_DESC",
    "DML_ACTIVATION_IDENTITY_OPERATOR_DESC",
    "DML_ACTIVATION_LEAKY_RELU_OPERATOR_DESC",
    "DML_ACTIVATION_LINEAR_OPERATOR_DESC",
    "DML_ACTIVATION_LOG_SOFTMAX1_OPERATOR_DESC",
    "DML_ACTIVATION_LOG_SOFTMAX_OPERATOR_DESC",
    "DML_ACTIVATION_PARAMETERIZED_RELU_OPERATOR_DESC",
    "DML_ACTIVATION_PARAMETRIC_SOFTPLUS_OPERATOR_DESC",
    "DML_ACTIVATION_RELU_GRAD_OPERATOR_DESC",
    "DML_ACTIVATION_RELU_OPERATOR_DESC",
    "DML_ACTIVATION_SCALED_ELU_OPERATOR_DESC",
    "DML_ACTIVATION_SCALED_TANH_OPERATOR_DESC",
    "DML_ACTIVATION_SHRINK_OPERATOR_DESC",
    "DML_ACTIVATION_SIGMOID_OPERATOR_DESC",
    "DML_ACTIVATION_SOFTMAX1_OPERATOR_DESC",
    "DML_ACTIVATION_SOFTMAX_OPERATOR_DESC",
    "DML_ACTIVATION_SOFTPLUS_OPERATOR_DESC",
    "DML_ACTIVATION_SOFTSIGN_OPERATOR_DESC",
    "DML_ACTIVATION_SWISH_OPERATOR_DESC",
    "DML_ACTIVATION_TANH_OPERATOR_DESC",
    "DML_ACTIVATION_THRESHOLDED_RELU_OPERATOR_DESC",
    "DML_ADAM_OPTIMIZER_OPERATOR_DESC",
    "DML_ARGMAX_OPERATOR_DESC",
    "DML_ARGMIN_OPERATOR_DESC",
    "DML_AVERAGE_POOLING1_OPERATOR_DESC",
    "DML_AVERAGE_POOLING_GRAD_OPERATOR_DESC",
    "DML_AVERAGE_POOLING_OPERATOR_DESC",
    "DML_AXIS_DIRECTION",
    "DML_AXIS_DIRECTION_DECREASING",
    "DML_AXIS_DIRECTION_INCREASING",
    "DML_BATCH_NORMALIZATION_GRAD_OPERATOR_DESC",
    "DML_BATCH_NORMALIZATION_OPERATOR_DESC",
    "DML_BATCH_NORMALIZATION_TRAINING_GRAD_OPERATOR_DESC",
    "DML_BATCH_NORMALIZATION_TRAINING_OPERATOR_DESC",
    "DML_CAST_OPERATOR_DESC",
    "DML_CONVOLUTION_DIRECTION",
    "DML_CONVOLUTION_DIRECTION_BACKWARD",
    "DML_CONVOLUTION_DIRECTION_FORWARD",
    "DML_CONVOLUTION_INTEGER_OPERATOR_DESC",
    "DML_CONVOLUTION_MODE",
    "DML_CONVOLUTION_MODE_CONVOLUTION",
    "DML_CONVOLUTION_MODE_CROSS_CORRELATION",
    "DML_CONVOLUTION_OPERATOR_DESC",
    "DML_CUMULATIVE_PRODUCT_OPERATOR_DESC",
    "DML_CUMULATIVE_SUMMATION_OPERATOR_DESC",
    "DML_DEPTH_SPACE_ORDER",
    "DML_DEPTH_SPACE_ORDER_COLUMN_ROW_DEPTH",
    "DML_DEPTH_SPACE_ORDER_DEPTH_COLUMN_ROW",
    "DML_DEPTH_TO_SPACE1_OPERATOR_DESC",
    "DML_DEPTH_TO_SPACE_OPERATOR_DESC",
    "DML_DEQUANTIZE_OPERATOR_DESC",
    "DML_DIAGONAL_MATRIX1_OPERATOR_DESC",
    "DML_DIAGONAL_MATRIX_OPERATOR_DESC",
    "DML_DYNAMIC_QUANTIZE_LINEAR_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ABS_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ACOSH_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ACOS_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ADD1_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ADD_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ASINH_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ASIN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ATANH_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ATAN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ATAN_YX_OPERATOR_DESC",
    "DML_ELEMENT_WISE_BIT_AND_OPERATOR_DESC",
    "DML_ELEMENT_WISE_BIT_COUNT_OPERATOR_DESC",
    "DML_ELEMENT_WISE_BIT_NOT_OPERATOR_DESC",
    "DML_ELEMENT_WISE_BIT_OR_OPERATOR_DESC",
    "DML_ELEMENT_WISE_BIT_SHIFT_LEFT_OPERATOR_DESC",
    "DML_ELEMENT_WISE_BIT_SHIFT_RIGHT_OPERATOR_DESC",
    "DML_ELEMENT_WISE_BIT_XOR_OPERATOR_DESC",
    "DML_ELEMENT_WISE_CEIL_OPERATOR_DESC",
    "DML_ELEMENT_WISE_CLIP1_OPERATOR_DESC",
    "DML_ELEMENT_WISE_CLIP_GRAD1_OPERATOR_DESC",
    "DML_ELEMENT_WISE_CLIP_GRAD_OPERATOR_DESC",
    "DML_ELEMENT_WISE_CLIP_OPERATOR_DESC",
    "DML_ELEMENT_WISE_CONSTANT_POW_OPERATOR_DESC",
    "DML_ELEMENT_WISE_COSH_OPERATOR_DESC",
    "DML_ELEMENT_WISE_COS_OPERATOR_DESC",
    "DML_ELEMENT_WISE_DEQUANTIZE_LINEAR_OPERATOR_DESC",
    "DML_ELEMENT_WISE_DIFFERENCE_SQUARE_OPERATOR_DESC",
    "DML_ELEMENT_WISE_DIVIDE_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ERF_OPERATOR_DESC",
    "DML_ELEMENT_WISE_EXP_OPERATOR_DESC",
    "DML_ELEMENT_WISE_FLOOR_OPERATOR_DESC",
    "DML_ELEMENT_WISE_IDENTITY_OPERATOR_DESC",
    "DML_ELEMENT_WISE_IF_OPERATOR_DESC",
    "DML_ELEMENT_WISE_IS_INFINITY_OPERATOR_DESC",
    "DML_ELEMENT_WISE_IS_NAN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOGICAL_AND_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOGICAL_EQUALS_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOGICAL_GREATER_THAN_OR_EQUAL_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOGICAL_LESS_THAN_OR_EQUAL_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOGICAL_NOT_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOGICAL_OR_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOGICAL_XOR_OPERATOR_DESC",
    "DML_ELEMENT_WISE_LOG_OPERATOR_DESC",
    "DML_ELEMENT_WISE_MAX_OPERATOR_DESC",
    "DML_ELEMENT_WISE_MEAN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_MIN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_MODULUS_FLOOR_OPERATOR_DESC",
    "DML_ELEMENT_WISE_MODULUS_TRUNCATE_OPERATOR_DESC",
    "DML_ELEMENT_WISE_MULTIPLY_OPERATOR_DESC",
    "DML_ELEMENT_WISE_NEGATE_OPERATOR_DESC",
    "DML_ELEMENT_WISE_POW_OPERATOR_DESC",
    "DML_ELEMENT_WISE_QUANTIZED_LINEAR_ADD_OPERATOR_DESC",
    "DML_ELEMENT_WISE_QUANTIZE_LINEAR_OPERATOR_DESC",
    "DML_ELEMENT_WISE_RECIP_OPERATOR_DESC",
    "DML_ELEMENT_WISE_ROUND_OPERATOR_DESC",
    "DML_ELEMENT_WISE_SIGN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_SINH_OPERATOR_DESC",
    "DML_ELEMENT_WISE_SIN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_SQRT_OPERATOR_DESC",
    "DML_ELEMENT_WISE_SUBTRACT_OPERATOR_DESC",
    "DML_ELEMENT_WISE_TANH_OPERATOR_DESC",
    "DML_ELEMENT_WISE_TAN_OPERATOR_DESC",
    "DML_ELEMENT_WISE_THRESHOLD_OPERATOR_DESC",
    "DML_FILL_VALUE_CONSTANT_OPERATOR_DESC",
    "DML_FILL_VALUE_SEQUENCE_OPERATOR_DESC",
    "DML_FOLD_OPERATOR_DESC",
    "DML_GATHER_ELEMENTS_OPERATOR_DESC",
    "DML_GATHER_ND1_OPERATOR_DESC",
    "DML_GATHER_ND_OPERATOR_DESC",
    "DML_GATHER_OPERATOR_DESC",
    "DML_GEMM_OPERATOR_DESC",
    "DML_GRU_OPERATOR_DESC",
    "DML_INTERPOLATION_MODE",
    "DML_INTERPOLATION_MODE_LINEAR",
    "DML_INTERPOLATION_MODE_NEAREST_NEIGHBOR",
    "DML_IS_INFINITY_MODE",
    "DML_IS_INFINITY_MODE_EITHER",
    "DML_IS_INFINITY_MODE_NEGATIVE",
    "DML_IS_INFINITY_MODE_POSITIVE",
    "DML_JOIN_OPERATOR_DESC",
    "DML_LOCAL_RESPONSE_NORMALIZATION_GRAD_OPERATOR_DESC",
    "DML_LOCAL_RESPONSE_NORMALIZATION_OPERATOR_DESC",
    "DML_LP_NORMALIZATION_OPERATOR_DESC",
    "DML_LP_POOLING1_OPERATOR_DESC",
    "DML_LP_POOLING_OPERATOR_DESC",
    "DML_LSTM_OPERATOR_DESC",
    "DML_MATRIX_MULTIPLY_INTEGER_OPERATOR_DESC",
    "DML_MATRIX_MULTIPLY_INTEGER_TO_FLOAT_OPERATOR_DESC",
    "DML_MATRIX_TRANSFORM",
    "DML_MATRIX_TRANSFORM_NONE",
    "DML_MATRIX_TRANSFORM_TRANSPOSE",
    "DML_MAX_POOLING1_OPERATOR_DESC",
    "DML_MAX_POOLING2_OPERATOR_DESC",
    "DML_MAX_POOLING_GRAD_OPERATOR_DESC",
    "DML_MAX_POOLING_OPERATOR_DESC",
    "DML_MAX_UNPOOLING_OPERATOR_DESC",
    "DML_MEAN_VARIANCE_NORMALIZATION1_OPERATOR_DESC",
    "DML_MEAN_VARIANCE_NORMALIZATION2_OPERATOR_DESC",
    "DML_MEAN_VARIANCE_NORMALIZATION_OPERATOR_DESC",
    "DML_MULTIHEAD_ATTENTION1_OPERATOR_DESC",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_BOOLEAN",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_QUERY_SEQUENCE_LENGTH_START_END",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_END_START",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_KEY_SEQUENCE_LENGTH",
    "DML_MULTIHEAD_ATTENTION_MASK_TYPE_NONE",
    "DML_MULTIHEAD_ATTENTION_OPERATOR_DESC",
    "DML_NONZERO_COORDINATES_OPERATOR_DESC",
    "DML_ONE_HOT_OPERATOR_DESC",
    "DML_PADDING1_OPERATOR_DESC",
    "DML_PADDING_MODE",
    "DML_PADDING_MODE_CONSTANT",
    "DML_PADDING_MODE_EDGE",
    "DML_PADDING_MODE_REFLECTION",
    "DML_PADDING_MODE_SYMMETRIC",
    "DML_PADDING_MODE_WRAP",
    "DML_PADDING_OPERATOR_DESC",
    "DML_QUANTIZATION_TYPE",
    "DML_QUANTIZATION_TYPE_NONE",
    "DML_QUANTIZATION_TYPE_SCALE",
    "DML_QUANTIZATION_TYPE_SCALE_ZERO_POINT",
    "DML_QUANTIZED_LINEAR_AVERAGE_POOLING_OPERATOR_DESC",
    "DML_QUANTIZED_LINEAR_CONVOLUTION_OPERATOR_DESC",
    "DML_QUANTIZED_LINEAR_MATRIX_MULTIPLY_OPERATOR_DESC",
    "DML_QUANTIZE_OPERATOR_DESC",
    "DML_RANDOM_GENERATOR_OPERATOR_DESC",
    "DML_RANDOM_GENERATOR_TYPE",
    "DML_RANDOM_GENERATOR_TYPE_PHILOX_4X32_10",
    "DML_RECURRENT_NETWORK_DIRECTION",
    "DML_RECURRENT_NETWORK_DIRECTION_BACKWARD",
    "DML_RECURRENT_NETWORK_DIRECTION_BIDIRECTIONAL",
    "DML_RECURRENT_NETWORK_DIRECTION_FORWARD",
    "DML_REDUCE_FUNCTION",
    "DML_REDUCE_FUNCTION_ARGMAX",
    "DML_REDUCE_FUNCTION_ARGMIN",
    "DML_REDUCE_FUNCTION_AVERAGE",
    "DML_REDUCE_FUNCTION_L1",
    "DML_REDUCE_FUNCTION_L2",
    "DML_REDUCE_FUNCTION_LOG_SUM",
    "DML_REDUCE_FUNCTION_LOG_SUM_EXP",
    "DML_REDUCE_FUNCTION_MAX",
    "DML_REDUCE_FUNCTION_MIN",
    "DML_REDUCE_FUNCTION_MULTIPLY",
    "DML_REDUCE_FUNCTION_SUM",
    "DML_REDUCE_FUNCTION_SUM_SQUARE",
    "DML_REDUCE_OPERATOR_DESC",
    "DML_RESAMPLE1_OPERATOR_DESC",
    "DML_RESAMPLE2_OPERATOR_DESC",
    "DML_RESAMPLE3_OPERATOR_DESC",
    "DML_RESAMPLE_GRAD1_OPERATOR_DESC",
    "DML_RESAMPLE_GRAD_OPERATOR_DESC",
    "DML_RESAMPLE_OPERATOR_DESC",
    "DML_REVERSE_SUBSEQUENCES_OPERATOR_DESC",
    "DML_RNN_OPERATOR_DESC",
    "DML_ROI_ALIGN1_OPERATOR_DESC",
    "DML_ROI_ALIGN_GRAD_OPERATOR_DESC",
    "DML_ROI_ALIGN_OPERATOR_DESC",
    "DML_ROI_POOLING_OPERATOR_DESC",
    "DML_ROUNDING_MODE",
    "DML_ROUNDING_MODE_HALVES_TO_NEAREST_EVEN",
    "DML_ROUNDING_MODE_TOWARD_INFINITY",
    "DML_ROUNDING_MODE_TOWARD_ZERO",
    "DML_SCATTER_ELEMENTS_OPERATOR_DESC",
    "DML_SCATTER_ND_OPERATOR_DESC",
    "DML_SCATTER_OPERATOR_DESC",
    "DML_SLICE1_OPERATOR_DESC",
    "DML_SLICE_GRAD_OPERATOR_DESC",
    "DML_SLICE_OPERATOR_DESC",
    "DML_SPACE_TO_DEPTH1_OPERATOR_DESC",
    "DML_SPACE_TO_DEPTH_OPERATOR_DESC",
    "DML_SPLIT_OPERATOR_DESC",
    "DML_TILE_OPERATOR_DESC",
    "DML_TOP_K1_OPERATOR_DESC",
    "DML_TOP_K_OPERATOR_DESC",
    "DML_UNFOLD_OPERATOR_DESC",
    "DML_UPSAMPLE_2D_OPERATOR_DESC",
    "DML_VALUE_SCALE_2D_OPERATOR_DESC",
]
