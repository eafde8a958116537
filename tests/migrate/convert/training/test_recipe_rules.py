"""Converter rules of training recipes, each against torch: the square causal mask on a Transformer
subclass and as nn.Transformer's static method."""
import textwrap

import numpy as np

from tests.migrate.convert.helpers import both_sides

MASKS = textwrap.dedent("""\
    import torch
    import torch.nn as nn

    class Causal(nn.Transformer):
        def mask(self, n):
            return self.generate_square_subsequent_mask(n)

    def static(n):
        return nn.Transformer.generate_square_subsequent_mask(n, dtype=torch.float64)

    model = Causal(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16)
    """)


def test_square_subsequent_masks_are_torchs():
    tns, cns = both_sides(MASKS, "ops.triu(ops.full((n,) * 2, float('-inf')), 1)")
    for n in (1, 3, 6):
        np.testing.assert_array_equal(cns["model"].mask(n).asnumpy(), tns["model"].mask(n).numpy())
        got, want = cns["static"](n), tns["static"](n)
        assert str(got.dtype) == "Float64"
        np.testing.assert_array_equal(got.asnumpy(), want.numpy())
