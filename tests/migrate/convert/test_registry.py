"""The rule registry: distinct IDs, records for every rule, --select/--disable."""
import re
import textwrap
from collections import Counter

import pytest

import cli
from mappings import load_tables
from migrate import convert_source
from migrate.convert import registry
from migrate.convert.registry import MARKERS, RULES, Rule, RuleSelection, entry_id
from tests.child import run_cli
from tests.migrate.convert.helpers import without_guards


def test_rule_ids_are_distinct():
    """One ID, one rule (or marker): reports and --select/--disable name rules by ID."""
    ids = [r.id for r in RULES.values()] + list(MARKERS)
    assert [i for i, n in Counter(ids).items() if n > 1] == []
    assert {r.kind for r in RULES.values()} == {"argument", "node", "statement"}  # every area loaded


def test_registering_a_taken_id_or_name_fails():
    n = len(RULES)
    taken = {r.id for r in RULES.values()} | set(MARKERS)
    free = next(f"MS{i}" for i in range(100, 900) if f"MS{i}" not in taken)
    with pytest.raises(ValueError, match="MS110 is already taken by 'conv2d'"):
        registry.register(Rule("MS110", "another_conv", "argument", "Replace x with y."))
    with pytest.raises(ValueError, match="MS901 is already taken by 'marker'"):
        registry.register(Rule("MS901", "not_a_marker", "node", "Replace x with y."))
    with pytest.raises(ValueError, match="registered twice"):
        registry.register(Rule(free, "conv2d", "argument", "Replace x with y."))
    with pytest.raises(ValueError, match="not MS and three digits"):
        registry.register(Rule("MS1", "short_id", "node", "Replace x with y."))
    assert len(RULES) == n and free not in {r.id for r in RULES.values()}


def test_every_record_is_a_rule_of_a_known_kind_with_a_replace_summary():
    for r in RULES.values():
        assert r.kind in ("argument", "node", "statement"), r
        assert r.doc.startswith("Replace "), r.name
        assert (r.apply is not None) == (r.kind == "argument"), r.name


def test_table_entries_name_argument_rules_only():
    for name, entry in load_tables().items():
        if entry.rule is not None:
            assert RULES[entry.rule].kind == "argument", name


def test_ids_keep_their_meaning_one_per_table_rule_or_marker_in_its_range():
    """MS0xx: one per mapping table; MS1xx-MS5xx: rules; MS9xx: markers; no ID names two things."""
    tables = load_tables().values()
    by_table: dict[str, set[str]] = {}
    for e in tables:
        if e.label != "unsupported":
            by_table.setdefault(e.table, set()).add(e.id)
    assert all(len(ids) == 1 for ids in by_table.values()), by_table
    table_ids = [next(iter(ids)) for ids in by_table.values()]
    assert len(set(table_ids)) == len(table_ids), table_ids
    assert all(re.fullmatch(r"MS0\d\d", i) for i in table_ids), table_ids
    assert all(re.fullmatch(r"MS[1-5]\d\d", r.id) for r in RULES.values()), sorted(r.id for r in RULES.values())
    assert all(re.fullmatch(r"MS9\d\d", i) for i in MARKERS)
    # an unsupported entry writes a marker, with a marker's ID
    assert {e.id for e in tables if e.label == "unsupported"} <= set(MARKERS)


def test_an_entry_reports_its_rules_id_else_its_tables():
    entries = load_tables()
    assert entry_id(entries["torch.nn.Conv2d"]) == RULES["conv2d"].id
    assert entry_id(entries["Tensor.dim"]) == RULES["ndim"].id
    assert entry_id(entries["torch.float32"]) == entries["torch.float16"].id != RULES["conv2d"].id


def test_an_entry_with_an_id_that_is_not_a_marker_is_refused(tmp_path):
    from mappings import _load_file
    bad = tmp_path / "bad.toml"
    bad.write_text('id = "MS099"\n[[entry]]\ntorch = "torch.x"\ntarget = "ops.x"\nid = "MS150"\n')
    with pytest.raises(ValueError, match=r"bad.toml: torch.x: an entry's id can only be the marker ID"):
        _load_file(bad)
    bad.write_text('[[entry]]\ntorch = "torch.x"\ntarget = "ops.x"\n')
    with pytest.raises(ValueError, match="a table needs its own id"):
        _load_file(bad)


