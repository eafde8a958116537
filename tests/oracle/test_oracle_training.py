"""Oracle for the training table (tests/mappings/test_training_table.py): a sample of its Program
proofs (optimizer steps, learning-rate schedules, loss scaling, data batches), converted with
``--target mindspore``, runs on real MindSpore 2.10 and must give torch's values, as the
``--target ms_core`` conversion does on ms_core.

All sampled cases run in one MindSpore process; inputs and results cross as ``.npz`` files. The
process-group cases are not sampled: ``communication.init()`` needs MindSpore's launcher.
"""
import textwrap
import warnings

import numpy as np
import pytest

from migrate import convert_source
from tests.mappings import proof, test_training_table

from .test_oracle import ORACLE
from .test_oracle_mappings import DRIVER_HEAD, run_driver

torch = pytest.importorskip("torch")
pytestmark = [pytest.mark.oracle,
              pytest.mark.skipif(ORACLE is None, reason="real MindSpore is not available "
                                 "(set MS_ORACLE_PYTHON to an interpreter that has it)")]

# the sampled entries: the first Program case of each whose code contains the text given
SAMPLE = [("torch.optim.SGD", ""), ("torch.optim.Adam", "amsgrad=False"), ("torch.optim.adamw.AdamW", ""),
          ("torch.optim.RMSprop", ""), ("torch.optim.Adagrad", ""), ("torch.optim.Adadelta", ""),
          ("torch.optim.Adamax", ""), ("torch.optim.AdamW", "amsgrad=True"), ("torch.optim.ASGD", ""),
          ("torch.optim.Rprop", ""),
          ("torch.optim.NAdam", ""), ("torch.optim.RAdam", ""),
          ("torch.optim.lr_scheduler.StepLR", ""), ("torch.optim.lr_scheduler.MultiStepLR", ""),
          ("torch.optim.lr_scheduler.CosineAnnealingLR", ""), ("torch.optim.lr_scheduler.LambdaLR", ""),
          ("torch.optim.lr_scheduler.LinearLR", ""), ("torch.optim.lr_scheduler.SequentialLR", ""),
          ("torch.optim.lr_scheduler.ReduceLROnPlateau", ""), ("torch.optim.lr_scheduler.ExponentialLR", ""),
          ("torch.amp.GradScaler", ""), ("torch.utils.data.TensorDataset", ""),
          ("torch.utils.data.DataLoader", "Pairs(rows, lab)"),
          ("torch.utils.data.dataloader.DataLoader", ""), ("torch.utils.data.DistributedSampler", "")]
# cases whose MindSpore 2.10 result knowingly differs (README; the entries' --target mindspore
# notes): they must still differ, so that a fixed MindSpore shows up here
KNOWN_DIFFERENT = {("torch.optim.Adam", "amsgrad=True"): "its Adam's amsgrad update is not torch's "
                                                          "(its AdamW's is: sampled below)"}
# not sampled: several DataLoaders over one TensorDataset (MindSpore 2.10 refuses a dataset that
# feeds two pipelines: "The data pipeline is not a tree"; the DataLoader entry's note says so),
# CyclicLR (MindSpore 2.10's neither cycles momentum nor takes cycle_momentum), and
# the process-group entries (communication.init() needs MindSpore's launcher)

DRIVER = DRIVER_HEAD + textwrap.dedent("""
    import importlib.util
    for i, case in enumerate(cases):
        try:
            # a module from a file: MindSpore reads the source of the Cells it differentiates
            spec = importlib.util.spec_from_file_location(f"case{i}", case["path"])
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            args = [ms.Tensor(data[f"{i}_in{j}"]) for j in range(case["n_inputs"])]
            for j, o in enumerate(flat(mod.run(*args))):
                results[f"{i}_out{j}"] = o
        except Exception:
            results[f"{i}_error"] = np.array(traceback.format_exc()[-1500:])
    np.savez(sys.argv[3], **results)
""")


def _pick(api: str, text: str):
    return next(c for c in test_training_table.CASES if isinstance(c, proof.Program) and c.api == api
                and text in c.code and not c.reference)


def _torch_outputs(case) -> list:
    values = proof._arrays(case)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        run = proof._exec(f"{proof.HEADER}{case.code.strip()}\n", "torch")["run"]
        return proof._flat(run(*(torch.tensor(values[n]) for n in case.inputs)))


def _run_on_mindspore(cases: list, tmp_path) -> np.lib.npyio.NpzFile:
    payload, arrays = [], {}
    for i, case in enumerate(cases):
        res = convert_source(f"{proof.HEADER}{case.code.strip()}\n", target="mindspore")
        assert res.error is None and "# migrate: MS9" not in res.code, res.code
        assert "import mindspore as ms" in res.code
        values = proof._arrays(case)
        for j, name in enumerate(case.inputs):
            arrays[f"{i}_in{j}"] = values[name]
        (tmp_path / f"case{i}.py").write_text(res.code)
        payload.append({"path": str(tmp_path / f"case{i}.py"), "n_inputs": len(case.inputs)})
    return run_driver(tmp_path, DRIVER, payload, arrays)


def _check(case, got, i) -> None:
    """Case ``i``'s MindSpore outputs against torch's; AssertionError says what differs."""
    assert f"{i}_error" not in got, str(got[f"{i}_error"])
    ref = _torch_outputs(case)
    outs = [got[f"{i}_out{j}"] for j in range(len(ref)) if f"{i}_out{j}" in got]
    # Python numbers come back as 0-d arrays: compare them as numbers
    outs = [o.item() if o.shape == () and not isinstance(r, np.ndarray) else o for o, r in zip(outs, ref)]
    proof._compare(f"{case.api} on MindSpore", outs, ref, case)


def test_sampled_training_entries_give_torchs_results_on_mindspore(tmp_path):
    cases = [_pick(api, text) for api, text in SAMPLE]
    got = _run_on_mindspore(cases, tmp_path)
    failures = []
    for i, case in enumerate(cases):
        try:
            _check(case, got, i)
        except AssertionError as exc:
            failures.append(f"{case.api}: {str(exc)[:1500]}")
    assert not failures, f"{len(failures)} of {len(cases)} sampled cases differ:\n" + "\n".join(failures)


def test_known_differences_of_mindspore_still_differ(tmp_path):
    cases = [_pick(api, text) for api, text in KNOWN_DIFFERENT]
    got = _run_on_mindspore(cases, tmp_path)
    for i, (case, why) in enumerate(zip(cases, KNOWN_DIFFERENT.values())):
        assert f"{i}_error" not in got, str(got[f"{i}_error"])
        with pytest.raises(AssertionError, match="Not equal to tolerance"):
            _check(case, got, i)  # {why}
