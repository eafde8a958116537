"""Comments survive the training pass (issue 13 item 6, fuzz finding F7): a statement the pass
replaces or removes keeps the comments above it and at its end; a comment above a removed torch
import stays in the file."""
import textwrap

from migrate import convert_source
from tests.migrate.convert.helpers import check


def test_comments_of_replaced_step_statements_are_kept():
    check("""\
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        scaler = torch.cuda.amp.GradScaler()
        for x, y in loader:
            opt.zero_grad()  # clear
            loss = F.mse_loss(model(x), y)
            # backprop
            scaler.scale(loss).backward()  # scaled
            scaler.unscale_(opt)  # unscale
            scaler.step(opt)  # one step per batch
            scaler.update()  # adjust
        """, """\
        opt = ms.experimental.optim.SGD(model.trainable_params(), lr=0.1)
        scaler = torch_grad_scaler(ms.amp.DynamicLossScaler(scale_value=65536.0, scale_factor=2, scale_window=2000))

        def forward_fn(x, y):
            loss = ops.mse_loss(model(x), y)
            return scaler.scale(loss)

        grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)

        for x, y in loader:
            pass  # clear
            # backprop
            loss, grads = grad_fn(x, y)  # scaled
            loss = scaler.unscale(loss)
            grads = scaler.unscale(grads)  # unscale
            grads_finite = ms.amp.all_finite(grads)
            if grads_finite:  # one step per batch
                opt(grads)
            scaler.adjust(grads_finite)  # adjust
        """)


def test_comment_of_plain_step_and_clipping_is_kept():
    check("""\
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        for x, y in loader:
            loss = F.mse_loss(model(x), y)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)  # tame spikes
            opt.step()  # one step per batch
        """, """\
        opt = ms.experimental.optim.SGD(model.trainable_params(), lr=0.1)

        def forward_fn(x, y):
            loss = ops.mse_loss(model(x), y)
            return loss

        grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)

        for x, y in loader:
            loss, grads = grad_fn(x, y)
            grads = ops.clip_by_global_norm(grads, 1.0)  # tame spikes
            opt(grads)  # one step per batch
        """)


def test_comment_of_a_removed_sampler_statement_is_kept():
    res = convert_source(textwrap.dedent("""\
        import torch
        from torch.utils.data import DataLoader, DistributedSampler
        sampler = DistributedSampler(ds)  # one shard per rank
        loader = DataLoader(ds, batch_size=4, sampler=sampler)
        """))
    assert "# one shard per rank" in res.code
    compile(res.code, "out", "exec")


def test_comment_above_a_removed_torch_import_is_kept():
    src = "import torch.nn\n# the init helpers\nfrom torch.nn import init\nw = torch.nn.Linear(2, 2)\n"
    res = convert_source(src)
    assert "# the init helpers\n" in res.code
    assert res.code.index("# the init helpers") < res.code.index("w = ")
    assert convert_source(res.code).code == res.code


def test_blank_lines_between_removed_imports_do_not_accumulate():
    src = "import torch\n\nimport torch.nn as nn\nx = nn.ReLU()\n"
    got = convert_source(src).code
    # (the source's one blank line may stay, once: it never grows into more)
    assert got.startswith("import ms_core as ms\nfrom ms_core import nn\n") and "\n\n\n" not in got
    assert got.endswith("\nx = nn.ReLU()\n") and convert_source(got).code == got


def test_comment_on_an_unwrapped_with_line_is_kept():
    src = textwrap.dedent("""\
        import torch
        with torch.no_grad():  # evaluation
            y = f(x)
        with torch.autocast("cpu"):  # mixed precision
            z = g(y)
        """)
    got = convert_source(src).code
    assert "with torch_no_grad():  # evaluation\n    y = f(x)\n" in got and "# mixed precision\nz = g(y)\n" in got
