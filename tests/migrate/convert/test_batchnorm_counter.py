"""torch's BatchNorm step counter (num_batches_tracked): the torch-signature BatchNorm classes
keep it (torch_num_batches_tracked) and advance it in each training call; a subclass that reads
and updates self.num_batches_tracked (timm's BatchNormAct2d, a copy of torch's forward) converts
without a marker and keeps torch's counter and running statistics."""
import numpy as np
import torch

import ms_core as ms
from migrate import convert_source

SRC = """\
import torch
import torch.nn as nn
import torch.nn.functional as F


class BatchNormAct(nn.BatchNorm2d):
    def forward(self, x):
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            if self.num_batches_tracked is not None:
                self.num_batches_tracked.add_(1)
                if self.momentum is None:
                    factor = 1.0 / float(self.num_batches_tracked)
                else:
                    factor = self.momentum
        x = F.batch_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                         self.training, factor, self.eps)
        return F.relu(x)


class Scaled(nn.BatchNorm2d):
    def forward(self, x):
        return super().forward(x) * 2
"""


def test_counter_reads_and_updates_convert_without_a_marker():
    out = convert_source(SRC).code
    assert "# migrate:" not in out, out
    assert "self.torch_num_batches_tracked.copy_(self.torch_num_batches_tracked.copy().add(1))" in out
    assert "1.0 / float(self.torch_num_batches_tracked)" in out


def test_counter_and_running_statistics_follow_torch_in_training():
    out = convert_source(SRC).code
    t_ns, m_ns = {}, {}
    exec(compile(SRC, "torch_bn", "exec"), t_ns)
    exec(compile(out, "ms_bn", "exec"), m_ns)
    rs = np.random.RandomState(0)
    for name in ("BatchNormAct", "Scaled"):
        t, m = t_ns[name](3, momentum=0.3), m_ns[name](3, momentum=0.3)
        t.train()
        m.set_train(True)
        for _ in range(3):
            x = rs.randn(4, 3, 5, 5).astype(np.float32)
            np.testing.assert_allclose(m(ms.Tensor(x)).asnumpy(), t(torch.tensor(x)).detach().numpy(),
                                       rtol=1e-5, atol=1e-5)
        assert int(m.torch_num_batches_tracked) == int(t.num_batches_tracked) == 3
        np.testing.assert_allclose(m.moving_mean.asnumpy(), t.running_mean.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(m.moving_variance.asnumpy(), t.running_var.numpy(), rtol=1e-5, atol=1e-6)
        m.set_train(False)
        m(ms.Tensor(x))
        assert int(m.torch_num_batches_tracked) == 3  # inference calls do not count


def test_no_counter_without_running_statistics():
    out = convert_source(SRC).code
    m_ns = {}
    exec(compile(out, "ms_bn2", "exec"), m_ns)
    m = m_ns["Scaled"](3, track_running_stats=False)
    m.set_train(True)
    m(ms.Tensor(np.ones((2, 3, 2, 2), np.float32)))
    assert m.torch_num_batches_tracked is None
