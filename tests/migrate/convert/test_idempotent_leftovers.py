"""Converting an output a second time changes nothing: what bench/corpus.py still found (a torch
package's files whose second conversion differed from the first), each with a fixture of our own."""
from migrate import convert_source
from tests.migrate.convert.test_at_scale import converted


def test_a_torchvision_transform_subclass_keeps_forward_on_the_converted_base():
    """lightly's RandomHorizontalFlipWithLocation: the base became MindSpore's dataset transform
    (not a Cell), so forward stayed; the second conversion took that base for a class of another
    file and its forward for a Cell's (construct). A base left torchvision's keeps the file's
    torch import (guarded), so the second conversion reads the whole file."""
    code = converted("""\
        import torchvision.transforms as T


        class CropWithLocation(T.RandomResizedCrop):
            def forward(self, img):
                return super().forward(img), 0


        class FlipWithLocation(T.RandomHorizontalFlip):
            def forward(self, img):
                return super().forward(img), 1
        """)
    assert "class FlipWithLocation(ms.dataset.vision.RandomHorizontalFlip):" in code
    assert "    def forward(self, img):" in code
    assert convert_source(code).code == code


def test_an_optimizer_deriving_from_the_converted_optimizer_base_is_still_one():
    """allennlp's MultiOptimizer: its step() and zero_grad() call its optimizers' own, which are
    no training steps; the second conversion read the runtime's TorchOptimizer base (what the
    first made of torch.optim.Optimizer) as no optimizer and marked them MS955."""
    code = converted("""\
        import torch


        class Optimizer(torch.optim.Optimizer):
            pass


        class MultiOptimizer(Optimizer):
            def __init__(self, optimizers):
                self.optimizers = optimizers

            def step(self):
                for optimizer in self.optimizers.values():
                    optimizer.step()

            def zero_grad(self, set_to_none=False):
                for optimizer in self.optimizers.values():
                    optimizer.zero_grad(set_to_none)


        def prior(a):
            return torch.distributions.Beta(a, a)  # unmapped: torch stays (guarded), so a second pass walks the file
        """)
    assert "class Optimizer(TorchOptimizer):" in code and "MS955" not in code
    assert convert_source(code).code == code


def test_a_function_import_whose_uses_a_rewrite_settled_goes_the_first_time():
    """trl's is_npu_available: `return hasattr(torch, "npu") and torch.npu.is_available()` is
    settled to False after the walk counted its torch names; the first conversion guarded the
    function's `import torch` (with no reason), the second removed the guard."""
    code = converted("""\
        from importlib.util import find_spec


        def is_npu_available() -> bool:
            if find_spec("torch") is None:
                return False

            import torch

            return hasattr(torch, "npu") and torch.npu.is_available()
        """)
    assert "import torch" not in code and "TorchMissing" not in code and "    return False\n" in code
    assert convert_source(code).code == code


def test_a_marked_star_import_is_no_use_of_the_torch_stand_in():
    """zuko's transforms.py: the marker of `from torch.distributions.transforms import *` (whose
    names were unknown; here a private module's, still unknown) was read by the second conversion
    as a reason of the `torch` stand-in, the module path being `torch.distributions...`."""
    code = converted("""\
        import torch
        from torch.distributions._private import *  # noqa: F403


        def prior(a):
            return torch.distributions.Beta(a, a)
        """)
    assert "'distributions': 'MS901 torch.distributions.Beta has no mapping'" in code
    assert "# migrate: MS901 star import from torch.distributions._private" in code
    assert convert_source(code).code == code


def test_a_function_importing_a_name_it_declares_global_keeps_the_import_guarded():
    """fairseq's import_pipe: `global Pipe` then `from torch.distributed.pipeline.sync import Pipe`
    in a try; the module's other functions call Pipe, walked after it. The first conversion
    removed the import (no use counted yet in the function) and kept Pipe's arguments torch's;
    the second, Pipe no longer torch's, converted them."""
    code = converted("""\
        import torch.nn as nn

        TORCH_PIPE = False


        def import_pipe():
            global TORCH_PIPE
            try:
                global Pipe
                from torch.distributed.pipeline.sync import Pipe
                TORCH_PIPE = True
            except ImportError:
                pass


        class Model(nn.Module):
            def __init__(self, mods):
                super().__init__()
                import_pipe()
                self.model = Pipe(nn.Sequential(*mods), chunks=2)
        """)
    assert "        if TYPE_CHECKING:\n            from torch.distributed.pipeline.sync import Pipe\n" in code
    assert "raise ImportError('torch.distributed.pipeline.sync.Pipe (converted code does not import torch)')" in code
    assert convert_source(code).code == code
    namespace = {}
    exec(code, namespace)  # noqa: S102 (the handler runs: no torch reached)
    namespace["import_pipe"]()
    assert namespace["TORCH_PIPE"] is False
