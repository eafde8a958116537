"""Proofs of mappings/tensor.toml (torch.Tensor methods): see tests/mappings/proof.py.

In-place methods run on `(lambda z: z.op_(...))(x * 1)`: torch refuses an in-place update of a
leaf that requires grad, and `z` (a name) is the receiver form the conversion writes back into
with copy_ (`z.copy_(z.copy().op(...))`); the value and the gradients reaching x must be torch's.
"""
import pytest

from tests.mappings.proof import Expr, Marked, ProvenBy, case_id, run

pytest.importorskip("torch")

I32 = "MindSpore 2.10's indices are Int32 (torch: Int64)"


def inplace(api, call, *, inputs="x", grad=True, **kw):
    """An in-place method on a fresh tensor named z (`call` is written on z)."""
    first = inputs.split(",")[0].strip()
    return Expr(api, f"(lambda z: z.{call})({first} * 1)", grad=grad, **kw)


CASES = [
    # shapes and views
    Expr("Tensor.view", "x.view(6, 4)"), Expr("Tensor.view", "x.view(-1)"),
    Expr("Tensor.view_as", "x.view_as(y.transpose(0, 2))"),
    Expr("Tensor.reshape", "x.reshape(6, 4)"), Expr("Tensor.reshape", "x.reshape((4, -1))"),
    Expr("Tensor.reshape_as", "x.reshape_as(m.reshape(4, 3).repeat(2, 1))"),
    Expr("Tensor.permute", "x.permute(2, 0, 1)"), Expr("Tensor.transpose", "x.transpose(0, 1)"),
    Expr("Tensor.transpose", "m.transpose(0, 1)"), Expr("Tensor.t", "m.t()"),
    Expr("Tensor.flatten", "x.flatten()"), Expr("Tensor.flatten", "x.flatten(1)"),
    Expr("Tensor.squeeze", "x[:, :1].squeeze(1)"), Expr("Tensor.squeeze", "x.squeeze(1)"),
    Expr("Tensor.unsqueeze", "x.unsqueeze(1)"), Expr("Tensor.expand", "x[:, :1].expand(2, 3, 4)"),
    Expr("Tensor.expand", "x[:, :1].expand(-1, 3, -1)"), Expr("Tensor.expand_as", "x[:, :1].expand_as(x)"),
    Expr("Tensor.repeat", "x.repeat(1, 2, 1)"), Expr("Tensor.repeat_interleave", "x.repeat_interleave(2, dim=1)"),
    Expr("Tensor.chunk", "x.chunk(2, dim=2)"), Expr("Tensor.split", "x.split(2, dim=2)"),
    Expr("Tensor.split", "x.split([1, 2], 1)"), Expr("Tensor.unbind", "x.unbind(1)"),
    Expr("Tensor.narrow", "x.narrow(1, 1, 2)"), Expr("Tensor.select", "x.select(1, 0)"),
    Expr("Tensor.select", "x.select(-1, 2)"), Expr("Tensor.select", "x.select(0, -1)"),
    Expr("Tensor.movedim", "x.movedim(0, 2)"), Expr("Tensor.moveaxis", "x.moveaxis(2, 0)"),
    Expr("Tensor.ravel", "x.ravel()"), Expr("Tensor.flip", "x.flip(1)"), Expr("Tensor.flip", "x.flip(0, 2)"),
    Expr("Tensor.flip", "x.flip([0, 2])"), Expr("Tensor.roll", "x.roll(1, 2)"),
    Expr("Tensor.diagonal", "x.diagonal(0, 1, 2)"), Expr("Tensor.diagonal", "sq.diagonal(offset=1)"),
    Expr("Tensor.diagonal", "x.diagonal(dim1=1, dim2=2)"), Expr("Tensor.diff", "x.diff(dim=1)"),
    Expr("Tensor.diff", "x.diff()"),
    Expr("Tensor.contiguous", "x.contiguous()"), Expr("Tensor.clone", "x.clone()"),
    Expr("Tensor.detach", "x.detach() * y", inputs=("x", "y")),
    Expr("Tensor.cpu", "x.cpu()"), ProvenBy("Tensor.cuda", "tests/migrate/convert/test_handlers.py::test_device_code_removed"), Expr("Tensor.to_dense", "x.to_dense()"),
    ProvenBy("Tensor.pin_memory", "tests/migrate/convert/test_tensor_methods.py::test_memory_and_device_methods_are_dropped"), Expr("Tensor.as_subclass", "x.as_subclass(torch.Tensor)"),
    Expr("Tensor.to", "x.to('cpu')"), Expr("Tensor.to", "x.to(torch.float64)"),
    Expr("Tensor.size", "x.size()", grad=False), Expr("Tensor.size", "x.size(1) * x", inputs=("x",)),
    Expr("Tensor.dim", "x.dim()", grad=False), Expr("Tensor.ndimension", "x.ndimension()", grad=False),
    Expr("Tensor.numel", "x.numel()", grad=False), Expr("Tensor.nelement", "x.nelement()", grad=False),
    Expr("Tensor.element_size", "x.element_size()", grad=False),
    Expr("Tensor.item", "x[0, 1, 2].item()", grad=False), Expr("Tensor.tolist", "x.tolist()", grad=False),
    Expr("Tensor.numpy", "x.detach().numpy()", grad=False),
    Expr("Tensor.is_floating_point", "x.is_floating_point()", grad=False),
    Expr("Tensor.is_contiguous", "x.is_contiguous()", grad=False),
    # dtypes
    Expr("Tensor.float", "n.float()", grad=False), Expr("Tensor.double", "x.double()"),
    Expr("Tensor.half", "x.half()", grad=False, rtol=1e-3), Expr("Tensor.long", "x.long()", grad=False),
    Expr("Tensor.int", "x.int()", grad=False), Expr("Tensor.bool", "x.bool()", grad=False),
    Expr("Tensor.byte", "idx.byte()", grad=False), Expr("Tensor.short", "n.short()", grad=False),
    Expr("Tensor.type", "x.type(torch.float64)"), Expr("Tensor.type", "n.type('torch.FloatTensor')", grad=False),
    Expr("Tensor.type_as", "n.type_as(x)", grad=False),
    # reductions
    Expr("Tensor.sum", "x.sum()"), Expr("Tensor.sum", "x.sum(dim=1, keepdim=True)"),
    Expr("Tensor.mean", "x.mean(dim=(0, 2))"), Expr("Tensor.prod", "pos.prod(1)"),
    Expr("Tensor.max", "x.max()"), Expr("Tensor.max", "x.max(1)[0]"), Expr("Tensor.max", "x.max(x.flip(0))"),
    Expr("Tensor.min", "x.min(dim=2, keepdim=True)[0]"), Expr("Tensor.amax", "x.amax(dim=1, keepdim=True)"),
    Expr("Tensor.amin", "x.amin((0, 2))"), Expr("Tensor.argmax", "x.argmax(dim=1)", grad=False),
    Expr("Tensor.argmin", "x.argmin(1)", grad=False, dtype="int32", why=I32),
    Expr("Tensor.std", "x.std()"), Expr("Tensor.std", "x.std(1, keepdim=True)"),
    Expr("Tensor.std", "x.std(dim=2, unbiased=False)"), Expr("Tensor.std", "x.std(False)"),
    Expr("Tensor.var", "x.var(1)"), Expr("Tensor.var", "x.var(dim=(0, 1), correction=0)"),
    Expr("Tensor.logsumexp", "x.logsumexp(1)"), Expr("Tensor.norm", "x.norm(dim=1)"),
    Expr("Tensor.norm", "x.norm(p=2, dim=2, keepdim=True)"), Expr("Tensor.cumsum", "x.cumsum(1)"),
    Expr("Tensor.any", "mask.any()", grad=False), Expr("Tensor.any", "mask.any(dim=1, keepdim=True)", grad=False),
    Expr("Tensor.all", "mask.all(2)", grad=False), Expr("Tensor.trace", "sq.trace()"),
    Expr("Tensor.sort", "x.sort(dim=1, descending=True)[0]"),
    Expr("Tensor.argsort", "x.argsort(1)", grad=False, dtype="int32", why=I32),
    Expr("Tensor.topk", "x.topk(2, dim=1)[0]"),
    Expr("Tensor.unique", "idx.unique()", grad=False),
    Expr("Tensor.bincount", "t.bincount()", grad=False, dtype="float32",
                                                      why="MindSpore 2.10 counts in Float32"), Expr("Tensor.nonzero", "mask.nonzero()", grad=False),
    # elementwise
    Expr("Tensor.add", "x.add(y)"), Expr("Tensor.add", "x.add(y, alpha=2)"), Expr("Tensor.sub", "x.sub(y, alpha=0.5)"),
    Expr("Tensor.mul", "x.mul(y)"), Expr("Tensor.div", "x.div(pos)"),
    Expr("Tensor.div", "x.div(pos, rounding_mode='floor')", grad=False),
    Expr("Tensor.pow", "pos.pow(x)"), Expr("Tensor.pow", "x.pow(2)"), Expr("Tensor.sqrt", "pos.sqrt()"),
    Expr("Tensor.rsqrt", "pos.rsqrt()"), Expr("Tensor.abs", "x.abs()"), Expr("Tensor.absolute", "x.absolute()"),
    Expr("Tensor.exp", "x.exp()"), Expr("Tensor.expm1", "x.expm1()"), Expr("Tensor.log", "pos.log()"),
    Expr("Tensor.log1p", "pos.log1p()"), Expr("Tensor.log2", "pos.log2()"), Expr("Tensor.log10", "pos.log10()"),
    Expr("Tensor.sin", "x.sin()"), Expr("Tensor.cos", "x.cos()"), Expr("Tensor.tan", "x.tan()"),
    Expr("Tensor.tanh", "x.tanh()"), Expr("Tensor.sigmoid", "x.sigmoid()"), Expr("Tensor.relu", "x.relu()"),
    Expr("Tensor.softmax", "x.softmax(dim=1)"), Expr("Tensor.softmax", "x.softmax(-1)"),
    Expr("Tensor.log_softmax", "x.log_softmax(dim=-1)"),
    Expr("Tensor.floor", "x.floor()", grad=False), Expr("Tensor.ceil", "x.ceil()", grad=False),
    Expr("Tensor.round", "x.round()", grad=False), Expr("Tensor.trunc", "x.trunc()", grad=False),
    Expr("Tensor.frac", "x.frac()"), Expr("Tensor.sign", "x.sign()", grad=False), Expr("Tensor.neg", "x.neg()"),
    Expr("Tensor.negative", "x.negative()"), Expr("Tensor.square", "x.square()"),
    Expr("Tensor.reciprocal", "pos.reciprocal()"), Expr("Tensor.erf", "x.erf()"),
    Expr("Tensor.nan_to_num", "pos.log().nan_to_num()"),
    Expr("Tensor.clamp", "x.clamp(-0.5, 0.5)"), Expr("Tensor.clamp", "x.clamp(min=0)"),
    Expr("Tensor.clip", "x.clip(max=0.2)"), Expr("Tensor.clamp_min", "x.clamp_min(0.1)"),
    Expr("Tensor.clamp_max", "x.clamp_max(0.1)"), Expr("Tensor.lerp", "x.lerp(y, 0.25)"),
    Expr("Tensor.addcmul", "x.addcmul(y, pos, value=0.5)"), Expr("Tensor.addcdiv", "x.addcdiv(y, pos, value=2)"),
    Expr("Tensor.matmul", "m.matmul(w.t())"), Expr("Tensor.mm", "m.mm(w.t())"), Expr("Tensor.bmm", "x.bmm(y.transpose(1, 2))"),
    Expr("Tensor.outer", "v.outer(v)"), Expr("Tensor.inverse", "(sq + 4 * torch.eye(4)).inverse()"),
    Expr("Tensor.det", "(sq + 4 * torch.eye(4)).det()"),
    Expr("Tensor.eq", "x.eq(y)", grad=False), Expr("Tensor.ne", "x.ne(0)", grad=False), Expr("Tensor.gt", "x.gt(y)", grad=False),
    Expr("Tensor.lt", "x.lt(0)", grad=False), Expr("Tensor.ge", "x.ge(y)", grad=False), Expr("Tensor.le", "x.le(0)", grad=False),
    Expr("Tensor.logical_not", "mask.logical_not()", grad=False),
    Expr("Tensor.isnan", "pos.log().isnan()", grad=False), Expr("Tensor.isinf", "x.isinf()", grad=False),
    Expr("Tensor.isfinite", "x.isfinite()", grad=False),
    # indexing
    Expr("Tensor.masked_fill", "x.masked_fill(mask, 0.5)"), Expr("Tensor.masked_select", "x.masked_select(mask)"),
    Expr("Tensor.where", "x.where(mask, y)"), Expr("Tensor.gather", "x.gather(2, idx)"),
    Expr("Tensor.index_select", "x.index_select(1, t)"), Expr("Tensor.scatter", "x.scatter(2, idx, y)"),
    Expr("Tensor.scatter_add", "x.scatter_add(2, idx, y)"), Expr("Tensor.index_fill", "x.index_fill(1, t, -1.0)"),
    Expr("Tensor.tril", "sq.tril()"), Expr("Tensor.triu", "sq.triu(1)"),
    # new tensors
    Expr("Tensor.new_zeros", "x.new_zeros((2, 3))", grad=False), Expr("Tensor.new_ones", "x.new_ones(2, 3)", grad=False),
    Expr("Tensor.new_empty", "x.new_empty(2, 3).shape", grad=False),
    Expr("Tensor.new_full", "x.new_full((2, 3), 1.5)", grad=False),
    Expr("Tensor.requires_grad_", "x.requires_grad_() * 2"),
    Marked("Tensor.unfold", "def f(x):\n    return x.unfold(1, 2, 1)"),
    # in-place
    inplace("Tensor.add_", "add_(y, alpha=2)", inputs="x, y"), inplace("Tensor.sub_", "sub_(y)", inputs="x, y"),
    inplace("Tensor.mul_", "mul_(y)", inputs="x, y"), inplace("Tensor.div_", "div_(pos)", inputs="x, pos"),
    inplace("Tensor.clamp_", "clamp_(-0.5, 0.5)"), inplace("Tensor.clamp_min_", "clamp_min_(0.1)"),
    inplace("Tensor.clamp_max_", "clamp_max_(0.1)"),
    inplace("Tensor.masked_fill_", "masked_fill_(mask, 0.0)", inputs="x, mask"),
    inplace("Tensor.pow_", "pow_(2)"), inplace("Tensor.lerp_", "lerp_(y, 0.3)", inputs="x, y"),
    inplace("Tensor.addcmul_", "addcmul_(y, pos, value=0.5)", inputs="x, y, pos"),
    inplace("Tensor.addcdiv_", "addcdiv_(y, pos, value=0.5)", inputs="x, y, pos"),
    inplace("Tensor.scatter_", "scatter_(2, idx, y)", inputs="x, idx, y"),
    inplace("Tensor.scatter_add_", "scatter_add_(2, idx, y)", inputs="x, idx, y"),
    inplace("Tensor.index_fill_", "index_fill_(1, t, 2.0)", inputs="x, t"),
    inplace("Tensor.round_", "round_()", grad=False), inplace("Tensor.relu_", "relu_()"),
    inplace("Tensor.detach_", "detach_() * 2", grad=False),
    inplace("Tensor.bernoulli_", "bernoulli_(0.3)", inputs="big", grad=False, check="stats", rtol=0.1,
            atol=0.02, arrays=(("big", "np.zeros((100, 100), np.float32)"),)),
    inplace("Tensor.sqrt_", "sqrt_()", inputs="pos"), inplace("Tensor.rsqrt_", "rsqrt_()", inputs="pos"),
    inplace("Tensor.abs_", "abs_()"), inplace("Tensor.neg_", "neg_()"), inplace("Tensor.exp_", "exp_()"),
    inplace("Tensor.log_", "log_()", inputs="pos"), inplace("Tensor.sigmoid_", "sigmoid_()"),
    inplace("Tensor.tanh_", "tanh_()"), inplace("Tensor.floor_", "floor_()", grad=False),
    inplace("Tensor.ceil_", "ceil_()", grad=False), inplace("Tensor.trunc_", "trunc_()", grad=False),
    inplace("Tensor.sign_", "sign_()", grad=False), inplace("Tensor.reciprocal_", "reciprocal_()", inputs="pos"),
    inplace("Tensor.sin_", "sin_()"), inplace("Tensor.cos_", "cos_()"),
    Expr("Tensor.logical_not_", "(lambda z: z.logical_not_())(mask | False)", grad=False),
    inplace("Tensor.copy_", "copy_(y)", inputs="x, y"), inplace("Tensor.copy_", "copy_(v[:4])", inputs="x, v"),
    inplace("Tensor.add_", "add_(y).clamp_(-0.5, 0.5)", inputs="x, y"),
    inplace("Tensor.share_memory_", "share_memory_()"),
    Expr("Tensor.mul_", "(x + y).mul_(2)"), Expr("Tensor.clamp_", "torch.ones(2, 3).clamp_(0, 0.5)", grad=False),
    ProvenBy("Tensor.copy_", "tests/migrate/convert/test_tensor_methods.py::test_item_statements_become_assignments"),
    Marked("Tensor.unsqueeze_", "def f(x):\n    x.unsqueeze_(0)"), Marked("Tensor.squeeze_", "def f(x):\n    x.squeeze_()"),
    Marked("Tensor.t_", "def f(x):\n    x.t_()"), Marked("Tensor.transpose_", "def f(x):\n    x.transpose_(0, 1)"),
    Marked("Tensor.resize_", "def f(x):\n    x.resize_(2, 3)"),
]


@pytest.mark.parametrize("case", CASES, ids=case_id)
def test_entry(case):
    run(case)
