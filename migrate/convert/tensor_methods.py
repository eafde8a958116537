"""The names torch defines both as a function ``torch.op(input, ...)`` and as the tensor method
``Tensor.op(...)`` that torch documents as that function with the tensor as ``input`` (torch
2.13). The converter translates such a method through the function's table entry when the
tables map only the function (``alphas.cumprod(dim=0)`` as ``torch.cumprod(alphas, dim=0)``);
tests/migrate/convert/test_tensor_methods.py holds the list to torch.
"""

FUNCTION_METHODS = frozenset({
    'abs', 'abs_', 'absolute', 'acos', 'acos_', 'acosh', 'acosh_', 'add', 'addbmm', 'addcdiv', 'addcmul',
    'addmm', 'addmv', 'addmv_', 'addr', 'adjoint', 'all', 'allclose', 'amax', 'amin', 'aminmax', 'angle', 'any',
    'arccos', 'arccos_', 'arccosh', 'arccosh_', 'arcsin', 'arcsin_', 'arcsinh', 'arcsinh_', 'arctan', 'arctan2',
    'arctan_', 'arctanh', 'arctanh_', 'argmax', 'argmin', 'argsort', 'argwhere', 'as_strided', 'as_strided_',
    'as_strided_scatter', 'asin', 'asin_', 'asinh', 'asinh_', 'atan', 'atan2', 'atan_', 'atanh', 'atanh_',
    'baddbmm', 'bernoulli', 'bincount', 'bitwise_and', 'bitwise_left_shift', 'bitwise_not', 'bitwise_or',
    'bitwise_right_shift', 'bitwise_xor', 'bmm', 'broadcast_to', 'ceil', 'ceil_', 'cholesky',
    'cholesky_inverse', 'cholesky_solve', 'chunk', 'clamp', 'clamp_', 'clamp_max', 'clamp_max_', 'clamp_min',
    'clamp_min_', 'clip', 'clip_', 'clone', 'conj', 'conj_physical', 'conj_physical_', 'copysign', 'corrcoef',
    'cos', 'cos_', 'cosh', 'cosh_', 'count_nonzero', 'cov', 'cross', 'cummax', 'cummin', 'cumprod', 'cumsum',
    'deg2rad', 'deg2rad_', 'dequantize', 'det', 'detach', 'detach_', 'diag', 'diag_embed', 'diagflat',
    'diagonal', 'diagonal_scatter', 'diff', 'digamma', 'dist', 'div', 'divide', 'dot', 'dsplit', 'eig', 'eq',
    'equal', 'erf', 'erf_', 'erfc', 'erfc_', 'erfinv', 'exp', 'exp2', 'exp2_', 'exp_', 'expm1', 'expm1_',
    'fill_', 'fix', 'fix_', 'flatten', 'flip', 'fliplr', 'flipud', 'float_power', 'floor', 'floor_',
    'floor_divide', 'fmax', 'fmin', 'fmod', 'frac', 'frac_', 'frexp', 'gather', 'gcd', 'gcd_', 'ge', 'geqrf',
    'ger', 'get_device', 'greater', 'greater_equal', 'gt', 'hardshrink', 'hash_tensor', 'heaviside', 'histc',
    'histogram', 'hsplit', 'hypot', 'i0', 'i0_', 'igamma', 'igammac', 'index_add', 'index_copy', 'index_fill',
    'index_put', 'index_put_', 'index_reduce', 'index_select', 'inner', 'int_repr', 'inverse', 'is_complex',
    'is_conj', 'is_distributed', 'is_floating_point', 'is_inference', 'is_neg', 'is_nonzero', 'is_same_size',
    'is_signed', 'isclose', 'isfinite', 'isinf', 'isnan', 'isneginf', 'isposinf', 'isreal', 'istft', 'kron',
    'kthvalue', 'lcm', 'lcm_', 'ldexp', 'ldexp_', 'le', 'lerp', 'less', 'less_equal', 'lgamma', 'log', 'log10',
    'log10_', 'log1p', 'log1p_', 'log2', 'log2_', 'log_', 'log_softmax', 'logaddexp', 'logaddexp2',
    'logcumsumexp', 'logdet', 'logical_and', 'logical_not', 'logical_or', 'logical_xor', 'logit', 'logit_',
    'logsumexp', 'lstsq', 'lt', 'lu', 'lu_solve', 'masked_fill', 'masked_scatter', 'masked_select', 'matmul',
    'matrix_exp', 'matrix_power', 'max', 'maximum', 'mean', 'median', 'min', 'minimum', 'mm', 'mode',
    'moveaxis', 'movedim', 'msort', 'mul', 'multinomial', 'multiply', 'mv', 'mvlgamma', 'nan_to_num',
    'nan_to_num_', 'nanmean', 'nanmedian', 'nanquantile', 'nansum', 'narrow', 'narrow_copy', 'ne', 'neg',
    'neg_', 'negative', 'negative_', 'nextafter', 'nonzero', 'nonzero_static', 'norm', 'not_equal', 'numel',
    'orgqr', 'ormqr', 'outer', 'permute', 'pinverse', 'polygamma', 'positive', 'pow', 'prelu', 'prod', 'put',
    'q_per_channel_axis', 'q_per_channel_scales', 'q_per_channel_zero_points', 'q_scale', 'q_zero_point', 'qr',
    'quantile', 'rad2deg', 'rad2deg_', 'ravel', 'reciprocal', 'reciprocal_', 'relu', 'relu_', 'remainder',
    'renorm', 'repeat_interleave', 'reshape', 'resize_as_', 'resize_as_sparse_', 'resolve_conj', 'resolve_neg',
    'roll', 'rot90', 'round', 'round_', 'rsqrt', 'rsqrt_', 'scatter', 'scatter_add', 'scatter_reduce', 'select',
    'select_scatter', 'sgn', 'sigmoid', 'sigmoid_', 'sign', 'signbit', 'sin', 'sin_', 'sinc', 'sinc_', 'sinh',
    'sinh_', 'slice_inverse', 'slice_scatter', 'slogdet', 'smm', 'softmax', 'solve', 'sort', 'split',
    'split_with_sizes', 'sqrt', 'sqrt_', 'square', 'square_', 'squeeze', 'sspaddmm', 'std', 'stft', 'sub',
    'subtract', 'sum', 'svd', 'swapaxes', 'swapdims', 'symeig', 't', 'take', 'take_along_dim', 'tan', 'tan_',
    'tanh', 'tanh_', 'tensor_split', 'tile', 'topk', 'trace', 'transpose', 'triangular_solve', 'tril', 'triu',
    'true_divide', 'trunc', 'trunc_', 'unbind', 'unflatten', 'unique', 'unique_consecutive', 'unsafe_chunk',
    'unsafe_split', 'unsafe_split_with_sizes', 'unsqueeze', 'var', 'vdot', 'vsplit', 'where', 'xlogy', 'xlogy_',
    'zero_'
})