def test_mappings_rules_lists_every_rule_and_marker(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    assert cli.main(["mappings", "--rules"]) == 0
    out = capsys.readouterr().out
    for r in RULES.values():
        assert r.id in out and r.name in out, r
    for marker_id in MARKERS:
        assert marker_id in out
    assert "with x.shape / x.shape[i]." in out  # summaries are text, not rich markup


@pytest.mark.parametrize("select,disable,allowed,refused", [
    ("MS1,MS205", None, ["MS100", "MS140", "MS199", "MS205", "MS901", "MS955"], ["MS201", "MS212", "MS220"]),
    (None, "MS212", ["MS201", "MS2", "MS110"], ["MS212"]),
    ("ms11", "MS110", ["MS111", "MS119"], ["MS110", "MS120", "MS201"]),
    (["MS2"], ["MS22", "MS201"], ["MS202", "MS210"], ["MS201", "MS221", "MS110"]),
])
def test_selection_matches_id_prefixes_and_never_drops_markers(select, disable, allowed, refused):
    rules = RuleSelection.parse(select, disable)
    assert [i for i in allowed if not rules.allows(i)] == []
    assert [i for i in refused if rules.allows(i)] == []


@pytest.mark.parametrize("bad", ["110", "MS1100", "MS-1", "torch"])
def test_selection_rejects_what_is_not_an_id_prefix(bad):
    with pytest.raises(ValueError, match="is not a rule ID or an ID prefix"):
        RuleSelection.parse(bad)


TRAINING_SCRIPT = textwrap.dedent("""\
    import torch
    import torch.nn as nn
    from torch.utils.data import DataLoader, DistributedSampler

    net = nn.Linear(4, 2)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    sampler = DistributedSampler(data)
    loader = DataLoader(data, batch_size=8, sampler=sampler)
    for epoch in range(2):
        sampler.set_epoch(epoch)
        for i, (x, y) in enumerate(loader):
            loss = nn.functional.mse_loss(net(x), y) / 2
            loss.backward()
            if (i + 1) % 2 == 0:
                opt.step()
""")
DENSE = ("net = nn.Dense(4, 2, weight_init=HeUniform(negative_slope=math.sqrt(5)), "
         "bias_init=Uniform(scale=1 / math.sqrt(4)))")
SHARDS = "num_shards=ms.communication.get_group_size(), shard_id=ms.communication.get_rank(), shuffle=True"


def test_select_model_rules_and_accumulation_leaves_the_training_code_as_written():
    """--select MS00,MS01,MS1,MS205: the model code converts (the torch and layer tables, MS00x
    and MS01x, and the model rules, MS1xx); the optimizer, the loader and the step (the training
    table MS020, rules MS2xx; MS205 cannot apply without MS201) stay torch's, whole, without
    markers."""
    res = convert_source(TRAINING_SCRIPT, select=["MS00", "MS01", "MS1", "MS205"])
    assert "    import torch\n    from torch.utils.data import DataLoader, DistributedSampler\nelse" in res.code
    assert without_guards(res.code) == textwrap.dedent(f"""\
        import math
        import ms_core as ms
        from ms_core import nn, ops
        from ms_core.common.initializer import HeUniform, Uniform

        {DENSE}
        opt = torch.optim.SGD(net.parameters(), lr=0.1)
        sampler = DistributedSampler(data)
        loader = DataLoader(data, batch_size=8, sampler=sampler)
        for epoch in range(2):
            sampler.set_epoch(epoch)
            for i, (x, y) in enumerate(loader):
                loss = ops.mse_loss(net(x), y) / 2
                loss.backward()
                if (i + 1) % 2 == 0:
                    opt.step()
        """)
    assert sorted({c.rule for c in res.changes}) == ["MS002", "MS100", "MS111", "MS900"]


TRAINING_STEP_OUT = """\
def forward_fn(x, y):
    loss = ops.mse_loss(net(x), y) / 2
    return loss

grad_fn = ms.value_and_grad(forward_fn, None, opt.parameters)
accum_grads = None

for epoch in range(2):
{set_epoch}    for i, (x, y) in enumerate(loader):
        loss, grads = grad_fn(x, y)
        accum_grads = grads if accum_grads is None else tuple(a + g for a, g in zip(accum_grads, grads))
        if (i + 1) % 2 == 0:
            opt(accum_grads)
"""
CONVERTED_HEAD = f"""\
import math
import ms_core as ms
from ms_core import nn, ops
from ms_core.common.initializer import HeUniform, Uniform

{DENSE}
net.set_train(True)
opt = ms.experimental.optim.SGD(net.trainable_params(), lr=0.1)
"""
LOADER = f"loader = ms.dataset.GeneratorDataset(data, column_names=[\"data\", \"label\"], {SHARDS}).batch(8)\n\n"


def test_disable_sampler_statements_keeps_them():
    """--disable MS212: `sampler = ...` and `set_epoch` stay (the sampler call itself converts
    by its own table rule, MS227); everything else converts as without the option."""
    full = convert_source(TRAINING_SCRIPT)
    assert full.code == CONVERTED_HEAD + LOADER + TRAINING_STEP_OUT.format(set_epoch="")
    res = convert_source(TRAINING_SCRIPT, disable=["MS212"])
    assert res.code == (CONVERTED_HEAD + f"sampler = ms.dataset.DistributedSampler({SHARDS})\n" + LOADER
                        + TRAINING_STEP_OUT.format(set_epoch="    sampler.set_epoch(epoch)\n"))
    assert "MS212" in {c.rule for c in full.changes} and "MS212" not in {c.rule for c in res.changes}


def test_disabled_call_stays_whole_and_its_torch_import_stays():
    res = convert_source("import torch\nimport torch.nn.functional as F\ny = torch.exp(F.relu(x))\n"
                         "z = F.relu(x)\n",
                         disable=["MS001"])
    # torch.exp (MS001: the torch table) stays whole, F.relu inside it too; both imports stay, guarded
    assert "    import torch\n    import torch.nn.functional as F\nelse:" in res.code
    assert without_guards(res.code) == ("import ms_core as ms\nfrom ms_core import ops\n"
                                        "y = torch.exp(F.relu(x))\nz = ops.relu(x)\n")


def test_markers_are_written_whatever_is_selected():
    src = "import torch\ny = torch.fft.hfft(x)\n"
    marked = "import ms_core as ms\n# migrate: MS901 torch.fft.hfft has no mapping\ny = torch.fft.hfft(x)\n"
    assert without_guards(convert_source(src).code) == marked
    assert without_guards(convert_source(src, select=["MS1"], disable=["MS9"]).code) == marked


def test_cli_select_and_disable(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "300")
    src = tmp_path / "train.py"
    src.write_text(TRAINING_SCRIPT)
    assert cli.main(["convert", str(src), "-q", "--select", "MS1,MS205"]) == 0
    assert capsys.readouterr().out == convert_source(TRAINING_SCRIPT, select=["MS1", "MS205"], runtime="").code
    out_dir = tmp_path / "out"
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "train.py").write_text(TRAINING_SCRIPT)
    # two worker processes: the command runs in a child process with a time limit
    assert run_cli(["convert", tmp_path / "pkg", "-o", out_dir, "-q", "--disable", "MS212", "--jobs", "2"],
                   timeout=300)[0] == 0
    assert (out_dir / "train.py").read_text() == convert_source(TRAINING_SCRIPT, disable=["MS212"]).code
    assert cli.main(["convert", str(src), "-q", "--select", "MS7"]) == 2
    assert "no rule ID starts with it" in capsys.readouterr().err
    assert cli.main(["convert", str(src), "-q", "--disable", "X1"]) == 2
    assert "is not a rule ID or an ID prefix" in capsys.readouterr().err
