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


def test_a_training_checkpoint_saves_nested_state_and_optimizer_state_stays_torchs():
    from tests.migrate.convert.helpers import check
    check("""\
        import torch
        net = torch.nn.Linear(2, 1)
        opt = torch.optim.AdamW(net.parameters(), lr=0.1)
        sched = torch.optim.lr_scheduler.StepLR(opt, 2)
        torch.save(net.state_dict(), "w.pt")
        torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": 3}, p)
        ck = torch.load(p)
        net.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        self.optimizer.load_state_dict(ck["opt"])
        """, """\
        net = nn.Dense(2, 1, has_bias=True, weight_init=HeUniform(negative_slope=math.sqrt(5)), bias_init=Uniform(scale=1 / math.sqrt(2)))
        opt = ms.experimental.optim.AdamW(net.trainable_params(), lr=0.1)
        sched = ms.experimental.optim.lr_scheduler.StepLR(opt, 2)
        ms.save_checkpoint(net, "w.pt")
        ms.hub.save({"model": net.parameters_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": 3}, p)
        ck = ms.hub.load(p)
        ms.hub.load_state_dict(net, ck["model"])
        opt.load_state_dict(ck["opt"])
        sched.load_state_dict(ck["sched"])
        self.optimizer.load_state_dict(ck["opt"])
        """)  # noqa: E501


def test_a_tensor_dataset_of_starred_tensors_is_a_numpy_slices_dataset():
    from migrate import convert_source
    src = textwrap.dedent("""\
        import numpy as np
        import torch
        from torch.utils.data import DataLoader, TensorDataset

        def make_data(n):
            rng = np.random.default_rng(0)
            return torch.tensor(rng.standard_normal((n, 3)).astype(np.float32)), torch.arange(n), torch.ones(n)

        rows = [tuple(float(v.sum()) for v in batch) for batch in DataLoader(TensorDataset(*make_data(7)), batch_size=3)]
        """)  # noqa: E501
    res = convert_source(src)
    assert "NumpySlicesDataset(tuple(t.asnumpy() for t in make_data(7)), shuffle=False)" in res.code, res.code
    assert "# migrate" not in res.code and convert_source(res.code).code == res.code
    tns, cns = {}, {}
    exec(src, tns)
    exec(res.code, cns)
    np.testing.assert_allclose(cns["rows"], tns["rows"], rtol=1e-6)
