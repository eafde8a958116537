"""Real-code benchmark: whole third-party packages through `migrate convert`, then built and run.

For each source (a pinned PyPI package or a GitHub snapshot, none written by this project):

1. fetch it once into a cache outside the repository (`pip download --no-deps pkg==ver`, unpack);
2. convert the whole tree with the CLI (`migrate convert DIR -o OUT -j N --report r.json`), timed;
3. check that every output parses and that converting the output again changes nothing;
4. count model-definition files (a file that defines an `nn.Module` subclass) whose converted
   text still carries `# migrate: MS9xx` markers;
5. for each listed architecture: build it with PyTorch (fixed seed, eval mode) in one child
   process and save its parameters, buffers, input and outputs; import the converted package in
   another child process in which torch cannot be imported, build the same architecture, copy
   the weights with the checker's weight map, run it and compare the outputs
   (relative max error = max|a - b| / max|b| <= 1e-4);
6. run a few training scripts for a step or two on tiny synthetic data, original and converted.

Usage::

    python bench/realworld.py                       # everything (~5 min today, more as models build)
    python bench/realworld.py --quick               # a subset (~1.5 min)
    python bench/realworld.py --only geffnet,nanogpt --arch mixnet --json out.json
    python bench/realworld.py --dl-dir /work/cache/dl --snapshots /work/cache/src

Where the code comes from:

- PyPI packages: an archive already in the cache, else one in a `--dl-dir` directory (env
  `MS_MIGRATE_BENCH_DL`; archives named as pip names them), else `pip download --no-deps`.
  Unpacked into `<cache>/src/<archive name>/`. The cache is `--cache` (env
  `MS_MIGRATE_BENCH_CACHE`, default `~/.cache/ms-migrate-bench`).
- GitHub snapshots cannot be downloaded by this script: give a directory holding them unpacked
  as `gh_<owner>+<repo>/` with `--snapshots` (env `MS_MIGRATE_BENCH_SNAPSHOTS`); sources whose
  snapshot is missing are skipped and listed.

Some packages import modules that cannot be imported here (torchvision, einops, PIL) from their
`__init__`; the bench converts only the listed files of those and replaces the named
`__init__.py` files by empty ones (see `Source.exclude` / `Source.blank`), on the original and the
converted side alike. Nothing here is part of the test suite; only the standard library, numpy,
torch and this project are used.
"""
from __future__ import annotations

import argparse
import ast
import datetime
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import time
import traceback
import zipfile
import zlib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TOLERANCE = 1e-4
SCRIPT_TOLERANCE = 1e-4  # relative, on the losses and parameter statistics of the first steps
BLOCKED = ("torch", "torchvision", "torchaudio", "torchtext", "functorch")
MARKER_RE = re.compile(r"#\s*migrate:\s*(MS\d{3})")
MARKER_TEXT_RE = re.compile(r"#\s*migrate:\s*(MS\d{3})\s+(.*)$", re.M)
# torch features with no MindSpore counterpart at all (graph capture and rewriting, RPC, tensor
# parallelism, shared-memory process pools, torchvision's model zoo): a file that is marked only
# for them is a demonstration of that feature, and a marker is the right output
NO_COUNTERPART = ("torch.fx", "torch.distributed.rpc", "torch.distributed.tensor", "torch.distributed._tensor",
                  "torch.distributed.device_mesh",
                  "torch.distributed.pipelining", "torch.multiprocessing", "torchvision.models",
                  "torch.distributed.algorithms", "torch.distributed.autograd", "torch.distributed.optim")


def no_counterpart_only(text: str) -> bool:
    """Every marker of the file (MS900, the import guard's, aside) names a torch feature with no
    MindSpore counterpart."""
    found = [(i, why) for i, why in MARKER_TEXT_RE.findall(text) if i != "MS900"]
    return bool(found) and all(any(ns in why for ns in NO_COUNTERPART) for _, why in found)


# ---- what is measured (data) ------------------------------------------------------------------

@dataclass(frozen=True)
class Source:
    """A third-party code base.

    `spec` is `pkg==version` (PyPI) or `github:owner/repo` (a snapshot directory). `tree` is the
    directory inside the unpacked archive that is converted and put on `sys.path` (its import
    name is its last part; "" = the snapshot root itself). `exclude` are glob patterns (relative
    to the unpacked root) of files left out, `blank` files replaced by an empty module, because
    they import what cannot be imported here (the reason is in `note`). `torch_needs` are
    pure-Python packages (`pkg==version`) that the original code imports besides torch: fetched
    like a source and put on the path of the torch side only (the converted code must not need
    them; the project does not depend on them). `replace` maps a file to
    the one-line module of our own that stands for it on both sides (a package `__init__` cut
    down to the submodules the models need). `torch_stand_ins` are modules (path -> text) only
    the torch side sees, for imports the original makes unconditionally from packages not
    installed here (torchvision); the converted side never sees them. `stand_ins` are modules of
    our own for packages that are not torch code and not installed here (PIL, huggingface_hub,
    omegaconf): both sides see them. `uses` names other sources whose torch code this one imports
    (demucs imports julius): the torch side gets their staged trees, the converted side their
    converted trees, on its path.
    """

    name: str
    spec: str
    tree: str = ""
    exclude: tuple = ()
    blank: tuple = ()
    replace: tuple = ()           # ((relative path, text), ...)
    torch_stand_ins: tuple = ()   # ((module path, text), ...): the torch side only
    note: str = ""
    quick: bool = False
    torch_needs: tuple = ()
    stand_ins: tuple = ()         # ((module path, text), ...): both sides
    uses: tuple = ()              # names of other sources this one imports


_NO_TORCHVISION = (
    '"""Stand-in for torchvision.ops.misc (not installed here): importable, not buildable."""\n\n\n'
    'class FrozenBatchNorm2d:\n'
    '    def __init__(self, *args, **kwargs):\n'
    '        raise ImportError("torchvision is not installed (bench/realworld.py stand-in)")\n')

# torchvision/__init__.py loads its C extension: the two names model code reads from it, as
# torchvision 0.28.0 defines them (detr compares __version__ and asks _is_tracing)
_TV_INIT = (
    '"""Stand-in for torchvision/__init__.py (its C extension does not load here)."""\n'
    'import torch\n\n__version__ = "0.28.0"\n\n\n'
    'def _is_tracing():\n'
    '    return torch._C._get_tracing_state() is not None\n')

_NO_KORNIA_RS = (
    '"""Stand-in for kornia.io.io (kornia_rs is not installed): the enum, no image files."""\n'
    'from enum import Enum\n\n\n'
    'class ImageLoadType(Enum):\n'
    '    UNCHANGED = 0\n    GRAY8 = 1\n    RGB8 = 2\n    RGBA8 = 3\n    GRAY32 = 4\n    RGB32 = 5\n\n\n'
    'def load_image(*args, **kwargs):\n'
    '    raise ImportError("kornia_rs is not installed (bench/realworld.py stand-in)")\n\n\n'
    'write_image = load_image\n')

_TV_PRESETS = (
    '"""Stand-in for torchvision.transforms._presets (its transforms need PIL): the names the model '
    'files give their weights."""\n'
    'from enum import Enum\n\n\n'
    'class InterpolationMode(Enum):\n    NEAREST = "nearest"\n    BILINEAR = "bilinear"\n    BICUBIC = "bicubic"\n\n\n'
    'class ImageClassification:\n    def __init__(self, *args, **kwargs):\n'
    '        self.args, self.kwargs = args, kwargs\n\n\n'
    'ObjectDetection = SemanticSegmentation = VideoClassification = OpticalFlow = ImageClassification\n')

_TV_UTILS = (
    '"""Stand-in for torchvision.utils (it imports PIL): the helpers the models and transforms import."""\n'
    'import collections.abc\nimport itertools\n\n\n'
    'def _log_api_usage_once(obj):\n    pass\n\n\n'
    'def _make_ntuple(x, n):\n'
    '    return tuple(x) if isinstance(x, collections.abc.Iterable) else tuple(itertools.repeat(x, n))\n\n\n'
    'def _Image_fromarray(*args, **kwargs):\n    raise ImportError("PIL is not installed (bench stand-in)")\n')

_HF_HUB = (
    '"""Stand-in for huggingface_hub (not installed): importable names, no downloads."""\n\n\n'
    'def hf_hub_download(*args, **kwargs):\n'
    '    raise OSError("huggingface_hub is not installed (bench stand-in)")\n\n\n'
    'class PyTorchModelHubMixin:\n'
    '    def __init_subclass__(cls, **kwargs):\n        pass\n\n'
    '    def __new__(cls, *args, **kwargs):\n        return super().__new__(cls)\n\n'
    '    def save_pretrained(self, *args, **kwargs):\n        raise OSError("no hub here (bench stand-in)")\n\n'
    '    push_to_hub = from_pretrained = save_pretrained\n\n\n'
    'class ModelCard:\n    pass\n\n\n'
    'class ModelCardData:\n    def __init__(self, *args, **kwargs):\n        pass\n')

_FACE_DETECT = (
    'def detect_face(*args, **kwargs):\n    raise ImportError("PIL/cv2 are not installed (bench stand-in)")\n\n\n'
    'extract_face = detect_face\n')

_TQDM = ('"""Stand-in for tqdm (not installed): no progress bar."""\n\n\n'
         'class tqdm:\n    def __init__(self, iterable=None, *args, **kwargs):\n        self.iterable = iterable\n\n'
         '    def __iter__(self):\n        return iter(self.iterable)\n\n'
         '    def update(self, n=1):\n        pass\n\n    def close(self):\n        pass\n')

_NO_TORCHAUDIO = '"""Stand-in for torchaudio (not installed here): importable, nothing else."""\n'

_NO_YAML = ('"""Stand-in for PyYAML (MindSpore\'s interpreter has none): no configuration files."""\n\n\n'
            'def safe_load(*args, **kwargs):\n    raise OSError("yaml is not installed (bench stand-in)")\n')

# torchaudio's mel-scale conversions as vocos imports them (torch side only; written here from the
# formulas: HTK 2595 * log10(1 + f / 700), Slaney linear below 1 kHz and logarithmic above)
_TORCHAUDIO_MEL = (
    '"""Stand-in for torchaudio.functional.functional: the two mel-scale helpers."""\n'
    'import math\n\n\n'
    'def _hz_to_mel(freq, mel_scale="htk"):\n'
    '    if mel_scale == "htk":\n        return 2595.0 * math.log10(1.0 + freq / 700.0)\n'
    '    f_sp, min_log_hz = 200.0 / 3, 1000.0\n    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0\n'
    '    if freq < min_log_hz:\n        return freq / f_sp\n'
    '    return min_log_mel + math.log(freq / min_log_hz) / logstep\n\n\n'
    'def _mel_to_hz(mels, mel_scale="htk"):\n'
    '    if mel_scale == "htk":\n        return 700.0 * (10.0 ** (mels / 2595.0) - 1.0)\n'
    '    f_sp, min_log_hz = 200.0 / 3, 1000.0\n    min_log_mel, logstep = min_log_hz / f_sp, math.log(6.4) / 27.0\n'
    '    freqs = f_sp * mels\n    log_t = mels >= min_log_mel\n'
    '    freqs[log_t] = min_log_hz * (logstep * (mels[log_t] - min_log_mel)).exp()\n    return freqs\n')

_TORCHAUDIO_TRANSFORMS = (
    '"""Stand-in for torchaudio.transforms: importable, not buildable."""\n\n\n'
    'class Spectrogram:\n    def __init__(self, *args, **kwargs):\n'
    '        raise ImportError("torchaudio is not installed (bench/realworld.py stand-in)")\n\n\n'
    'MelSpectrogram = Spectrogram\n')

# weight-download modules (boto3, botocore, requests, tqdm) that pytorch-pretrained-bert/-biggan import at the top
_DOWNLOAD_STAND_INS = (
    ("boto3/__init__.py", ""), ("botocore/__init__.py", ""),
    ("botocore/exceptions.py", "class ClientError(Exception):\n    pass\n"),
    ("requests/__init__.py", ""), ("tqdm/__init__.py", _TQDM))

_NO_SAFETENSORS = "def load_file(*args, **kwargs):\n    raise OSError('no weight files here (bench stand-in)')\n"

# PIL.Image as torchvision's transforms read it at import: the image class and the resampling filters' numbers
_PIL_IMAGE = ("class Image:\n    pass\n\n\n"
              "NEAREST, LANCZOS, BILINEAR, BICUBIC, BOX, HAMMING = 0, 1, 2, 3, 4, 5\n")

_CATALOGUE = ('"""Stand-in for catalogue (not installed): registries that hold nothing from entry points."""\n\n\n'
              'class Registry:\n    def __init__(self, *namespace, entry_points=False):\n'
              '        self.namespace = namespace\n'
              '        self._items = {}\n\n'
              '    def register(self, name, func=None):\n'
              '        if func is not None:\n            self._items[name] = func\n            return func\n'
              '        return lambda f: self.register(name, f)\n\n'
              '    def get_all(self):\n        return dict(self._items)\n\n'
              '    def get_entry_points(self):\n        return {}\n\n\n'
              'def create(*namespace, entry_points=False):\n'
              '    return Registry(*namespace, entry_points=entry_points)\n')

_HF_HUB_API = (_HF_HUB + '\n\nclass CommitOperationAdd:\n    pass\n\n\nclass HfApi:\n    pass\n\n\n'
               'class Repository:\n    pass\n')

_HF_HUB_ERRORS = ('class EntryNotFoundError(OSError):\n    pass\n\n\n'
                  'RepositoryNotFoundError = RevisionNotFoundError = EntryNotFoundError\n')

_REQUESTS_ERRORS = "class HTTPError(OSError):\n    pass\n\n\nclass ReadTimeout(OSError):\n    pass\n"

_NO_PANDAS = ("class DataFrame:\n    def __init__(self, *args, **kwargs):\n"
              "        raise ImportError('pandas is not installed (bench stand-in)')\n")

SOURCES = [
    Source("geffnet", "geffnet==1.0.2", "geffnet", quick=True),
    Source("resnest", "resnest==0.0.5", "resnest", exclude=("resnest/gluon/*", "resnest/transforms.py",
                                                            "resnest/utils.py"),
           note="only resnest/torch (gluon needs mxnet; transforms/utils need PIL/torchvision)",
           quick=True),
    Source("pytorch_tcn", "pytorch-tcn==1.2.3", "pytorch_tcn", quick=True),
    Source("efficientnet_pytorch", "efficientnet-pytorch==0.7.1", "efficientnet_pytorch"),
    Source("pretrainedmodels", "pretrainedmodels==0.7.4", "pretrainedmodels",
           exclude=("pretrainedmodels/models/torchvision_models.py", "pretrainedmodels/utils.py",
                    "pretrainedmodels/models/utils.py", "pretrainedmodels/models/wideresnet.py",
                    "pretrainedmodels/datasets/*"),
           blank=("pretrainedmodels/__init__.py", "pretrainedmodels/models/__init__.py"),
           note="model files that need torch alone (torchvision_models, utils, datasets and "
                "wideresnet need torchvision/PIL/munch/hickle); the package __init__ files "
                "import those, so they are empty here"),
    Source("vit_pytorch", "vit-pytorch==1.7.0", "vit_pytorch", blank=("vit_pytorch/__init__.py",),
           torch_needs=("einops==0.8.1",),
           note="the model files use einops (the torch side gets einops 0.8.1 on its path; the converted "
                "code gets generated code instead); the package __init__ imports dino.py, which needs "
                "torchvision, so it is empty here"),
    Source("x_transformers", "x-transformers==1.27.0", "x_transformers", torch_needs=("einops==0.8.1",),
           note="einops throughout (the torch side gets einops 0.8.1 on its path)"),
    Source("pytorch_tabnet", "pytorch-tabnet==4.1.0", "pytorch_tabnet"),
    Source("monai", "monai==1.3.2", "monai", torch_needs=("einops==0.8.1",),
           note="ViT, UNETR and SwinUNETR reach einops through monai's optional_import (a module name in a string): "
                "the torch side gets einops 0.8.1, the converted side cannot"),
    Source("timm", "timm==0.9.16", "timm",
           replace=(("timm/data/__init__.py", "from .constants import *"),),
           torch_stand_ins=(("torchvision/ops/misc.py", _NO_TORCHVISION),),
           note="timm/data/__init__.py imports PIL/torchvision transforms: cut down to its constants "
                "(all the models import from it); timm.layers imports torchvision's FrozenBatchNorm2d "
                "unconditionally: the torch side gets a stand-in that raises when built (no listed "
                "architecture builds one)"),
    Source("kornia", "kornia==0.7.3", "kornia", replace=(("kornia/io/io.py", _NO_KORNIA_RS),),
           note="kornia.io needs the kornia_rs extension (image files), which every module imports through "
                "kornia.utils: io.py is cut down to its ImageLoadType enum on both sides"),
    Source("nanogpt", "github:karpathy/nanoGPT", quick=True),
    Source("mingpt", "github:karpathy/minGPT"),
    Source("pytorch_cifar", "github:kuangliu/pytorch-cifar", quick=True),
    Source("pytorch_examples", "github:pytorch/examples", exclude=("docs/*", "cpp/*")),
    # pytorchcv 0.0.67 (osmr/imgclsmob): ~150 model files in torch alone, containers built by
    # add_module and iterated through self._modules, a gradient smoke test in every file
    Source("pytorchcv", "pytorchcv==0.0.67", "pytorchcv"),
    # openai/CLIP: model.py in torch alone (clip/__init__ imports clip.py, which needs torchvision,
    # PIL and ftfy: blanked; clip.py and the tokenizer are converted and counted)
    Source("clip", "github:openai/CLIP", blank=("clip/__init__.py",)),
    # ---- first-pass sources (bench/README.md "First pass"): packages nobody here had converted,
    # added with their results before any fix for them
    # torchvision 0.28.0's models (its wheel's _C does not load beside this CPU torch, and its
    # transforms and utils need PIL): the package __init__, transforms/__init__, transforms/_presets
    # (the weights' preprocessing descriptions) and utils (two helpers) are cut down, on both sides
    Source("torchvision", "torchvision==0.28.0", "torchvision",
           replace=(("torchvision/__init__.py", _TV_INIT),
                    ("torchvision/transforms/__init__.py", ""),
                    ("torchvision/transforms/_presets.py", _TV_PRESETS),
                    ("torchvision/utils.py", _TV_UTILS)),
           note="models and ops; the package __init__ (it loads the _C extension), transforms and utils "
                "(PIL) cut down on both sides"),
    Source("julius", "julius==0.2.7", "julius"),
    Source("openunmix", "openunmix==1.2.1", "openunmix", torch_stand_ins=(("torchaudio/__init__.py", _NO_TORCHAUDIO),),
           note="its utils and transforms import torchaudio (audio files, an STFT backend): the torch side gets "
                "a stand-in"),
    Source("demucs", "demucs==4.0.1", "demucs", uses=("julius", "openunmix"),
           stand_ins=(("omegaconf/__init__.py", "OmegaConf = None\n"),
                      ("dora/__init__.py", ""), ("dora/log.py", "def fatal(*args):\n    raise SystemExit(args)\n")),
           torch_needs=("einops==0.8.1",),
           note="imports julius and openunmix (torch packages: sources of their own); omegaconf and dora "
                "(configuration, logging) stand in on both sides"),
    Source("segmentation_models_pytorch", "segmentation-models-pytorch==0.5.0", "segmentation_models_pytorch",
           uses=("torchvision", "timm"),
           stand_ins=(("huggingface_hub/__init__.py", _HF_HUB), ("safetensors/__init__.py", ""),
                      ("PIL/__init__.py", ""), ("PIL/Image.py", ""), ("tqdm/__init__.py", _TQDM),
                      ("safetensors/torch.py", "def load_file(*args, **kwargs):\n    raise OSError('no files here')\n"),
                      ("safetensors/numpy.py",
                       "def load_file(*args, **kwargs):\n    raise OSError('no files here')\n\n\n"
                                               "save_file = load_file\n")),
           note="imports torchvision and timm (sources of their own); huggingface_hub and safetensors (weight "
                "downloads), PIL and tqdm (its dataset class) stand in on both sides"),
    Source("facenet_pytorch", "facenet-pytorch==2.6.0", "facenet_pytorch",
           blank=("facenet_pytorch/__init__.py",),
           stand_ins=(("tqdm/__init__.py", _TQDM), ("requests/__init__.py", ""),
                      ("requests/adapters.py", "class HTTPAdapter:\n    pass\n")),
           replace=(("facenet_pytorch/models/utils/detect_face.py", _FACE_DETECT),),
           note="the package __init__ imports everything; detect_face.py (box post-processing: PIL, cv2, "
                "torchvision's NMS) is cut down to two names that raise; tqdm and requests (weight "
                "downloads; MindSpore's interpreter has no requests) stand in on both sides"),
    Source("encodec", "encodec==0.1.1", "encodec", torch_needs=("einops==0.8.1",),
           torch_stand_ins=(("torchaudio/__init__.py", _NO_TORCHAUDIO),),
           note="utils.py imports torchaudio at the top (resampling audio files): the torch side gets a "
                "stand-in"),
    Source("open_clip", "open-clip-torch==2.24.0", "open_clip", uses=("torchvision",),
           blank=("open_clip/__init__.py",),
           note="its __init__ imports the tokenizers (ftfy, regex) and factory (huggingface_hub): emptied; "
                "utils.py imports torchvision (a source of its own)"),
    Source("segment_anything", "segment-anything==1.0", "segment_anything",
           blank=("segment_anything/__init__.py",),
           note="its __init__ imports the automatic mask generator (pycocotools, cv2): emptied"),
    Source("lpips", "lpips==0.1.4", "lpips", uses=("torchvision",), stand_ins=(("tqdm/__init__.py", _TQDM),),
           note="builds its feature networks with torchvision.models (a source of its own); tqdm stands in on "
                "both sides"),
    Source("linformer", "linformer==0.2.3", "linformer"),
    Source("vector_quantize_pytorch", "vector-quantize-pytorch==1.10.4", "vector_quantize_pytorch",
           torch_needs=("einops==0.8.1",)),
    Source("rotary_embedding_torch", "rotary-embedding-torch==0.3.6", "rotary_embedding_torch",
           torch_needs=("einops==0.8.1",)),
    Source("pytorch_msssim", "pytorch-msssim==1.0.0", "pytorch_msssim"),
    # the fourth first-pass sample (bench/README, "A fourth sample"): eleven PyPI packages checked first with
    # `migrate check`; the same constructors and inputs here. nnAudio needs scipy (installed on both sides)
    Source("antialiased_cnns", "antialiased-cnns==0.3", "antialiased_cnns"),
    Source("dynamic_network_architectures", "dynamic-network-architectures==0.4.4", "dynamic_network_architectures"),
    Source("unet", "unet==0.8.1", "unet"),
    Source("asteroid_filterbanks", "asteroid-filterbanks==0.4.0", "asteroid_filterbanks"),
    Source("auraloss", "auraloss==0.4.0", "auraloss"),
    Source("nnAudio", "nnaudio==0.3.4", "nnAudio"),
    Source("bert_pytorch", "bert-pytorch==0.0.1a4", "bert_pytorch"),
    Source("torchnlp", "pytorch-nlp==0.5.0", "torchnlp"),
    Source("normflows", "normflows==1.7.3", "normflows"),
    Source("zuko", "zuko==1.6.0", "zuko"),
    Source("rtdl_revisiting_models", "rtdl-revisiting-models==0.0.2", note="one module, rtdl_revisiting_models.py"),
    # a fourth first-pass sample: research repositories (GitHub snapshots) people port by hand
    Source("convnext", "github:facebookresearch/ConvNeXt", uses=("timm",),
           note="models/ (no __init__.py) builds on timm's layers (a source of its own)"),
    Source("swin", "github:microsoft/Swin-Transformer", uses=("timm",),
           note="Swin v1, v2 and SwinMLP; models/ builds on timm's layers (a source of its own)"),
    Source("detr", "github:facebookresearch/detr", uses=("torchvision",),
           stand_ins=(("PIL/__init__.py", ""), ("PIL/Image.py", "")),
           note="its backbone is torchvision's ResNet (a source of its own); PIL (segmentation.py's import) stands "
                "in empty on both sides; scipy (the matcher) is installed"),
    Source("guided_diffusion", "github:openai/guided-diffusion"),
    Source("dino", "github:facebookresearch/dino", stand_ins=(("PIL/__init__.py", ""), ("PIL/ImageFilter.py", ""),
                                                               ("PIL/ImageOps.py", ""), ("PIL/Image.py", "")),
           note="utils.py imports PIL's ImageFilter/ImageOps (augmentations): empty stand-ins on both sides"),
    Source("mae", "github:facebookresearch/mae", uses=("timm",),
           note="written for timm 0.3.2 (Block(qk_scale=...)): no architecture builds on timm 0.9.16's torch side; "
                "converted for the file-level measures"),
    # ---- a sixth first-pass sample (bench/README.md "A sixth sample"): eleven PyPI packages nobody here
    # had converted, across vision, detection/segmentation, audio, NLP, generative and tabular/time-series code
    Source("pytorch_pretrained_vit", "pytorch-pretrained-vit==0.0.7", "pytorch_pretrained_vit"),
    Source("torchsr", "torchsr==1.0.4", "torchsr", blank=("torchsr/__init__.py",),
           note="its __init__ imports the datasets and transforms (PIL): emptied; the models are imported directly"),
    Source("face_alignment", "face-alignment==1.4.1", "face_alignment",
           blank=("face_alignment/__init__.py", "face_alignment/detection/__init__.py",
                  "face_alignment/detection/sfd/__init__.py", "face_alignment/detection/blazeface/__init__.py"),
           note="the package and detector __init__ files import the API and detectors (scikit-image, cv2, numba): "
                "emptied; the detection networks are imported directly"),
    Source("cellpose", "cellpose==3.0.10", "cellpose",
           replace=tuple((f"cellpose/{m}.py", '"""Not needed by the network (cv2, tifffile, fastremap, numba)."""')
                         for m in ("transforms", "io", "dynamics", "utils")),
           note="resnet_torch.py imports transforms, io, dynamics and utils (cv2, tifffile, natsort, fastremap, "
                "numba), none used by the network: cut down on both sides"),
    Source("vocos", "vocos==0.1.0", "vocos", uses=("encodec",), torch_needs=("einops==0.8.1",),
           stand_ins=(("huggingface_hub/__init__.py", _HF_HUB), ("yaml/__init__.py", _NO_YAML)),
           torch_stand_ins=(("torchaudio/__init__.py", _NO_TORCHAUDIO),
                            ("torchaudio/functional/functional.py", _TORCHAUDIO_MEL),
                            ("torchaudio/transforms/__init__.py", _TORCHAUDIO_TRANSFORMS)),
           note="imports encodec (a source of its own); torchaudio (mel-scale helpers, spectrogram transforms) "
                "stands in on the torch side; huggingface_hub and yaml (pretrained loading) on both sides"),
    Source("torchcrepe", "torchcrepe==0.0.22", "torchcrepe",
           stand_ins=(("librosa/__init__.py", ""), ("resampy/__init__.py", ""), ("tqdm/__init__.py", _TQDM)),
           note="its __init__ imports decoding and loudness code that needs librosa and resampy (called, never at "
                "import) and tqdm: empty stand-ins on both sides"),
    Source("pytorch_pretrained_bert", "pytorch-pretrained-bert==0.6.2", "pytorch_pretrained_bert",
           stand_ins=_DOWNLOAD_STAND_INS + (("regex/__init__.py", "from re import *  # noqa\n"),),
           note="file_utils imports boto3, botocore, requests and tqdm (weight downloads), the GPT-2 tokenizer "
                "regex: stand-ins on both sides (MindSpore's interpreter has none of them)"),
    Source("pytorch_pretrained_biggan", "pytorch-pretrained-biggan==0.1.1", "pytorch_pretrained_biggan",
           stand_ins=_DOWNLOAD_STAND_INS,
           note="file_utils imports boto3, botocore, requests and tqdm (weight downloads): stand-ins on both sides"),
    Source("nflows", "nflows==0.14", "nflows",
           stand_ins=(("matplotlib/__init__.py", ""), ("matplotlib/pyplot.py", "")),
           note="made.py imports matplotlib's pyplot at the top (a plotting helper): empty stand-ins on both sides"),
    Source("tab_transformer_pytorch", "tab-transformer-pytorch==0.3.0", "tab_transformer_pytorch",
           torch_needs=("einops==0.8.1",)),
    Source("nbeats_pytorch", "nbeats-pytorch==1.8.0", "nbeats_pytorch"),
    # ---- a seventh first-pass sample (bench/README.md "A seventh sample"): twelve PyPI packages nobody here
    # had converted, across vision, segmentation, image quality, audio, NLP, generative, tabular and graph code
    Source("res_mlp_pytorch", "res-mlp-pytorch==0.0.6", "res_mlp_pytorch", torch_needs=("einops==0.8.1",)),
    Source("pytorch_fid", "pytorch-fid==0.3.0", "pytorch_fid", uses=("torchvision",),
           stand_ins=(("PIL/__init__.py", ""), ("PIL/Image.py", ""), ("tqdm/__init__.py", _TQDM)),
           note="inception.py builds on torchvision's Inception blocks (a source of its own); fid_score.py "
                "imports PIL and tqdm (image files, progress): stand-ins on both sides"),
    Source("self_attention_cv", "self-attention-cv==1.2.3", "self_attention_cv", uses=("torchvision",),
           torch_needs=("einops==0.8.1",),
           note="R50_ViT builds on torchvision's ResNet-50 (a source of its own); einops throughout"),
    Source("piq", "piq==0.8.0", "piq", uses=("torchvision",),
           note="perceptual.py and the FID feature extractor import torchvision's VGG and Inception (a source "
                "of its own); scipy (MSID, GS) is installed on both sides"),
    Source("squeezeformer", "squeezeformer==1.0.0", "squeezeformer"),
    Source("snac", "snac==1.2.1", "snac", torch_needs=("einops==0.8.1",),
           note="huggingface_hub is imported only inside from_pretrained (never here)"),
    Source("palm_pytorch", "PaLM-pytorch==0.2.2", "palm_pytorch", torch_needs=("einops==0.8.1",),
           exclude=("palm_pytorch/triton/*",),
           note="palm_pytorch/triton (the triton kernels, a GPU compiler) left out"),
    Source("mambapy", "mambapy==1.2.0", "mambapy", exclude=("mambapy/mamba2.py", "mambapy/lm.py", "mambapy/onnx/*"),
           note="mamba2.py imports mamba_ssm's triton kernels at the top (lm.py imports mamba2): left out with the "
                "ONNX export; mamba.py, vim.py (Vision Mamba) and jamba.py are converted"),
    Source("ema_pytorch", "ema-pytorch==0.8.3", "ema_pytorch"),
    Source("deepctr_torch", "deepctr-torch==0.3.0", "deepctr_torch", exclude=("tests/*",),
           stand_ins=(("tqdm/__init__.py", _TQDM),
                      ("requests/__init__.py", "def get(*args, **kwargs):\n    raise OSError('no network here')\n"),
                      ("sklearn/__init__.py", ""),
                      ("sklearn/metrics/__init__.py",
                       "def accuracy_score(*args, **kwargs):\n"
                       "    raise ImportError('scikit-learn is not installed')\n\n\n"
                       "log_loss = mean_squared_error = roc_auc_score = accuracy_score\n")),
           note="basemodel.py imports scikit-learn's metrics (used in fit/evaluate) and tqdm, utils.py requests "
                "(a version check in a thread): stand-ins on both sides"),
    Source("torchkge", "torchkge==0.17.7", "torchkge",
           stand_ins=(("tqdm/__init__.py", _TQDM), ("tqdm/autonotebook.py", "from tqdm import tqdm  # noqa\n"),
                      ("pandas/__init__.py",
                       "class DataFrame:\n    def __init__(self, *args, **kwargs):\n"
                       "        raise ImportError('pandas is not installed (bench stand-in)')\n\n\n"
                       "concat = merge = read_csv = DataFrame\n")),
           note="its data structures and dataset loaders import pandas, its training loops tqdm: stand-ins on both "
                "sides (the models need neither)"),
    Source("graph_transformer_pytorch", "graph-transformer-pytorch==0.1.1", "graph_transformer_pytorch",
           uses=("rotary_embedding_torch",), torch_needs=("einops==0.8.1",),
           note="imports rotary-embedding-torch (a source of its own)"),
    # ---- an eighth first-pass sample (bench/README.md "An eighth sample"): PyPI packages nobody here had
    # converted, across image restoration, vision backbones, NLP, generative, audio, tabular and recommender code
    Source("spandrel", "spandrel==0.4.2", "spandrel", uses=("torchvision",), torch_needs=("einops==0.8.1",),
           stand_ins=(("safetensors/__init__.py", ""), ("safetensors/torch.py", _NO_SAFETENSORS),
                      ("PIL/__init__.py", ""), ("PIL/Image.py", _PIL_IMAGE),
                      ("PIL/ImageEnhance.py", ""), ("PIL/ImageOps.py", "")),
           note="its registry imports every architecture, LaMa's imports torchvision's transforms (a source of its "
                "own; they import PIL); its loader imports safetensors (weight files; not on the torch side here): "
                "stand-ins on both sides"),
    Source("hiera", "hiera-transformer==0.1.4", "hiera", uses=("timm",), stand_ins=(("tqdm/__init__.py", _TQDM),),
           note="builds on timm's DropPath and Mlp (a source of its own); huggingface_hub is optional (absent here)"),
    Source("curated_transformers", "curated-transformers==2.0.1", "curated_transformers",
           stand_ins=(("catalogue/__init__.py", _CATALOGUE), ("huggingface_hub/__init__.py", _HF_HUB_API),
                      ("huggingface_hub/utils.py", _HF_HUB_ERRORS), ("requests/__init__.py", _REQUESTS_ERRORS)),
           note="the package __init__ creates its model registries with catalogue, the repository module imports "
                "huggingface_hub and requests (downloads): stand-ins on both sides"),
    Source("taming", "taming-transformers==0.0.1", "taming",
           note="VQGAN's encoder, decoder, quantizer, discriminator and its GPT; models/ (pytorch_lightning), data/ "
                "(PIL, albumentations) and the LPIPS loss (torchvision) are converted but not imported"),
    Source("local_attention", "local-attention==1.9.15", "local_attention", torch_needs=("einops==0.8.1",),
           note="a dependency of torchfcpe (its conformer's local attention), converted with it"),
    Source("torchfcpe", "torchfcpe==0.0.4", "torchfcpe", uses=("local_attention",), torch_needs=("einops==0.8.1",),
           blank=("torchfcpe/__init__.py",),
           note="its __init__ imports the inference wrappers (torchaudio resampling, librosa mel filters, a bundled "
                "checkpoint): emptied; the network is imported directly"),
    Source("alias_free_torch", "alias-free-torch==0.0.6", "alias_free_torch"),
    Source("rtdl_num_embeddings", "rtdl-num-embeddings==0.0.12", note="one module, rtdl_num_embeddings.py"),
    Source("tabm", "tabm==0.0.3", uses=("rtdl_num_embeddings",),
           note="one module, tabm.py; imports rtdl-num-embeddings (a source of its own)"),
    Source("torch_rechub", "torch-rechub==0.9.0", "torch_rechub", blank=("torch_rechub/__init__.py",),
           stand_ins=(("tqdm/__init__.py", _TQDM), ("pandas/__init__.py", _NO_PANDAS),
                      ("sklearn/__init__.py", ""),
                      ("sklearn/metrics/__init__.py",
                       "def roc_auc_score(*args, **kwargs):\n"
                       "    raise ImportError('scikit-learn is not installed')\n\n\n"
                       "mean_squared_error = roc_auc_score\n"),
                      ("sklearn/preprocessing/__init__.py", "class LabelEncoder:\n    pass\n")),
           note="the package __init__ reads its installed metadata (not installed here): emptied; utils/data.py "
                "imports pandas, scikit-learn and tqdm (datasets, metrics): stand-ins on both sides"),
]


# TabNet's group_attention_matrix: one feature per group (what pytorch_tabnet.utils builds for no
# groups), a tensor of the side's own framework (torch cannot be imported on the converted side)
_TABNET_GROUPS = ("try:\n    import torch\n    G = torch.eye(8)\nexcept ImportError:\n"
                  "    G = ms.ops.eye(8, 8, ms.float32)\n")

# nnU-Net's networks take their layer classes and keyword dicts from the caller (the fourth sample)
_DNA_KW = ("conv_bias=True, norm_op=nn.InstanceNorm2d, norm_op_kwargs={'eps': 1e-5, 'affine': True}, "
           "nonlin=nn.LeakyReLU, nonlin_kwargs={'inplace': True}")


# pytorch-pretrained-vit 0.0.7's ViT reads a module global it never defines when no pretrained name is
# given (`assert not resize_positional_embedding`): the bench defines it, on both sides. Its classifier
# is initialised to zeros, so the logits would be 0 whatever the rest computes: the head is taken off
# (`del model.fc`, on both sides) and the output is every token's features
_VIT_NAME = ("import pytorch_pretrained_vit.model as _vit_model\n_vit_model.resize_positional_embedding = False\n\n\n"
             "def _without_head(model):\n    del model.fc\n    return model\n")


def x(*shape):
    """A float32 input of this shape, standard normal."""
    return {"dtype": "float32", "shape": list(shape)}


def tok(high, *shape):
    """An int64 input of this shape, uniform in [0, high)."""
    return {"dtype": "int64", "shape": list(shape), "high": high}


def u(*shape):
    """A float32 input of this shape, uniform in [0, 1) (images for the image-quality measures)."""
    return {"dtype": "float32", "shape": list(shape), "uniform": True}


# deepctr-torch's models take feature columns: three categorical columns (codes 0-2 held in the float input,
# as its fit() passes them) and two dense ones, the same columns for the linear and the deep part
_CTR_SETUP = ("from deepctr_torch.inputs import SparseFeat, DenseFeat\n"
              "_CTR_COLS = [SparseFeat('a', 3, 4), SparseFeat('b', 3, 4), SparseFeat('c', 3, 4), "
              "DenseFeat('d', 1), DenseFeat('e', 1)]\n")


def _ctr_input():
    return {"dtype": "float32", "shape": [4, 5], "int_cols": [0, 1, 2]}


# torchkge's forward: heads, tails, relations, negative heads, negative tails (20 entities, 5 relations)
_KG_TRIPLES = (tok(20, 8), tok(20, 8), tok(5, 8), tok(20, 8), tok(20, 8))


# curated-transformers: its attention mask and the configurations, float32 on the side's own framework
_CURATED = ("from curated_transformers.layers import AttentionMask\n"
            "from curated_transformers.models import ALBERTConfig, BERTConfig, FalconConfig, GPTNeoXConfig, "
            "LlamaConfig\n"
            "try:\n    import torch\n    F32 = torch.float32\nexcept ImportError:\n    F32 = ms.float32\n")

# rtdl-num-embeddings' piecewise-linear embeddings: five bins for each of three features, on the side's framework
_PLE_BINS = ("try:\n    import torch\n    BINS = [torch.linspace(-2.0, 2.0, 6) for _ in range(3)]\n"
             "except ImportError:\n    BINS = [ms.ops.linspace(-2.0, 2.0, 6) for _ in range(3)]\n")

# torch-rechub: two categorical features (codes 0-4) and a dense one, given to the model as a dict by name
_RECHUB = ("from torch_rechub.basic.features import DenseFeature, SparseFeature\n"
           "_REC_SPARSE = [SparseFeature('a', 5, 4), SparseFeature('b', 5, 4)]\n"
           "_REC_DENSE = [DenseFeature('d')]\n_REC_FEATS = _REC_SPARSE + _REC_DENSE\n"
           "_REC_MLP = {'dims': [16, 8], 'dropout': 0.0, 'activation': 'relu'}\n")
_REC_INPUTS = (tok(5, 4), tok(5, 4), x(4))
_REC_CALL = "model({'a': inputs[0], 'b': inputs[1], 'd': inputs[2]})"


@dataclass(frozen=True)
class Arch:
    """One architecture: `setup` (statements) and `ctor` (expression) run in `module`'s
    namespace on both sides; `call` is evaluated with `model` and `inputs` bound. `path` is a
    directory inside the source tree put first on sys.path (for scripts that are not packages)."""

    source: str
    module: str
    ctor: str
    inputs: tuple
    setup: str = ""
    call: str = "model(*inputs)"
    path: str = ""
    quick: bool = False

    @property
    def name(self) -> str:
        return f"{self.source}:{self.module}:{self.ctor}"


ARCHS = [
    # geffnet 1.0.2: activation/norm layers passed as values, Conv2dSame, mixed kernels, jit activations
    Arch("geffnet", "geffnet.gen_efficientnet", "mnasnet_100()", (x(2, 3, 64, 64),), quick=True),
    Arch("geffnet", "geffnet.gen_efficientnet", "efficientnet_b0()", (x(2, 3, 64, 64),)),
    Arch("geffnet", "geffnet.gen_efficientnet", "tf_efficientnet_b0()", (x(2, 3, 64, 64),)),
    Arch("geffnet", "geffnet.gen_efficientnet", "mixnet_s()", (x(2, 3, 64, 64),)),
    Arch("geffnet", "geffnet.gen_efficientnet", "mobilenetv2_100()", (x(2, 3, 64, 64),)),
    Arch("geffnet", "geffnet.gen_efficientnet", "fbnetc_100()", (x(2, 3, 64, 64),)),
    Arch("geffnet", "geffnet.gen_efficientnet", "spnasnet_100()", (x(2, 3, 64, 64),)),
    Arch("geffnet", "geffnet.mobilenetv3", "mobilenetv3_large_100()", (x(2, 3, 64, 64),), quick=True),
    Arch("geffnet", "geffnet.mobilenetv3", "tf_mobilenetv3_small_100()", (x(2, 3, 64, 64),)),
    # resnest 0.0.5 (torch): split attention, rSoftMax, avg-down, deep stem
    Arch("resnest", "resnest.torch.resnet",
         "ResNet(Bottleneck, [1, 1, 1, 1], radix=2, groups=1, bottleneck_width=64, deep_stem=True, "
         "stem_width=32, avg_down=True, avd=True, avd_first=False, num_classes=10)",
         (x(2, 3, 64, 64),), setup="from resnest.torch.resnet import ResNet, Bottleneck", quick=True),
    Arch("resnest", "resnest.torch", "resnest50()", (x(1, 3, 64, 64),)),
    Arch("resnest", "resnest.torch", "resnest50_fast_1s1x64d()", (x(1, 3, 64, 64),)),
    # pytorch-tcn 1.2.3: weight norm, causal padding, string-selected layers
    Arch("pytorch_tcn", "pytorch_tcn", "TCN(4, [8, 8], kernel_size=3, dropout=0.0)", (x(2, 4, 32),),
         quick=True),
    Arch("pytorch_tcn", "pytorch_tcn", "TCN(4, [8, 8], kernel_size=3, dropout=0.0, use_norm='batch_norm', "
         "use_skip_connections=True)", (x(2, 4, 32),)),
    Arch("pytorch_tcn", "pytorch_tcn", "TCN(4, [8, 8, 8], kernel_size=3, dropout=0.0, causal=False, "
         "use_norm='layer_norm', output_projection=3, input_shape='NLC')", (x(2, 32, 4),)),
    # pytorch-tabnet 4.1.0: ghost batch norm, sparsemax/entmax as autograd Functions whose ctx keeps
    # intermediates; forward returns (logits, sparsity loss)
    Arch("pytorch_tabnet", "pytorch_tabnet.tab_network",
         "TabNet(8, 3, n_d=8, n_a=8, n_steps=3, cat_idxs=[1, 4], cat_dims=[3, 3], cat_emb_dim=[2, 2], "
         "virtual_batch_size=4, mask_type='sparsemax', group_attention_matrix=G)",
         ({"dtype": "float32", "shape": [16, 8], "int_cols": [1, 4]},), setup=_TABNET_GROUPS),
    Arch("pytorch_tabnet", "pytorch_tabnet.tab_network",
         "TabNet(8, 3, n_d=8, n_a=8, n_steps=2, virtual_batch_size=4, mask_type='entmax', "
         "group_attention_matrix=G)", (x(16, 8),), setup=_TABNET_GROUPS),
    # monai 1.3.2 (medical imaging): layer factories keyed by name, 2-D and 3-D convolutions,
    # instance/batch norm, transposed convolutions, residual units; small 2-D and 3-D configs
    Arch("monai", "monai.networks.nets", "UNet(2, 1, 2, channels=(4, 8, 16), strides=(2, 2), num_res_units=2)",
         (x(2, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets", "UNet(3, 1, 2, channels=(4, 8), strides=(2,), num_res_units=1, norm='batch')",
         (x(1, 1, 8, 8, 8),)),
    Arch("monai", "monai.networks.nets", "BasicUNet(2, 1, 2, features=(4, 4, 8, 8, 16, 4))", (x(1, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets",
         "SegResNet(2, init_filters=8, in_channels=1, out_channels=2, blocks_down=(1, 1, 1), "
         "blocks_up=(1, 1))", (x(1, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets",
         "DenseNet121(2, 1, 3, init_features=8, growth_rate=4, block_config=(2, 2, 2, 2))",
         (x(2, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets", "AttentionUnet(2, 1, 2, channels=(4, 8, 16), strides=(2, 2))",
         (x(1, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets", "VNet(2, 1, 2)", (x(1, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets", "HighResNet(2, 1, 2)", (x(1, 1, 16, 16),)),
    Arch("monai", "monai.networks.nets",
         "ResNet('basic', [1, 1, 1, 1], [8, 16, 32, 64], spatial_dims=2, n_input_channels=1, "
         "num_classes=3)", (x(2, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets",
         "DynUNet(2, 1, 2, kernel_size=[3, 3, 3], strides=[1, 2, 2], upsample_kernel_size=[2, 2], "
         "filters=[4, 8, 16])", (x(1, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets",
         "ViT(1, (32, 32), (8, 8), hidden_size=32, mlp_dim=64, num_layers=2, num_heads=4, "
         "spatial_dims=2, classification=True, num_classes=3)", (x(2, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets",
         "UNETR(1, 2, (32, 32), feature_size=4, hidden_size=32, mlp_dim=64, num_heads=4, "
         "spatial_dims=2)", (x(1, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets", "SwinUNETR((64, 64), 1, 2, depths=(1, 1, 1, 1), num_heads=(1, 2, 2, 4), "
         "feature_size=12, spatial_dims=2)", (x(1, 1, 64, 64),)),
    Arch("monai", "monai.networks.nets",
         "SEResNet50(layers=(1, 1, 1, 1), spatial_dims=2, in_channels=1, num_classes=3)",
         (x(1, 1, 64, 64),)),
    Arch("monai", "monai.networks.nets", "AutoEncoder(2, 1, 1, channels=(4, 8), strides=(2, 2))", (x(1, 1, 16, 16),)),
    Arch("monai", "monai.networks.nets", "Classifier((1, 16, 16), 3, channels=(4, 8), strides=(2, 2))",
         (x(2, 1, 16, 16),)),
    Arch("monai", "monai.networks.nets", "BasicUNetPlusPlus(2, 1, 2, features=(4, 4, 8, 8, 16, 4))",
         (x(1, 1, 32, 32),)),
    Arch("monai", "monai.networks.nets", "RegUNet(2, 1, num_channel_initial=4, depth=2)", (x(1, 1, 16, 16),)),
    # efficientnet-pytorch 0.7.1: static same padding, custom autograd swish
    Arch("efficientnet_pytorch", "efficientnet_pytorch",
         "EfficientNet.from_name('efficientnet-b0', image_size=64, num_classes=10)", (x(2, 3, 64, 64),)),
    Arch("efficientnet_pytorch", "efficientnet_pytorch",
         "EfficientNet.from_name('efficientnet-b1', image_size=64, num_classes=10)", (x(1, 3, 64, 64),)),
    # pretrainedmodels 0.7.4 (fixed 7x7 pools: 224 inputs, reduced depths where possible)
    Arch("pretrainedmodels", "pretrainedmodels.models.senet",
         "SENet(SEResNeXtBottleneck, [1, 1, 1, 1], groups=32, reduction=16, dropout_p=None, inplanes=64, "
         "input_3x3=False, downsample_kernel_size=1, downsample_padding=0, num_classes=10)",
         (x(1, 3, 224, 224),)),
    Arch("pretrainedmodels", "pretrainedmodels.models.fbresnet", "FBResNet(Bottleneck, [1, 1, 1, 1], num_classes=10)",
         (x(1, 3, 224, 224),)),
    Arch("pretrainedmodels", "pretrainedmodels.models.cafferesnet", "ResNet(Bottleneck, [1, 1, 1, 1], num_classes=10)",
         (x(1, 3, 224, 224),)),
    Arch("pretrainedmodels", "pretrainedmodels.models.dpn",
         "DPN(small=True, num_init_features=10, k_r=128, groups=32, k_sec=(1, 1, 1, 1), inc_sec=(16, 32, 32, 64), "
         "num_classes=10, test_time_pool=True)", (x(1, 3, 224, 224),)),
    Arch("pretrainedmodels", "pretrainedmodels.models.xception", "xception(num_classes=10, pretrained=None)",
         (x(1, 3, 71, 71),)),
    Arch("pretrainedmodels", "pretrainedmodels.models.bninception", "BNInception(num_classes=10)",
         (x(1, 3, 224, 224),)),
    Arch("pretrainedmodels", "pretrainedmodels.models.nasnet_mobile", "NASNetAMobile(num_classes=10)",
         (x(1, 3, 224, 224),)),
    # timm 0.9.16 through its own factory (pretrained=False): norm/act layers resolved by name,
    # timm's trunc_normal_, fused attention, layer-scale, stochastic depth, drop path
    *[Arch("timm", "timm", f"create_model({name!r}, pretrained=False, num_classes=10{extra})", (x(2, 3, 64, 64),),
           quick=name == "resnet18")
      for name, extra in (("resnet18", ""), ("resnet26d", ""), ("convnext_atto", ""), ("efficientnet_b0", ""),
                          ("mobilenetv3_small_100", ""), ("regnetx_002", ""),
                          ("vit_tiny_patch16_224", ", img_size=64"), ("deit_tiny_patch16_224", ", img_size=64"),
                          ("ghostnet_050", ""), ("rexnet_100", ""), ("repvit_m0_9", ""), ("pvt_v2_b0", ""),
                          ("caformer_s18", ""), ("mobilevit_xxs", ""), ("hgnet_tiny", ""),
                          ("convit_tiny", ", img_size=64"))],
    # karpathy/nanoGPT, karpathy/minGPT
    Arch("nanogpt", "model", "GPT(GPTConfig(block_size=16, vocab_size=64, n_layer=2, n_head=2, n_embd=32, "
         "dropout=0.0, bias=True))", (tok(64, 2, 16),), quick=True),
    Arch("nanogpt", "model", "GPT(GPTConfig(block_size=16, vocab_size=64, n_layer=2, n_head=2, n_embd=32, "
         "dropout=0.0, bias=False))", (tok(64, 2, 16),)),
    Arch("mingpt", "mingpt.model", "GPT(C)", (tok(64, 2, 16),),
         setup="C = GPT.get_default_config(); C.model_type = 'gpt-nano'; C.vocab_size = 64; C.block_size = 16"),
    # kuangliu/pytorch-cifar (32x32 inputs; ShuffleNetG2 is left out: the original fails on torch 2.x,
    # it passes a float channel count to Conv2d)
    *[Arch("pytorch_cifar", "models", ctor, (x(2, 3, 32, 32),), quick=ctor in ("ResNet18()", "DenseNet121()"))
      for ctor in ("LeNet()", "VGG('VGG11')", "ResNet18()", "PreActResNet18()", "GoogLeNet()", "DenseNet121()",
                   "ResNeXt29_2x64d()", "MobileNet()", "MobileNetV2()", "DPN26()",
                   "SENet18()", "ShuffleNetV2(1)", "EfficientNetB0()", "RegNetX_200MF()", "SimpleDLA()",
                   "DLA()", "PNASNetA()")],
    # pytorch/examples model files
    Arch("pytorch_examples", "model", "RNNModel('LSTM', 50, 16, 16, 2, dropout=0.0)", (tok(50, 8, 2),),
         call="model(inputs[0], model.init_hidden(2))", path="word_language_model"),
    Arch("pytorch_examples", "model", "TransformerModel(50, 16, 2, 32, 2, dropout=0.0)", (tok(50, 8, 2),),
         path="word_language_model"),
    Arch("pytorch_examples", "model", "Net(upscale_factor=3)", (x(1, 1, 16, 16),), path="super_resolution"),
    Arch("pytorch_examples", "transformer_net", "TransformerNet()", (x(1, 3, 32, 32),),
         path="fast_neural_style/neural_style"),
    Arch("pytorch_examples", "llama2_model", "Transformer(ModelArgs(dim=32, n_layers=2, n_heads=4, vocab_size=64, "
         "multiple_of=16, max_seq_len=16))", (tok(64, 2, 8),), path="distributed/tensor_parallelism"),
    # kornia 0.7.3: image filters as Modules over conv2d with kernels built at run time, and local
    # feature descriptors (small CNNs, histogram pooling)
    Arch("kornia", "kornia.filters", "GaussianBlur2d((5, 5), (1.5, 1.5))", (x(1, 3, 16, 16),)),
    Arch("kornia", "kornia.filters", "Sobel()", (x(1, 3, 16, 16),)),
    Arch("kornia", "kornia.filters", "UnsharpMask((3, 3), (1.5, 1.5))", (x(1, 3, 16, 16),)),
    Arch("kornia", "kornia.filters", "MedianBlur((3, 3))", (x(1, 3, 16, 16),)),
    Arch("kornia", "kornia.feature", "SIFTDescriptor(32, 8, 4)", (x(2, 1, 32, 32),)),
    Arch("kornia", "kornia.feature", "DenseSIFTDescriptor()", (x(1, 1, 32, 32),)),
    Arch("kornia", "kornia.feature", "HardNet(False)", (x(2, 1, 32, 32),)),
    Arch("kornia", "kornia.feature", "TFeat(False)", (x(2, 1, 32, 32),)),
    Arch("kornia", "kornia.feature", "HyNet(False)", (x(2, 1, 32, 32),)),
    Arch("kornia", "kornia.feature", "MKDDescriptor(32, whitening=None)", (x(2, 1, 32, 32),)),
    # vit-pytorch 1.7.0 (lucidrains): einops patterns and layers everywhere; small configs (LocalViT is
    # left out: the original fails on torch 2.x, it applies LayerNorm to an (N, C, H, W) map)
    Arch("vit_pytorch", "vit_pytorch.vit",
         "ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),), quick=True),
    Arch("vit_pytorch", "vit_pytorch.vit",
         "ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=1, heads=2, "
         "mlp_dim=64, dim_head=16, pool='mean')",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.simple_vit",
         "SimpleViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, "
         "heads=2, mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.cait",
         "CaiT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, cls_depth=1, "
         "heads=2, mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.deepvit",
         "DeepViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.t2t",
         "T2TViT(image_size=32, num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, "
         "dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.cross_vit",
         "CrossViT(image_size=32, num_classes=10, sm_dim=32, lg_dim=48, sm_patch_size=8, "
         "sm_enc_depth=1, sm_enc_heads=2, sm_enc_mlp_dim=64, sm_enc_dim_head=16, "
         "lg_patch_size=16, lg_enc_depth=1, lg_enc_heads=2, lg_enc_mlp_dim=64, "
         "lg_enc_dim_head=16, cross_attn_depth=1, cross_attn_heads=2, "
         "cross_attn_dim_head=16, depth=1, dropout=0., emb_dropout=0.)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.max_vit",
         "MaxViT(num_classes=10, dim=16, depth=(1, 1), dim_head=8, window_size=4, "
         "dropout=0.)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.mobile_vit",
         "MobileViT(image_size=(64, 64), dims=[24, 32, 40], channels=[8, 8, 16, 16, 24, "
         "24, 32, 32, 40, 40, 64], num_classes=10, depths=(1, 1, 1))",
         (x(2, 3, 64, 64),)),
    Arch("vit_pytorch", "vit_pytorch.cct",
         "CCT(img_size=32, embedding_dim=32, n_conv_layers=1, kernel_size=3, stride=1, "
         "padding=1, pooling_kernel_size=3, pooling_stride=2, pooling_padding=1, "
         "num_layers=2, num_heads=2, mlp_ratio=2., num_classes=10, "
         "positional_embedding='learnable')",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.cvt",
         "CvT(num_classes=10, s1_emb_dim=16, s1_heads=1, s1_depth=1, s2_emb_dim=32, "
         "s2_heads=2, s2_depth=1, s3_emb_dim=48, s3_heads=2, s3_depth=1)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.levit",
         "LeViT(image_size=64, num_classes=10, dim=(32, 48, 64), depth=1, heads=(2, 2, "
         "2), mlp_mult=2, stages=3, dim_key=8, dim_value=16)",
         (x(2, 3, 64, 64),)),
    Arch("vit_pytorch", "vit_pytorch.pit",
         "PiT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=(1, 1), heads=2, "
         "mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.rvt",
         "RvT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.nest",
         "NesT(image_size=32, patch_size=4, num_classes=10, dim=16, heads=2, "
         "num_hierarchies=2, block_repeats=(1, 1), dim_head=8)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.twins_svt",
         "TwinsSVT(num_classes=10, s1_emb_dim=16, s1_local_patch_size=4, s1_global_k=4, "
         "s2_emb_dim=32, s2_local_patch_size=2, s2_global_k=2, s3_emb_dim=48, "
         "s3_local_patch_size=1, s3_global_k=1, s3_depth=1, s4_emb_dim=64, "
         "s4_local_patch_size=1, s4_global_k=1, s4_depth=1)",
         (x(2, 3, 64, 64),)),
    Arch("vit_pytorch", "vit_pytorch.crossformer",
         "CrossFormer(dim=(32, 64, 96, 128), depth=(1, 1, 1, 1), global_window_size=(2, "
         "2, 1, 1), local_window_size=2, num_classes=10)",
         (x(2, 3, 64, 64),)),
    Arch("vit_pytorch", "vit_pytorch.regionvit",
         "RegionViT(dim=(16, 32, 48, 64), depth=(1, 1, 1, 1), window_size=2, "
         "num_classes=10)",
         (x(2, 3, 64, 64),)),
    Arch("vit_pytorch", "vit_pytorch.sep_vit",
         "SepViT(num_classes=10, dim=16, depth=(1, 1), heads=(1, 2), dim_head=8)",
         (x(2, 3, 56, 56),)),
    Arch("vit_pytorch", "vit_pytorch.scalable_vit",
         "ScalableViT(num_classes=10, dim=16, depth=(1, 1), heads=(1, 2), "
         "reduction_factor=(2, 1), window_size=(4, None))",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.xcit",
         "XCiT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, cls_depth=1, "
         "heads=2, mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.vit_1d",
         "ViT(seq_len=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16)",
         (x(2, 3, 64),)),
    Arch("vit_pytorch", "vit_pytorch.vit_3d",
         "ViT(image_size=16, image_patch_size=8, frames=4, frame_patch_size=2, "
         "num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16)",
         (x(2, 3, 4, 16, 16),)),
    Arch("vit_pytorch", "vit_pytorch.simple_vit_1d",
         "SimpleViT(seq_len=64, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16)",
         (x(2, 3, 64),)),
    Arch("vit_pytorch", "vit_pytorch.simple_vit_3d",
         "SimpleViT(image_size=16, image_patch_size=8, frames=4, frame_patch_size=2, "
         "num_classes=10, dim=32, depth=2, heads=2, mlp_dim=64, dim_head=16)",
         (x(2, 3, 4, 16, 16),)),
    Arch("vit_pytorch", "vit_pytorch.vivit",
         "ViT(image_size=16, image_patch_size=8, frames=4, frame_patch_size=2, "
         "num_classes=10, dim=32, spatial_depth=1, temporal_depth=1, heads=2, mlp_dim=64, "
         "dim_head=16)",
         (x(2, 3, 4, 16, 16),)),
    Arch("vit_pytorch", "vit_pytorch.parallel_vit",
         "ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16, num_parallel_branches=2)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.vit_for_small_dataset",
         "ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.simple_vit_with_register_tokens",
         "SimpleViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, "
         "heads=2, mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.simple_vit_with_qk_norm",
         "SimpleViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, "
         "heads=2, mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.vit_with_patch_merger",
         "ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16, patch_merge_layer=1, patch_merge_num_tokens=4)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.max_vit_with_registers",
         "MaxViT(num_classes=10, dim=16, depth=(1, 1), dim_head=8, window_size=4, "
         "dropout=0.)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.vit_with_patch_dropout",
         "ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    Arch("vit_pytorch", "vit_pytorch.simple_vit_with_patch_dropout",
         "SimpleViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, "
         "heads=2, mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    # adaptive token sampling draws Gumbel noise at inference: zero on both sides, so that the
    # sampled tokens can be compared
    Arch("vit_pytorch", "vit_pytorch.ats_vit",
         "ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, "
         "max_tokens_per_depth=(12, 8), heads=2, mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),),
         setup="import vit_pytorch.ats_vit as _ats; _ats.sample_gumbel = lambda shape, device=None, dtype=None, "
               "eps=1e-6: 0.0"),
    # x-transformers 1.27.0 (lucidrains): one configurable attention stack (ViTransformerWrapper is left
    # out: the original fails, it reads a post_emb_norm it never sets)
    Arch("x_transformers", "x_transformers",
         "TransformerWrapper(num_tokens=64, max_seq_len=16, attn_layers=Decoder(dim=32, depth=2, heads=2))",
         (tok(64, 2, 16),)),
    Arch("x_transformers", "x_transformers",
         "TransformerWrapper(num_tokens=64, max_seq_len=16, attn_layers=Encoder(dim=32, depth=2, heads=2, "
         "rotary_pos_emb=True, ff_glu=True, use_rmsnorm=True))", (tok(64, 2, 16),)),
    Arch("x_transformers", "x_transformers",
         "TransformerWrapper(num_tokens=64, max_seq_len=16, attn_layers=Decoder(dim=32, depth=2, heads=2, "
         "alibi_pos_bias=True, attn_num_mem_kv=2, sandwich_norm=True))", (tok(64, 2, 16),)),
    Arch("x_transformers", "x_transformers",
         "TransformerWrapper(num_tokens=64, max_seq_len=16, attn_layers=Encoder(dim=32, depth=2, heads=2, "
         "rel_pos_bias=True, residual_attn=True, attn_talking_heads=True))", (tok(64, 2, 16),)),
    Arch("x_transformers", "x_transformers",
         "XTransformer(dim=32, enc_num_tokens=64, enc_depth=1, enc_heads=2, enc_max_seq_len=16, dec_num_tokens=64, "
         "dec_depth=1, dec_heads=2, dec_max_seq_len=16)", (tok(64, 2, 16), tok(64, 2, 16))),
    Arch("vit_pytorch", "vit_pytorch.learnable_memory_vit",
         "ViT(image_size=32, patch_size=8, num_classes=10, dim=32, depth=2, heads=2, "
         "mlp_dim=64, dim_head=16)",
         (x(2, 3, 32, 32),)),
    # pytorchcv 0.0.67: CIFAR models at 32x32, ImageNet ones at 224x224 (their final pool is fixed)
    *[Arch("pytorchcv", f"pytorchcv.models.{module}", f"{name}(pretrained=False)", (x(2, 3, 32, 32),))
      for module, name in (("resnet_cifar", "resnet20_cifar10"), ("preresnet_cifar", "preresnet20_cifar10"),
                           ("seresnet_cifar", "seresnet20_cifar10"), ("densenet_cifar", "densenet40_k12_cifar10"),
                           ("xdensenet_cifar", "xdensenet40_2_k24_bc_cifar10"), ("nin_cifar", "nin_cifar10"),
                           ("resnext_cifar", "resnext20_16x4d_cifar10"), ("diaresnet_cifar", "diaresnet20_cifar10"),
                           ("shakeshakeresnet_cifar", "shakeshakeresnet20_2x16d_cifar10"),
                           ("rir_cifar", "rir_cifar10"))],
    *[Arch("pytorchcv", f"pytorchcv.models.{module}", f"{name}(pretrained=False)", (x(1, 3, 224, 224),))
      for module, name in (("darts", "darts"), ("peleenet", "peleenet"), ("mixnet", "mixnet_s"),
                           ("vovnet", "vovnet27s"), ("alexnet", "alexnet"), ("squeezenet", "squeezenet_v1_0"),
                           ("mobilenetv3", "mobilenetv3_small_w7d20"), ("dpn", "dpn68"))],
    # openai/CLIP: the ViT and ModifiedResNet towers and the whole model (image and text)
    Arch("clip", "clip.model", "VisionTransformer(32, 8, 32, 2, 4, 16)", (x(2, 3, 32, 32),)),
    Arch("clip", "clip.model", "ModifiedResNet((1, 1, 1, 1), 32, 2, input_resolution=64, width=16)",
         (x(1, 3, 64, 64),)),
    Arch("clip", "clip.model", "CLIP(32, 32, 2, 128, 8, 16, 64, 64, 2, 2)", (x(2, 3, 32, 32), tok(64, 2, 16))),
    # ---- first-pass sources (small configurations of each package's own classes)
    # torchvision 0.28.0 models
    *[Arch("torchvision", "torchvision.models", f"{ctor}", (x(2, 3, 64, 64),))
      for ctor in ("resnet18(num_classes=10)", "mobilenet_v3_small(num_classes=10)", "efficientnet_b0(num_classes=10)",
                   "squeezenet1_1(num_classes=10)", "shufflenet_v2_x0_5(num_classes=10)",
                   "regnet_x_400mf(num_classes=10)", "mnasnet0_5(num_classes=10)",
                   "DenseNet(growth_rate=8, block_config=(2, 2), num_init_features=16, num_classes=10)")],
    Arch("torchvision", "torchvision.models",
         "VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=2, hidden_dim=32, mlp_dim=64, "
         "num_classes=10)", (x(2, 3, 32, 32),)),
    Arch("torchvision", "torchvision.models",
         "SwinTransformer(patch_size=[4, 4], embed_dim=16, depths=[2, 2], num_heads=[1, 2], window_size=[4, 4], "
         "num_classes=10)", (x(1, 3, 64, 64),)),
    Arch("torchvision", "torchvision.models",
         "ConvNeXt([CNBlockConfig(16, 32, 1), CNBlockConfig(32, None, 1)], num_classes=10)", (x(1, 3, 64, 64),),
         setup="from torchvision.models.convnext import CNBlockConfig"),
    Arch("torchvision", "torchvision.models.segmentation",
         "lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=3)", (x(1, 3, 64, 64),)),
    # demucs 4.0.1 (with julius and openunmix): waveform and hybrid models, small
    Arch("demucs", "demucs.demucs", "Demucs(['a', 'b'], audio_channels=1, channels=16, depth=2, lstm_layers=1, "
         "dconv_depth=1, dconv_attn=0, dconv_lstm=0, samplerate=8000, segment=1)", (x(1, 1, 512),)),
    Arch("demucs", "demucs.demucs", "Demucs(['a', 'b'], audio_channels=1, channels=8, depth=2, lstm_layers=0, "
         "resample=False, normalize=False, dconv_depth=2, dconv_attn=2, dconv_lstm=2, samplerate=8000, segment=1)",
         (x(1, 1, 512),)),
    Arch("demucs", "demucs.hdemucs", "HDemucs(['a', 'b'], audio_channels=1, channels=16, depth=2, nfft=64, "
         "dconv_depth=1, dconv_attn=0, dconv_lstm=0, samplerate=8000, segment=1)", (x(1, 1, 512),)),
    Arch("julius", "julius", "ResampleFrac(4, 3)", (x(2, 64),)),
    Arch("julius", "julius", "LowPassFilters([0.1, 0.25])", (x(2, 64),)),
    # segmentation-models-pytorch 0.5.0 (with torchvision and timm): encoder/decoder
    *[Arch("segmentation_models_pytorch", "segmentation_models_pytorch",
           f"{dec}('resnet18', encoder_weights=None, classes=2{extra})", (x(1, 3, 64, 64),))
      for dec, extra in (("Unet", ""), ("FPN", ""), ("Linknet", ""), ("DeepLabV3Plus", ""),
                         ("PSPNet", ", encoder_depth=3"), ("Unet", ", decoder_attention_type='scse'"))],
    Arch("segmentation_models_pytorch", "segmentation_models_pytorch",
         "Unet('mobilenet_v2', encoder_weights=None, classes=2)", (x(1, 3, 64, 64),)),
    # facenet-pytorch 2.6.0: face embeddings and the MTCNN stages
    Arch("facenet_pytorch", "facenet_pytorch.models.inception_resnet_v1",
         "InceptionResnetV1(classify=True, num_classes=10)",
         (x(1, 3, 96, 96),)),
    Arch("facenet_pytorch", "facenet_pytorch.models.mtcnn", "PNet(pretrained=False)", (x(1, 3, 24, 24),)),
    Arch("facenet_pytorch", "facenet_pytorch.models.mtcnn", "RNet(pretrained=False)", (x(2, 3, 24, 24),)),
    Arch("facenet_pytorch", "facenet_pytorch.models.mtcnn", "ONet(pretrained=False)", (x(2, 3, 48, 48),)),
    # encodec 0.1.1: SEANet encoder/decoder (weight norm, reflect padding, LSTM), residual VQ, the codec
    Arch("encodec", "encodec.modules.seanet",
         "SEANetEncoder(channels=1, dimension=16, n_filters=4, ratios=[4, 2], lstm=1)",
         (x(2, 1, 64),)),
    Arch("encodec", "encodec.modules.seanet",
         "SEANetDecoder(channels=1, dimension=16, n_filters=4, ratios=[4, 2], lstm=1)",
         (x(2, 16, 8),)),
    Arch("encodec", "encodec.modules.seanet", "SEANetEncoder(channels=2, dimension=16, n_filters=4, ratios=[2, 2], "
         "norm='time_group_norm', causal=False, lstm=0)", (x(1, 2, 32),)),
    Arch("encodec", "encodec.model",
         "EncodecModel(SEANetEncoder(channels=1, dimension=16, n_filters=4, ratios=[4, 2], lstm=1), "
         "SEANetDecoder(channels=1, dimension=16, n_filters=4, ratios=[4, 2], lstm=1), "
         "ResidualVectorQuantizer(dimension=16, n_q=4, bins=32, kmeans_init=False), [1.5], 64, 1)",
         (x(1, 1, 64),), setup="from encodec.modules import SEANetEncoder, SEANetDecoder\n"
                               "from encodec.quantization import ResidualVectorQuantizer"),
    # open_clip 2.24.0 (with torchvision): towers and the whole model
    Arch("open_clip", "open_clip.transformer", "VisionTransformer(image_size=32, patch_size=8, width=32, layers=2, "
         "heads=2, mlp_ratio=2.0, output_dim=16)", (x(2, 3, 32, 32),)),
    Arch("open_clip", "open_clip.transformer", "TextTransformer(context_length=16, vocab_size=64, width=32, heads=2, "
         "layers=2, output_dim=16)", (tok(64, 2, 16),)),
    Arch("open_clip", "open_clip.modified_resnet", "ModifiedResNet([1, 1, 1, 1], 16, 2, image_size=64, width=16)",
         (x(1, 3, 64, 64),)),
    Arch("open_clip", "open_clip.model",
         "CLIP(16, CLIPVisionCfg(layers=2, width=32, patch_size=8, image_size=32, head_width=16, mlp_ratio=2.0), "
         "CLIPTextCfg(context_length=16, vocab_size=64, width=32, heads=2, layers=2))",
         (x(2, 3, 32, 32), tok(64, 2, 16))),
    # segment-anything 1.0: image encoder (windowed attention, relative positions), prompt encoder, mask decoder
    Arch("segment_anything", "segment_anything.modeling",
         "ImageEncoderViT(img_size=64, patch_size=16, embed_dim=32, depth=2, num_heads=2, out_chans=16, "
         "use_rel_pos=True, window_size=2, global_attn_indexes=(1,))", (x(1, 3, 64, 64),)),
    Arch("segment_anything", "segment_anything.modeling",
         "PromptEncoder(embed_dim=16, image_embedding_size=(4, 4), input_image_size=(64, 64), mask_in_chans=4)",
         (x(1, 2, 2), tok(2, 1, 2), x(1, 1, 16, 16)), call="model((inputs[0], inputs[1]), None, inputs[2])"),
    Arch("segment_anything", "segment_anything.modeling",
         "MaskDecoder(transformer_dim=16, transformer=TwoWayTransformer(depth=2, embedding_dim=16, mlp_dim=32, "
         "num_heads=2), num_multimask_outputs=3, iou_head_hidden_dim=16)",
         (x(1, 16, 4, 4), x(1, 16, 4, 4), x(1, 3, 16), x(1, 16, 4, 4)), call="model(*inputs, multimask_output=True)"),
    # lpips 0.1.4 (with torchvision's feature networks), random weights
    Arch("lpips", "lpips.lpips", "LPIPS(pretrained=False, net='alex', pnet_rand=True, verbose=False)",
         (x(1, 3, 64, 64), x(1, 3, 64, 64))),
    Arch("lpips", "lpips.lpips", "LPIPS(pretrained=False, net='squeeze', pnet_rand=True, verbose=False)",
         (x(1, 3, 64, 64), x(1, 3, 64, 64))),
    # linformer 0.2.3
    Arch("linformer", "linformer", "Linformer(dim=32, seq_len=16, depth=2, k=8, heads=2)", (x(2, 16, 32),)),
    Arch("linformer", "linformer", "LinformerLM(num_tokens=64, dim=32, seq_len=16, depth=1, k=8, heads=2)",
         (tok(64, 2, 16),)),
    # vector-quantize-pytorch 1.10.4
    Arch("vector_quantize_pytorch", "vector_quantize_pytorch",
         "VectorQuantize(dim=16, codebook_size=32)", (x(2, 8, 16),)),
    Arch("vector_quantize_pytorch", "vector_quantize_pytorch",
         "ResidualVQ(dim=16, num_quantizers=2, codebook_size=32)", (x(2, 8, 16),)),
    Arch("vector_quantize_pytorch", "vector_quantize_pytorch", "FSQ(levels=[4, 4, 4])", (x(2, 8, 3),)),
    Arch("vector_quantize_pytorch", "vector_quantize_pytorch", "LFQ(dim=16, codebook_size=16)", (x(2, 8, 16),)),
    # rotary-embedding-torch 0.3.6 (buffers only)
    Arch("rotary_embedding_torch", "rotary_embedding_torch", "RotaryEmbedding(dim=16)", (x(2, 2, 8, 16),),
         call="model.rotate_queries_or_keys(inputs[0])"),
    Arch("rotary_embedding_torch", "rotary_embedding_torch",
         "RotaryEmbedding(dim=16, xpos_scale_base=64, use_xpos=True)",
         (x(2, 2, 8, 16), x(2, 2, 8, 16)), call="model.rotate_queries_and_keys(inputs[0], inputs[1])"),
    # pytorch-msssim 1.0.0
    Arch("pytorch_msssim", "pytorch_msssim", "SSIM(data_range=1.0, channel=3)", (x(1, 3, 32, 32), x(1, 3, 32, 32))),
    Arch("pytorch_msssim", "pytorch_msssim", "MS_SSIM(data_range=1.0, channel=1, win_size=3)",
         (x(1, 1, 64, 64), x(1, 1, 64, 64))),
    # the fourth first-pass sample (bench/README, "A fourth sample"), as `migrate check` built it there
    Arch("antialiased_cnns", "antialiased_cnns", "resnet18(num_classes=10)", (x(2, 3, 64, 64),)),
    Arch("antialiased_cnns", "antialiased_cnns", "mobilenet_v2(num_classes=10)", (x(2, 3, 64, 64),)),
    Arch("antialiased_cnns", "antialiased_cnns", "BlurPool(4, filt_size=3, stride=2)", (x(2, 4, 8, 8),)),
    Arch("dynamic_network_architectures", "dynamic_network_architectures.architectures.unet",
         "PlainConvUNet(1, 3, (8, 16, 32), nn.Conv2d, 3, (1, 2, 2), 2, 2, (2, 2), " + _DNA_KW + ")",
         (x(2, 1, 16, 16),)),
    Arch("dynamic_network_architectures", "dynamic_network_architectures.architectures.unet",
         "ResidualEncoderUNet(1, 3, (8, 16, 32), nn.Conv2d, 3, (1, 2, 2), (1, 1, 1), 2, (1, 1), " + _DNA_KW + ")",
         (x(2, 1, 16, 16),)),
    Arch("dynamic_network_architectures", "dynamic_network_architectures.architectures.resnet",
         "ResNet18_CIFAR(n_classes=10)", (x(2, 3, 16, 16),)),
    Arch("unet", "unet", "UNet2D(in_channels=1, out_classes=2, num_encoding_blocks=3, out_channels_first_layer=8, "
         "normalization='batch', padding=1)", (x(2, 1, 16, 16),)),
    Arch("unet", "unet", "UNet3D(in_channels=1, out_classes=2, num_encoding_blocks=2, out_channels_first_layer=4, "
         "normalization='instance', residual=True, upsampling_type='linear')", (x(1, 1, 8, 8, 8),)),
    Arch("unet", "unet", "UNet1D(in_channels=1, out_classes=2, num_encoding_blocks=3, out_channels_first_layer=8, "
         "preactivation=True, padding=1, pooling_type='avg')", (x(2, 1, 32),)),
    Arch("asteroid_filterbanks", "asteroid_filterbanks", "Encoder(FreeFB(16, 16, stride=8))", (x(2, 1, 64),)),
    Arch("asteroid_filterbanks", "asteroid_filterbanks", "Encoder(ParamSincFB(16, 17, stride=8))", (x(2, 1, 64),)),
    Arch("asteroid_filterbanks", "asteroid_filterbanks", "Encoder(STFTFB(16, 16, stride=8))", (x(2, 1, 64),)),
    Arch("asteroid_filterbanks", "asteroid_filterbanks", "Decoder(FreeFB(16, 16, stride=8))", (x(2, 16, 7),)),
    Arch("auraloss", "auraloss.freq", "MultiResolutionSTFTLoss(fft_sizes=[64, 128], hop_sizes=[16, 32], "
         "win_lengths=[32, 64])", (x(2, 1, 256), x(2, 1, 256))),
    Arch("auraloss", "auraloss.time", "SISDRLoss()", (x(2, 1, 256), x(2, 1, 256))),
    Arch("auraloss", "auraloss.time", "ESRLoss()", (x(2, 1, 256), x(2, 1, 256))),
    Arch("nnAudio", "nnAudio.features", "STFT(n_fft=64, hop_length=16, output_format='Magnitude')", (x(2, 256),)),
    Arch("nnAudio", "nnAudio.features", "MelSpectrogram(sr=8000, n_fft=64, n_mels=16, hop_length=16)", (x(2, 256),)),
    Arch("nnAudio", "nnAudio.features", "MFCC(sr=8000, n_mfcc=8, n_fft=64, n_mels=16, hop_length=16)",
         (x(2, 256),)),
    Arch("bert_pytorch", "bert_pytorch", "BERT(vocab_size=50, hidden=32, n_layers=2, attn_heads=4, dropout=0.0)",
         (tok(50, 2, 16), tok(3, 2, 16))),
    Arch("bert_pytorch", "bert_pytorch.model", "BERTLM(BERT(vocab_size=50, hidden=32, n_layers=2, attn_heads=4, "
         "dropout=0.0), 50)", (tok(50, 2, 16), tok(3, 2, 16))),
    Arch("torchnlp", "torchnlp.nn", "Attention(16)", (x(2, 3, 16), x(2, 5, 16))),
    Arch("torchnlp", "torchnlp.nn", "CNNEncoder(embedding_dim=16, num_filters=8)", (x(2, 10, 16),)),
    Arch("torchnlp", "torchnlp.nn", "WeightDropLSTM(8, 16, weight_dropout=0.0)", (x(5, 2, 8),)),
    Arch("normflows", "normflows.flows", "CoupledRationalQuadraticSpline(4, 2, 16)", (x(2, 4),)),
    Arch("normflows", "normflows.flows", "GlowBlock(4, 8)", (x(2, 4, 8, 8),)),
    Arch("normflows", "normflows.flows", "Planar((4,))", (x(2, 4),)),
    Arch("normflows", "normflows.flows", "MaskedAffineAutoregressive(4, 16)", (x(2, 4),)),
    Arch("zuko", "zuko.nn", "MLP(3, 5, hidden_features=[16, 16])", (x(2, 3),)),
    Arch("zuko", "zuko.nn", "MonotonicMLP(3, 1, hidden_features=[16, 16])", (x(2, 3),)),
    Arch("rtdl_revisiting_models", "rtdl_revisiting_models", "MLP(d_in=8, d_out=1, n_blocks=2, d_block=16, "
         "dropout=0.0)", (x(2, 8),)),
    Arch("rtdl_revisiting_models", "rtdl_revisiting_models", "ResNet(d_in=8, d_out=1, n_blocks=2, d_block=16, "
         "d_hidden=None, d_hidden_multiplier=2.0, dropout1=0.0, dropout2=0.0)", (x(2, 8),)),
    Arch("rtdl_revisiting_models", "rtdl_revisiting_models", "FTTransformer(n_cont_features=3, "
         "cat_cardinalities=[3, 3], d_out=1, n_blocks=2, d_block=16, attention_n_heads=4, attention_dropout=0.0, "
         "ffn_d_hidden=None, ffn_d_hidden_multiplier=2.0, ffn_dropout=0.0, residual_dropout=0.0)",
         (x(2, 3), tok(3, 2, 2))),
    # facebookresearch/ConvNeXt (with timm 0.9.16)
    Arch("convnext", "models.convnext", "ConvNeXt(depths=[1, 1, 2, 1], dims=[8, 16, 24, 32], num_classes=10)",
         (x(2, 3, 64, 64),)),
    Arch("convnext", "models.convnext_isotropic", "ConvNeXtIsotropic(depth=2, dim=32, num_classes=10)",
         (x(2, 3, 64, 64),)),
    # microsoft/Swin-Transformer (with timm 0.9.16)
    Arch("swin", "models.swin_transformer", "SwinTransformer(img_size=32, patch_size=4, embed_dim=16, "
         "depths=[2, 2], num_heads=[2, 4], window_size=4, num_classes=10)", (x(2, 3, 32, 32),)),
    Arch("swin", "models.swin_transformer_v2", "SwinTransformerV2(img_size=32, patch_size=4, embed_dim=16, "
         "depths=[2, 2], num_heads=[2, 4], window_size=4, num_classes=10)", (x(2, 3, 32, 32),)),
    Arch("swin", "models.swin_mlp", "SwinMLP(img_size=32, patch_size=4, embed_dim=16, depths=[2, 2], "
         "num_heads=[2, 4], window_size=4, num_classes=10)", (x(2, 3, 32, 32),)),
    # facebookresearch/detr (with torchvision 0.28.0): the transformer (a padding mask), the sine
    # position encoding over a NestedTensor, the whole detector on a ResNet-18 (no pretrained weights)
    Arch("detr", "models.transformer", "Transformer(d_model=32, nhead=4, num_encoder_layers=1, "
         "num_decoder_layers=2, dim_feedforward=64, dropout=0.0, return_intermediate_dec=True)",
         (x(2, 32, 4, 4), x(5, 32), x(2, 32, 4, 4)),
         call="model(inputs[0], inputs[0][:, 0] > 1.5, inputs[1], inputs[2])"),
    Arch("detr", "models.position_encoding", "PositionEmbeddingSine(16, normalize=True)", (x(2, 8, 6, 5),),
         setup="from util.misc import NestedTensor", call="model(NestedTensor(inputs[0], inputs[0][:, 0] > 1.5))"),
    Arch("detr", "models.detr", "DETR(backbone, Transformer(d_model=32, nhead=4, num_encoder_layers=1, "
         "num_decoder_layers=1, dim_feedforward=64, dropout=0.0), num_classes=5, num_queries=4)", (x(2, 3, 64, 64),),
         setup="import models.backbone\nmodels.backbone.is_main_process = lambda: False\n"
               "from models.backbone import Backbone, Joiner\n"
               "from models.position_encoding import PositionEmbeddingSine\n"
               "from models.transformer import Transformer\n"
               "backbone = Joiner(Backbone('resnet18', True, False, False),\n"
               "                  PositionEmbeddingSine(16, normalize=True))\n"
               "backbone.num_channels = 512  # as detr's build_backbone sets it"),
    # openai/guided-diffusion: the diffusion UNet (timestep embedding, attention, GroupNorm32)
    Arch("guided_diffusion", "guided_diffusion.unet", "UNetModel(image_size=16, in_channels=3, model_channels=32, "
         "out_channels=3, num_res_blocks=1, attention_resolutions=(2,), channel_mult=(1, 2), num_heads=2)",
         (x(2, 3, 16, 16), tok(1000, 2))),
    Arch("guided_diffusion", "guided_diffusion.unet", "UNetModel(image_size=16, in_channels=3, model_channels=32, "
         "out_channels=6, num_res_blocks=1, attention_resolutions=(2,), channel_mult=(1, 2), num_head_channels=16, "
         "use_scale_shift_norm=True, resblock_updown=True, use_new_attention_order=True, num_classes=4)",
         (x(2, 3, 16, 16), tok(1000, 2), tok(4, 2)), call="model(inputs[0], inputs[1], y=inputs[2])"),
    Arch("guided_diffusion", "guided_diffusion.unet", "EncoderUNetModel(image_size=16, in_channels=3, "
         "model_channels=32, out_channels=4, num_res_blocks=1, attention_resolutions=(2,), channel_mult=(1, 2), "
         "num_head_channels=16, pool='attention')", (x(2, 3, 16, 16), tok(1000, 2))),
    # facebookresearch/dino: its ViT and the projection head (weight-normalised last layer)
    Arch("dino", "vision_transformer", "VisionTransformer(img_size=[32], patch_size=8, embed_dim=32, depth=2, "
         "num_heads=2)", (x(2, 3, 32, 32),)),
    Arch("dino", "vision_transformer", "DINOHead(32, 64, nlayers=3, hidden_dim=48, bottleneck_dim=16)", (x(2, 32),)),
    # ---- the sixth first-pass sample (see its sources)
    # pytorch-pretrained-vit 0.0.7: ViT with a class token, 1-D position embedding, a representation layer
    Arch("pytorch_pretrained_vit", "pytorch_pretrained_vit",
         "_without_head(ViT(patches=8, dim=32, ff_dim=64, num_heads=2, "
         "num_layers=2, image_size=32, num_classes=10))", (x(2, 3, 32, 32),), setup=_VIT_NAME),
    Arch("pytorch_pretrained_vit", "pytorch_pretrained_vit",
         "_without_head(ViT(patches=8, dim=32, ff_dim=64, num_heads=4, "
         "num_layers=1, image_size=32, num_classes=5, in_channels=1, representation_size=16, load_repr_layer=True))",
         (x(2, 1, 32, 32),), setup=_VIT_NAME),
    # torchsr 1.0.4: super-resolution networks (pixel shuffle, channel attention, dense blocks)
    Arch("torchsr", "torchsr.models.edsr", "EDSR(2, 16, 2, 0.1)", (x(1, 3, 16, 16),)),
    Arch("torchsr", "torchsr.models.rcan", "RCAN(2, 2, 16, 4, 2)", (x(1, 3, 16, 16),)),
    Arch("torchsr", "torchsr.models.rdn", "RDN(2, 16, 2, 2, 8)", (x(1, 3, 16, 16),)),
    Arch("torchsr", "torchsr.models.ninasr", "NinaSR(2, 16, 3)", (x(1, 3, 16, 16),)),
    Arch("torchsr", "torchsr.models.carn", "CARN(2)", (x(1, 3, 16, 16),)),
    # face-alignment 1.4.1: the S3FD and BlazeFace face detectors
    Arch("face_alignment", "face_alignment.detection.sfd.net_s3fd", "s3fd()", (x(1, 3, 64, 64),)),
    Arch("face_alignment", "face_alignment.detection.blazeface.net_blazeface", "BlazeFace()", (x(1, 3, 128, 128),)),
    Arch("face_alignment", "face_alignment.detection.blazeface.net_blazeface", "BlazeFace(back_model=True)",
         (x(1, 3, 256, 256),)),
    # cellpose 3.0.10: the CPnet U-Net (style vector, residual down/up blocks), max and average pooling
    Arch("cellpose", "cellpose.resnet_torch", "CPnet([2, 8, 16], 3, 3)", (x(1, 2, 32, 32),)),
    Arch("cellpose", "cellpose.resnet_torch", "CPnet([2, 8, 16, 24], 3, 3, max_pool=False)", (x(1, 2, 32, 32),)),
    # vocos 0.1.0 (with encodec): ConvNeXt backbone (AdaLayerNorm conditioning), ResNet backbone, iSTFT heads
    # ("same" and "center" padding), the HiFi-GAN multi-period discriminator (weight norm); the IMDCT heads'
    # torch side fails here (scipy 1.17 has no scipy.signal.cosine)
    Arch("vocos", "vocos.models", "VocosBackbone(input_channels=16, dim=32, intermediate_dim=64, num_layers=2)",
         (x(2, 16, 20),)),
    Arch("vocos", "vocos.models", "VocosBackbone(input_channels=16, dim=32, intermediate_dim=64, num_layers=2, "
         "adanorm_num_embeddings=4)", (x(2, 16, 20), tok(4, 1)), call="model(inputs[0], bandwidth_id=inputs[1])"),
    Arch("vocos", "vocos.models", "VocosResNetBackbone(input_channels=16, dim=32, num_blocks=2)", (x(2, 16, 20),)),
    Arch("vocos", "vocos.heads", "ISTFTHead(dim=32, n_fft=64, hop_length=16)", (x(2, 20, 32),)),
    Arch("vocos", "vocos.heads", "ISTFTHead(dim=32, n_fft=64, hop_length=16, padding='center')", (x(2, 20, 32),)),
    Arch("vocos", "vocos.discriminators", "MultiPeriodDiscriminator(periods=(2, 3))", (x(2, 64), x(2, 64))),
    # torchcrepe 0.0.22: the CREPE pitch network ('tiny'), its pitch activations and its embedding
    Arch("torchcrepe", "torchcrepe.model", "Crepe('tiny')", (x(2, 1024),)),
    Arch("torchcrepe", "torchcrepe.model", "Crepe('tiny')", (x(2, 1024),), call="model(inputs[0], embed=True)"),
    # pytorch-pretrained-bert 0.6.2: BERT, GPT and GPT-2 (Transformer-XL's torch side fails on torch 2.13:
    # masked_fill_ with a uint8 mask)
    Arch("pytorch_pretrained_bert", "pytorch_pretrained_bert.modeling",
         "BertModel(BertConfig(50, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, intermediate_size=64))",
         (tok(50, 2, 8),)),
    Arch("pytorch_pretrained_bert", "pytorch_pretrained_bert.modeling",
         "BertForMaskedLM(BertConfig(50, hidden_size=32, num_hidden_layers=2, num_attention_heads=2, "
         "intermediate_size=64))", (tok(50, 2, 8), tok(2, 2, 8)), call="model(inputs[0], inputs[1])"),
    Arch("pytorch_pretrained_bert", "pytorch_pretrained_bert.modeling_gpt2",
         "GPT2LMHeadModel(GPT2Config(50, n_positions=16, n_ctx=16, n_embd=32, n_layer=2, n_head=2))",
         (tok(50, 2, 8),)),
    Arch("pytorch_pretrained_bert", "pytorch_pretrained_bert.modeling_openai",
         "OpenAIGPTModel(OpenAIGPTConfig(50, n_special=0, n_positions=16, n_ctx=16, n_embd=32, n_layer=2, "
         "n_head=2))", (tok(50, 2, 8),)),
    Arch("pytorch_pretrained_bert", "pytorch_pretrained_bert.modeling_gpt2",
         "GPT2DoubleHeadsModel(GPT2Config(50, n_positions=16, n_ctx=16, n_embd=32, n_layer=2, n_head=2))",
         (tok(50, 2, 2, 8), tok(8, 2, 2))),
    # pytorch-pretrained-biggan 0.1.1: the BigGAN generator (spectral norm, class-conditional batch norm
    # with truncation statistics, self-attention)
    Arch("pytorch_pretrained_biggan", "pytorch_pretrained_biggan.model",
         "BigGAN(BigGANConfig(output_dim=16, z_dim=16, class_embed_dim=16, channel_width=4, num_classes=10, "
         "layers=[(True, 16, 8), (True, 8, 4), (False, 4, 4), (True, 4, 2), (True, 2, 1)], "
         "attention_layer_position=2, n_stats=5))",
         (x(2, 16), x(2, 10)), call="model(inputs[0], inputs[1], 0.4)"),
    Arch("pytorch_pretrained_biggan", "pytorch_pretrained_biggan.model",
         "BigGAN(BigGANConfig(output_dim=16, z_dim=16, class_embed_dim=16, channel_width=4, num_classes=10, "
         "layers=[(True, 16, 8), (False, 8, 4), (False, 4, 2), (False, 2, 1)], attention_layer_position=1, "
         "n_stats=3))",
         (x(2, 16), x(2, 10)), call="model(inputs[0], inputs[1], 1.0)"),
    # nflows 0.14: normalizing flows (masked autoregressive, RealNVP coupling, rational-quadratic splines), MADE
    Arch("nflows", "nflows.flows", "MaskedAutoregressiveFlow(features=4, hidden_features=16, num_layers=2, "
         "num_blocks_per_layer=2)", (x(8, 4),), call="model.log_prob(inputs[0])"),
    Arch("nflows", "nflows.flows", "SimpleRealNVP(features=4, hidden_features=16, num_layers=2, "
         "num_blocks_per_layer=2)", (x(8, 4),), call="model.log_prob(inputs[0])"),
    Arch("nflows", "nflows.flows.base",
         "Flow(CompositeTransform([MaskedPiecewiseRationalQuadraticAutoregressiveTransform(features=4, "
         " hidden_features=16, num_bins=4, tails='linear', tail_bound=3.0), ReversePermutation(4)]), "
         "StandardNormal([4]))", (x(8, 4),), call="model.log_prob(inputs[0])",
         setup="from nflows.transforms import CompositeTransform, ReversePermutation\n"
               "from nflows.transforms import MaskedPiecewiseRationalQuadraticAutoregressiveTransform\n"
               "from nflows.distributions import StandardNormal"),
    Arch("nflows", "nflows.nn.nde.made", "MADE(features=4, hidden_features=16, num_blocks=2, output_multiplier=2)",
         (x(8, 4),)),
    # tab-transformer-pytorch 0.3.0 (einops): TabTransformer and FT-Transformer on categorical + continuous columns
    Arch("tab_transformer_pytorch", "tab_transformer_pytorch", "TabTransformer(categories=(3, 4, 5), "
         "num_continuous=4, dim=16, dim_out=1, depth=2, heads=2)", (tok(3, 4, 3), x(4, 4))),
    Arch("tab_transformer_pytorch", "tab_transformer_pytorch", "FTTransformer(categories=(3, 4, 5), "
         "num_continuous=4, dim=16, dim_out=2, depth=2, heads=2)", (tok(3, 4, 3), x(4, 4))),
    # nbeats-pytorch 1.8.0: N-BEATS (generic, trend and seasonality stacks; a ParameterList named `parameters`)
    Arch("nbeats_pytorch", "nbeats_pytorch.model", "NBeatsNet(stack_types=('generic', 'generic'), forecast_length=4, "
         "backcast_length=8, thetas_dim=(4, 4), nb_blocks_per_stack=2, hidden_layer_units=16)", (x(3, 8),)),
    Arch("nbeats_pytorch", "nbeats_pytorch.model", "NBeatsNet(stack_types=('trend', 'seasonality'), forecast_length=4, "
         "backcast_length=8, thetas_dim=(3, 4), nb_blocks_per_stack=1, hidden_layer_units=16)", (x(3, 8),)),
    # ---- the seventh first-pass sample (see its sources)
    # res-mlp-pytorch 0.0.6 (einops): ResMLP (affine pre-norm, per-patch Conv1d token mixing, layer scale)
    Arch("res_mlp_pytorch", "res_mlp_pytorch", "ResMLP(image_size=16, patch_size=4, dim=32, depth=2, num_classes=10)",
         (x(2, 3, 16, 16),)),
    Arch("res_mlp_pytorch", "res_mlp_pytorch", "ResMLP(image_size=16, patch_size=8, dim=16, depth=20, "
         "num_classes=5, expansion_factor=2)", (x(2, 3, 16, 16),)),
    # pytorch-fid 0.3.0: the FID Inception blocks (torchvision's Inception modules with TF's pooling)
    Arch("pytorch_fid", "pytorch_fid.inception", "FIDInceptionA(16, pool_features=8)", (x(1, 16, 9, 9),)),
    Arch("pytorch_fid", "pytorch_fid.inception", "FIDInceptionC(32, channels_7x7=8)", (x(1, 32, 9, 9),)),
    Arch("pytorch_fid", "pytorch_fid.inception", "FIDInceptionE_1(32)", (x(1, 32, 5, 5),)),
    Arch("pytorch_fid", "pytorch_fid.inception", "FIDInceptionE_2(32)", (x(1, 32, 5, 5),)),
    # self-attention-cv 1.2.3 (einops): ViT, TransUNet and UNETR segmentation, TimeSformer, axial attention,
    # bottleneck transformer
    Arch("self_attention_cv", "self_attention_cv", "ViT(img_dim=32, in_channels=3, patch_dim=8, num_classes=10, "
         "dim=32, blocks=2, heads=2, dim_linear_block=64)", (x(2, 3, 32, 32),)),
    Arch("self_attention_cv", "self_attention_cv", "TransUnet(img_dim=32, in_channels=3, classes=2, vit_blocks=1, "
         "vit_heads=2, vit_dim_linear_mhsa_block=64, vit_channels=128)", (x(1, 3, 32, 32),)),
    Arch("self_attention_cv", "self_attention_cv", "UNETR(img_shape=(16, 16, 16), input_dim=1, output_dim=2, "
         "embed_dim=32, patch_size=16, num_heads=2, ext_layers=[1, 2, 3, 4], base_filters=4, dim_linear_block=64)",
         (x(1, 1, 16, 16, 16),)),
    Arch("self_attention_cv", "self_attention_cv", "Timesformer(img_dim=16, frames=2, num_classes=5, patch_dim=8, "
         "dim=32, blocks=1, heads=2, dim_linear_block=64)", (x(2, 2, 3, 16, 16),)),
    Arch("self_attention_cv", "self_attention_cv", "AxialAttentionBlock(in_channels=8, dim=8, heads=2)",
         (x(2, 8, 8, 8),)),
    Arch("self_attention_cv", "self_attention_cv.bottleneck_transformer", "BottleneckBlock(in_channels=16, "
         "fmap_size=(8, 8), out_channels=32, proj_factor=4, heads=2)", (x(2, 16, 8, 8),)),
    # piq 0.8.0: image-quality losses (SSIM, gradient magnitude, Haar wavelets, mean deviation, phase congruency
    # by FFT, visual information fidelity, total variation) on images in [0, 1]
    Arch("piq", "piq", "SSIMLoss(data_range=1.0)", (u(2, 3, 32, 32), u(2, 3, 32, 32))),
    Arch("piq", "piq", "GMSDLoss()", (u(2, 3, 32, 32), u(2, 3, 32, 32))),
    Arch("piq", "piq", "HaarPSILoss()", (u(2, 3, 32, 32), u(2, 3, 32, 32))),
    Arch("piq", "piq", "MDSILoss()", (u(2, 3, 32, 32), u(2, 3, 32, 32))),
    Arch("piq", "piq", "FSIMLoss(chromatic=True)", (u(2, 3, 32, 32), u(2, 3, 32, 32))),
    Arch("piq", "piq", "VIFLoss()", (u(2, 1, 48, 48), u(2, 1, 48, 48))),
    Arch("piq", "piq", "TVLoss(norm_type='l1')", (u(2, 3, 16, 16),)),
    # squeezeformer 1.0.0: the Squeezeformer speech encoder (time reduction and recovery, relative attention)
    Arch("squeezeformer", "squeezeformer.model", "Squeezeformer(num_classes=10, input_dim=16, encoder_dim=32, "
         "num_encoder_layers=4, reduce_layer_index=1, recover_layer_index=3, num_attention_heads=2, "
         "conv_kernel_size=5)", (x(2, 32, 16), tok(1, 2)), call="model(inputs[0], inputs[1] + 32)"),
    # snac 1.2.1 (einops): the multi-scale neural audio codec (weight-normalised convolutions, local attention,
    # residual vector quantisation), without its noise blocks
    Arch("snac", "snac", "SNAC(encoder_dim=8, encoder_rates=[2, 2], decoder_dim=16, decoder_rates=[2, 2], "
         "attn_window_size=None, codebook_size=16, codebook_dim=4, vq_strides=[2, 1], noise=False)", (x(2, 1, 64),)),
    Arch("snac", "snac", "SNAC(encoder_dim=16, encoder_rates=[2, 2], decoder_dim=64, decoder_rates=[2, 2], "
         "attn_window_size=8, codebook_size=16, codebook_dim=4, vq_strides=[2, 1], noise=False)",
         (x(2, 1, 64),)),
    # PaLM-pytorch 0.2.2 (einops): parallel attention/feed-forward blocks, rotary embeddings, SwiGLU, tied head
    Arch("palm_pytorch", "palm_pytorch", "PaLM(dim=32, num_tokens=50, depth=2, dim_head=8, heads=2)",
         (tok(50, 2, 8),)),
    # mambapy 1.2.0: Mamba (parallel scan), Vision Mamba (bidirectional), Jamba (Mamba + attention + MoE)
    Arch("mambapy", "mambapy.mamba", "Mamba(MambaConfig(d_model=16, n_layers=2))", (x(2, 8, 16),)),
    Arch("mambapy", "mambapy.mamba", "Mamba(MambaConfig(d_model=16, n_layers=1, pscan=False, "
         "inner_layernorms=True))", (x(2, 8, 16),)),
    Arch("mambapy", "mambapy.vim", "VMamba(MambaConfig(d_model=16, n_layers=2))", (x(2, 8, 16),)),
    Arch("mambapy", "mambapy.jamba", "JambaLM(JambaLMConfig(d_model=16, n_layers=4, mlp_size=32, "
         "num_attention_heads=2, num_key_value_heads=1, num_experts=4, num_experts_per_tok=2, attn_layer_offset=1, "
         "attn_layer_period=2, expert_layer_offset=1, expert_layer_period=2, vocab_size=50))", (tok(50, 2, 8),)),
    # ema-pytorch 0.8.3: the EMA wrapper and Karras' EMA (its call is the averaged model's)
    Arch("ema_pytorch", "ema_pytorch.ema_pytorch", "EMA(nn.Sequential(nn.Linear(8, 16), nn.GELU(), nn.Linear(16, 4)), "
         "beta=0.9, update_after_step=0, update_every=1)", (x(3, 8),)),
    Arch("ema_pytorch", "ema_pytorch.ema_pytorch", "EMA(nn.Linear(8, 4), update_after_step=0, update_every=1)",
         (x(3, 8),), call="(model.update(), model.update(), model(inputs[0]))[2]"),
    # (its online model sits in a plain list, outside the module's state: the weights that reach both sides are the
    # EMA model's, copied into the online one before the update)
    Arch("ema_pytorch", "ema_pytorch.post_hoc_ema", "KarrasEMA(nn.Linear(8, 4), sigma_rel=0.05, update_every=1)",
         (x(3, 8),),
         call="(model.copy_params_from_ema_to_model(), model.update(), model(inputs[0]))[2]"),
    # deepctr-torch 0.3.0: click-through-rate models on three categorical and two dense columns
    Arch("deepctr_torch", "deepctr_torch.models", "DeepFM(_CTR_COLS, _CTR_COLS, dnn_hidden_units=(16, 8))",
         (_ctr_input(),), setup=_CTR_SETUP),
    Arch("deepctr_torch", "deepctr_torch.models", "xDeepFM(_CTR_COLS, _CTR_COLS, dnn_hidden_units=(16, 8), "
         "cin_layer_size=(8, 8))", (_ctr_input(),), setup=_CTR_SETUP),
    Arch("deepctr_torch", "deepctr_torch.models", "DCN(_CTR_COLS, _CTR_COLS, cross_num=2, dnn_hidden_units=(16, 8))",
         (_ctr_input(),), setup=_CTR_SETUP),
    Arch("deepctr_torch", "deepctr_torch.models", "AutoInt(_CTR_COLS, _CTR_COLS, att_layer_num=2, att_head_num=2, "
         "dnn_hidden_units=(16, 8))", (_ctr_input(),), setup=_CTR_SETUP),
    Arch("deepctr_torch", "deepctr_torch.models", "FiBiNET(_CTR_COLS, _CTR_COLS, dnn_hidden_units=(16, 8))",
         (_ctr_input(),), setup=_CTR_SETUP),
    # torchkge 0.17.7: knowledge-graph embeddings (translation, bilinear, convolutional), positive and negative
    # triples scored
    Arch("torchkge", "torchkge.models", "TransEModel(16, 20, 5)", _KG_TRIPLES),
    Arch("torchkge", "torchkge.models", "TransHModel(16, 20, 5)", _KG_TRIPLES),
    Arch("torchkge", "torchkge.models", "TransRModel(16, 8, 20, 5)", _KG_TRIPLES),
    Arch("torchkge", "torchkge.models", "DistMultModel(16, 20, 5)", _KG_TRIPLES),
    Arch("torchkge", "torchkge.models", "ComplExModel(16, 20, 5)", _KG_TRIPLES),
    Arch("torchkge", "torchkge.models", "ConvKBModel(16, 3, 20, 5)", _KG_TRIPLES),
    # graph-transformer-pytorch 0.1.1: graph transformer with edge features, gated residuals, rotary relative
    # positions
    Arch("graph_transformer_pytorch", "graph_transformer_pytorch", "GraphTransformer(dim=16, depth=2, dim_head=8, "
         "edge_dim=8, heads=2, with_feedforwards=True)", (x(2, 6, 16), x(2, 6, 6, 8))),
    Arch("graph_transformer_pytorch", "graph_transformer_pytorch", "GraphTransformer(dim=16, depth=1, dim_head=8, "
         "edge_dim=8, heads=2, gated_residual=False, rel_pos_emb=True)", (x(2, 6, 16), x(2, 6, 6, 8))),
    # ---- the eighth first-pass sample
    # spandrel 0.4.2: image restoration and super-resolution networks (each architecture's package exports it)
    Arch("spandrel", "spandrel.architectures.ESRGAN", "ESRGAN(in_nc=3, out_nc=3, num_filters=8, num_blocks=2, scale=2)",
         (x(1, 3, 8, 8),)),
    Arch("spandrel", "spandrel.architectures.Compact", "Compact(num_in_ch=3, num_out_ch=3, num_feat=8, num_conv=4, "
         "upscale=2)", (x(1, 3, 8, 8),)),
    Arch("spandrel", "spandrel.architectures.SwinIR", "SwinIR(img_size=16, patch_size=1, in_chans=3, embed_dim=16, "
         "depths=[2], num_heads=[2], window_size=4, mlp_ratio=2.0, upscale=2, upsampler='pixelshuffledirect', "
         "drop_path_rate=0.0)", (x(1, 3, 8, 8),)),
    Arch("spandrel", "spandrel.architectures.NAFNet", "NAFNet(img_channel=3, width=8, middle_blk_num=1, "
         "enc_blk_nums=[1, 1], dec_blk_nums=[1, 1])", (x(1, 3, 16, 16),)),
    Arch("spandrel", "spandrel.architectures.SPAN", "SPAN(num_in_ch=3, num_out_ch=3, feature_channels=8, upscale=2)",
         (x(1, 3, 8, 8),)),
    Arch("spandrel", "spandrel.architectures.DnCNN", "DnCNN(in_nc=1, out_nc=1, nc=8, nb=4)", (x(1, 1, 16, 16),)),
    Arch("spandrel", "spandrel.architectures.RCAN", "RCAN(scale=2, n_resgroups=1, n_resblocks=2, n_feats=16, "
         "reduction=4)", (u(1, 3, 8, 8),)),
    Arch("spandrel", "spandrel.architectures.SAFMN", "SAFMN(dim=8, n_blocks=2, upscaling_factor=2)",
         (x(1, 3, 16, 16),)),
    Arch("spandrel", "spandrel.architectures.OmniSR", "OmniSR(num_feat=16, window_size=4, up_scale=2)",
         (x(1, 3, 16, 16),)),
    # hiera-transformer 0.1.4: Hiera for images and for video (mask-unit attention in the first stage)
    Arch("hiera", "hiera", "Hiera(input_size=(32, 32), embed_dim=16, num_heads=1, num_classes=5, stages=(1, 1, 1), "
         "q_pool=2, mask_unit_size=(4, 4), mask_unit_attn=(True, False, False))", (x(2, 3, 32, 32),)),
    Arch("hiera", "hiera", "Hiera(input_size=(4, 32, 32), embed_dim=16, num_heads=1, num_classes=5, "
         "stages=(1, 1, 1), q_pool=2, q_stride=(1, 2, 2), mask_unit_size=(1, 4, 4), "
         "mask_unit_attn=(True, False, False), patch_kernel=(3, 7, 7), patch_stride=(2, 4, 4), "
         "patch_padding=(1, 3, 3))", (x(2, 3, 4, 32, 32),)),
    # curated-transformers 2.0.1: encoders and causal LMs from their configurations (float32; the decoders'
    # configurations default to float16 / bfloat16), every piece attended
    Arch("curated_transformers", "curated_transformers.models.bert.encoder",
         "BERTEncoder(BERTConfig(embedding_width=16, hidden_width=16, intermediate_width=32, n_attention_heads=2, "
         "n_hidden_layers=2, n_pieces=50, n_positions=16, hidden_dropout_prob=0.0, "
         "attention_probs_dropout_prob=0.0))", (tok(50, 2, 8),), setup=_CURATED,
         call="model(inputs[0], AttentionMask(inputs[0] >= 0)).last_hidden_layer_state"),
    Arch("curated_transformers", "curated_transformers.models.albert.encoder",
         "ALBERTEncoder(ALBERTConfig(embedding_width=8, hidden_width=16, intermediate_width=32, n_attention_heads=2, "
         "n_hidden_layers=2, n_pieces=50, n_positions=16, hidden_dropout_prob=0.0, "
         "attention_probs_dropout_prob=0.0))", (tok(50, 2, 8),), setup=_CURATED,
         call="model(inputs[0], AttentionMask(inputs[0] >= 0)).last_hidden_layer_state"),
    Arch("curated_transformers", "curated_transformers.models.gpt_neox.causal_lm",
         "GPTNeoXCausalLM(GPTNeoXConfig(dtype=F32, hidden_width=16, intermediate_width=32, n_attention_heads=2, "
         "n_hidden_layers=2, n_pieces=50, n_positions=16, rotary_embedding_fraction=0.5))", (tok(50, 2, 8),),
         setup=_CURATED, call="model(inputs[0], AttentionMask(inputs[0] >= 0)).logits"),
    Arch("curated_transformers", "curated_transformers.models.llama.causal_lm",
         "LlamaCausalLM(LlamaConfig(dtype=F32, hidden_width=16, intermediate_width=32, n_query_heads=4, "
         "n_key_value_heads=2, n_hidden_layers=2, n_pieces=50, rotary_embedding_fraction=1.0))", (tok(50, 2, 8),),
         setup=_CURATED, call="model(inputs[0], AttentionMask(inputs[0] >= 0)).logits"),
    Arch("curated_transformers", "curated_transformers.models.falcon.causal_lm",
         "FalconCausalLM(FalconConfig(dtype=F32, hidden_width=16, n_query_heads=4, n_key_value_heads=1, "
         "n_hidden_layers=2, n_pieces=50, rotary_embedding_fraction=0.5))", (tok(50, 2, 8),),
         setup=_CURATED, call="model(inputs[0], AttentionMask(inputs[0] >= 0)).logits"),
    # taming-transformers 0.0.1: VQGAN's encoder, decoder, quantizer and patch discriminator, the diffusion
    # U-Net of the same file, and the transformer over codes
    Arch("taming", "taming.modules.diffusionmodules.model", "Encoder(ch=32, out_ch=3, ch_mult=(1, 2), "
         "num_res_blocks=1, attn_resolutions=[8], in_channels=3, resolution=16, z_channels=8, double_z=False)",
         (x(2, 3, 16, 16),)),
    Arch("taming", "taming.modules.diffusionmodules.model", "Decoder(ch=32, out_ch=3, ch_mult=(1, 2), "
         "num_res_blocks=1, attn_resolutions=[8], in_channels=3, resolution=16, z_channels=8)", (x(2, 8, 8, 8),)),
    Arch("taming", "taming.modules.diffusionmodules.model", "Model(ch=32, out_ch=3, ch_mult=(1, 2), "
         "num_res_blocks=1, attn_resolutions=[8], in_channels=3, resolution=16)", (x(2, 3, 16, 16), tok(1000, 2))),
    Arch("taming", "taming.modules.vqvae.quantize", "VectorQuantizer(16, 8, 0.25)", (x(2, 8, 4, 4),)),
    Arch("taming", "taming.modules.discriminator.model", "NLayerDiscriminator(input_nc=3, ndf=8, n_layers=2)",
         (x(2, 3, 32, 32),)),
    Arch("taming", "taming.modules.discriminator.model", "NLayerDiscriminator(input_nc=3, ndf=8, n_layers=2, "
         "use_actnorm=True)", (x(2, 3, 32, 32),)),
    Arch("taming", "taming.modules.transformer.mingpt", "GPT(vocab_size=50, block_size=16, n_layer=2, n_head=2, "
         "n_embd=32)", (tok(50, 2, 8),)),
    # torchfcpe 0.0.4: the pitch estimator's network (a conformer over mel frames)
    Arch("torchfcpe", "torchfcpe.models", "CFNaiveMelPE(input_channels=16, out_dims=20, hidden_dims=32, n_layers=2, "
         "n_heads=4)", (x(2, 12, 16),)),
    Arch("torchfcpe", "torchfcpe.models", "CFNaiveMelPE(input_channels=16, out_dims=20, hidden_dims=32, n_layers=2, "
         "n_heads=4, use_fa_norm=True, conv_only=True)", (x(2, 12, 16),)),
    # alias-free-torch 0.0.6: anti-aliased activations and resampling (1-D and 2-D)
    Arch("alias_free_torch", "alias_free_torch.act", "Activation1d(nn.SiLU())", (x(2, 4, 32),)),
    Arch("alias_free_torch", "alias_free_torch.act", "Activation2d(nn.GELU())", (x(2, 4, 16, 16),)),
    Arch("alias_free_torch", "alias_free_torch.resample", "UpSample1d(ratio=2)", (x(2, 4, 32),)),
    Arch("alias_free_torch", "alias_free_torch.resample", "DownSample2d(ratio=2)", (x(2, 4, 16, 16),)),
    # rtdl-num-embeddings 0.0.12 and tabm 0.0.3: embeddings of numerical features, TabM's ensembles
    Arch("rtdl_num_embeddings", "rtdl_num_embeddings", "PeriodicEmbeddings(3, 8, n_frequencies=6, lite=False)",
         (x(4, 3),)),
    Arch("rtdl_num_embeddings", "rtdl_num_embeddings", "PeriodicEmbeddings(3, 8, n_frequencies=6, lite=True)",
         (x(4, 3),)),
    Arch("rtdl_num_embeddings", "rtdl_num_embeddings", "LinearReLUEmbeddings(3, 8)", (x(4, 3),)),
    Arch("rtdl_num_embeddings", "rtdl_num_embeddings", "PiecewiseLinearEmbeddings(BINS, 8, activation=True, "
         "version='B')", (x(4, 3),), setup=_PLE_BINS),
    Arch("tabm", "tabm", "TabM.make(n_num_features=3, cat_cardinalities=[3, 2], d_out=2, k=4, n_blocks=2, "
         "d_block=16, dropout=0.0)", (x(4, 3), tok(2, 4, 2))),
    Arch("tabm", "tabm", "TabM.make(n_num_features=3, d_out=2, k=4, n_blocks=2, d_block=16, dropout=0.0, "
         "arch_type='tabm-mini')", (x(4, 3),)),
    # torch-rechub 0.9.0: ranking, matching and multi-task recommenders over two sparse and one dense feature
    Arch("torch_rechub", "torch_rechub.models.ranking.deepfm", "DeepFM(deep_features=_REC_FEATS, "
         "fm_features=_REC_SPARSE, mlp_params=_REC_MLP)", _REC_INPUTS, setup=_RECHUB, call=_REC_CALL),
    Arch("torch_rechub", "torch_rechub.models.ranking.dcn", "DCN(features=_REC_FEATS, n_cross_layers=2, "
         "mlp_params=_REC_MLP)", _REC_INPUTS, setup=_RECHUB, call=_REC_CALL),
    Arch("torch_rechub", "torch_rechub.models.ranking.widedeep", "WideDeep(wide_features=_REC_DENSE, "
         "deep_features=_REC_SPARSE, mlp_params=_REC_MLP)", _REC_INPUTS, setup=_RECHUB, call=_REC_CALL),
    Arch("torch_rechub", "torch_rechub.models.ranking.autoint", "AutoInt(sparse_features=_REC_SPARSE, "
         "dense_features=_REC_DENSE, num_layers=2, num_heads=2, mlp_params=_REC_MLP)", _REC_INPUTS, setup=_RECHUB,
         call=_REC_CALL),
    Arch("torch_rechub", "torch_rechub.models.multi_task.mmoe", "MMOE(features=_REC_FEATS, "
         "task_types=['classification', 'classification'], n_expert=2, expert_params={'dims': [8]}, "
         "tower_params_list=[{'dims': [4]}, {'dims': [4]}])", _REC_INPUTS, setup=_RECHUB, call=_REC_CALL),
]


@dataclass(frozen=True)
class Script:
    """A training script run for a step or two on synthetic data made by `data` (a function name
    below), from a copy of `cwd` inside the source tree; `path` entries go on PYTHONPATH."""

    source: str
    script: str
    args: tuple
    cwd: str = ""
    data: str = ""
    path: tuple = ()
    quick: bool = False
    compare: bool = True   # trace both runs and compare losses/steps (migrate/check/script_trace.py)
    original_path: tuple = ()  # extra import paths of the original side only (bench/standins)
    dropout: bool = True   # False: dropout is the identity on both sides (no flag in the script)


_NO_DROPOUT = ("--model.embd_pdrop=0.0", "--model.resid_pdrop=0.0", "--model.attn_pdrop=0.0")
SCRIPTS = [
    Script("pytorch_examples", "regression/main.py", (), cwd="regression", quick=True),
    Script("pytorch_examples", "word_language_model/main.py",
           ("--data", "data/tiny", "--epochs", "1", "--emsize", "16", "--nhid", "16", "--nlayers", "1",
            "--bptt", "8", "--batch_size", "4", "--dropout", "0", "--dry-run", "--save", "model.pt"),
           cwd="word_language_model", data="words"),
    Script("pytorch_examples", "word_language_model/main.py",
           ("--data", "data/tiny", "--model", "Transformer", "--epochs", "1", "--emsize", "16", "--nhid", "16",
            "--nlayers", "1", "--bptt", "8", "--batch_size", "4", "--dropout", "0", "--dry-run", "--save",
            "model.pt"),
           cwd="word_language_model", data="words"),
    # torchvision does not import beside this torch: the original side reads the synthetic idx files
    # through bench/standins/torchvision (torchvision's documented MNIST / ToTensor / Normalize)
    Script("pytorch_examples", "mnist/main.py",
           ("--epochs", "2", "--batch-size", "16", "--test-batch-size", "20", "--no-accel", "--log-interval", "1"),
           cwd="mnist", data="mnist", original_path=(str(Path(__file__).resolve().parent / "standins"),)),
    Script("nanogpt", "train.py",
           ("--dataset=tiny", "--device=cpu", "--compile=False", "--dtype=float32", "--max_iters=2",
            "--eval_interval=1000", "--eval_iters=1", "--log_interval=1", "--batch_size=2", "--block_size=16",
            "--n_layer=1", "--n_head=2", "--n_embd=16", "--gradient_accumulation_steps=1",
            "--always_save_checkpoint=False", "--out_dir=out"), data="tokens", quick=True),
    Script("nanogpt", "train.py",
           ("--dataset=tiny", "--device=cpu", "--compile=False", "--dtype=float32", "--max_iters=2",
            "--eval_interval=1000", "--eval_iters=1", "--log_interval=1", "--batch_size=2", "--block_size=16",
            "--n_layer=1", "--n_head=2", "--n_embd=16", "--gradient_accumulation_steps=3", "--grad_clip=0.5",
            "--always_save_checkpoint=False", "--out_dir=out"), data="tokens"),
    Script("mingpt", "projects/adder/adder.py",
           ("--trainer.max_iters=2", "--trainer.num_workers=0", "--trainer.batch_size=4",
            "--system.work_dir=out", *_NO_DROPOUT), cwd="projects/adder", path=("",)),
    Script("mingpt", "projects/chargpt/chargpt.py",
           ("--trainer.max_iters=2", "--trainer.num_workers=0", "--trainer.batch_size=4",
            "--model.model_type=gpt-nano", "--data.block_size=16", "--system.work_dir=out", *_NO_DROPOUT),
           cwd="projects/chargpt", data="text", path=("",)),
]


# ---- the places that import migrate internals (the weight map, the converted constructor) ------

def weight_map():
    """The checker's torch -> ms weight map module (migrate/check/weights.py after the
    restructuring, migrate/weights.py before it). Used: `transfer(torch_module, ms_cell)` ->
    report with `.ok` and `.problems()`."""
    import importlib
    errors = []
    for name in ("migrate.check.weights", "migrate.weights"):
        try:
            return importlib.import_module(name)
        except ImportError as exc:
            errors.append(f"{name}: {exc}")
    raise ImportError("no weight map found: " + "; ".join(errors))


_CONVERTERS: dict = {}


def converted_ctor(arch: Arch, staged: Path, target: str) -> dict:
    """The spec fields of a converted side: the constructor expression as the converted module writes
    it (a class value such as `nn.Conv2d` becomes what the converter makes of it, as `migrate check`
    converts its --model text: migrate/check/expression.py) and, before the setup, the imports it
    needs. {} when the module cannot be found here (the expression is then evaluated as written)."""
    from cli import _converter  # the converter `migrate check` is handed
    from migrate.check.expression import converted_expression
    from migrate.check.loader import LoadError, from_module
    if target not in _CONVERTERS:
        _CONVERTERS[target] = _converter(target)
    try:
        src = from_module(arch.module, str(staged / arch.path if arch.path else staged))
    except LoadError:
        return {}
    done = converted_expression(src, arch.ctor, _CONVERTERS[target])
    return {"ctor": done.code, "setup": "".join(f"{line}\n" for line in done.imports) + arch.setup}


# ---- fetching ---------------------------------------------------------------------------------

def _archive_stem(name: str) -> str:
    for ext in (".whl", ".tar.gz", ".zip", ".tar.bz2"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def _matches_spec(filename: str, spec: str) -> bool:
    pkg, ver = spec.split("==")
    norm = re.sub(r"[-_.]+", "_", pkg).lower()
    stem = re.sub(r"[-_.]+", "_", _archive_stem(filename)).lower()
    want = f"{norm}_{re.sub(r'[-_.]+', '_', ver)}"
    return stem == want or stem.startswith(want + "_")


def fetch_pypi(spec: str, cache: Path, dl_dirs: list) -> Path:
    """The unpacked root of `pkg==ver`: from the cache, a --dl-dir archive, or pip download."""
    archives = cache / "dl"
    archives.mkdir(parents=True, exist_ok=True)
    found = [p for p in archives.iterdir() if _matches_spec(p.name, spec)]
    for d in dl_dirs:
        if not found and Path(d).is_dir():
            for p in Path(d).iterdir():
                if _matches_spec(p.name, spec):
                    shutil.copy2(p, archives / p.name)
                    found = [archives / p.name]
                    break
    if not found:
        subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "-d", str(archives), spec], check=True,
                       stdout=subprocess.DEVNULL)
        found = [p for p in archives.iterdir() if _matches_spec(p.name, spec)]
        if not found:
            raise RuntimeError(f"pip download {spec} produced no archive in {archives}")
    archive = sorted(found)[0]
    dest = cache / "src" / _archive_stem(archive.name)
    if not dest.is_dir():
        tmp = dest.with_name(dest.name + ".part")
        shutil.rmtree(tmp, ignore_errors=True)
        if archive.name.endswith((".whl", ".zip")):
            with zipfile.ZipFile(archive) as z:
                z.extractall(tmp)
        else:
            with tarfile.open(archive) as t:
                t.extractall(tmp, filter="data")
        inner = list(tmp.iterdir())  # sdists hold one top directory
        if archive.name.endswith((".tar.gz", ".tar.bz2")) and len(inner) == 1 and inner[0].is_dir():
            inner[0].rename(dest)
            shutil.rmtree(tmp)
        else:
            tmp.rename(dest)
    return dest


def source_root(src: Source, cache: Path, dl_dirs: list, snapshots: Path | None) -> Path | None:
    """The unpacked directory of a source (None: a snapshot that is not there)."""
    if src.spec.startswith("github:"):
        owner, repo = src.spec[len("github:"):].split("/")
        d = snapshots / f"gh_{owner}+{repo}" if snapshots else None
        return d if d and d.is_dir() else None
    return fetch_pypi(src.spec, cache, dl_dirs)


def stage(src: Source, root: Path, dest: Path) -> list[Path]:
    """Copy the source's Python files (minus `exclude`, with `blank` emptied) to `dest`.
    Returns the staged .py files."""
    tree = root / src.tree if src.tree else root
    base = tree.parent if src.tree else tree
    out = dest / src.tree if src.tree else dest
    shutil.rmtree(dest, ignore_errors=True)
    files = []
    for p in sorted(tree.rglob("*.py")):
        rel = p.relative_to(base).as_posix()
        if any(part.startswith(".") for part in Path(rel).parts):
            continue
        if any(fnmatch.fnmatch(rel, pat) for pat in src.exclude):
            continue
        target = out / p.relative_to(tree)
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel in src.blank:
            target.write_text("# emptied by bench/realworld.py: the original imports modules that "
                              "cannot be imported here\n")
        elif rel in dict(src.replace):
            target.write_text("# cut down by bench/realworld.py: the original imports modules that "
                              "cannot be imported here\n" + dict(src.replace)[rel] + "\n")
        else:
            shutil.copy2(p, target)
        files.append(target)
    return files


# ---- static measures --------------------------------------------------------------------------

def _base_names(node: ast.ClassDef) -> list[str]:
    names = []
    for b in node.bases:
        while isinstance(b, ast.Subscript):
            b = b.value
        if isinstance(b, ast.Attribute):
            parts = []
            while isinstance(b, ast.Attribute):
                parts.append(b.attr)
                b = b.value
            if isinstance(b, ast.Name):
                parts.append(b.id)
            names.append(".".join(reversed(parts)))
        elif isinstance(b, ast.Name):
            names.append(b.id)
    return names


def _torch_nn_aliases(tree: ast.Module) -> tuple[set, set]:
    """(names bound to torch / torch.nn modules, names bound to torch.nn classes)."""
    modules, classes = {"torch.nn"}, set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name in ("torch", "torch.nn"):
                    modules.add(a.asname or a.name)
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "torch":
            for a in node.names:
                if node.module == "torch" and a.name == "nn":
                    modules.add(a.asname or "nn")
                elif node.module.startswith("torch.nn"):
                    classes.add(a.asname or a.name)
    return modules, classes


def model_files(files: list[Path]) -> set[Path]:
    """Files that define a subclass of a torch.nn class, directly or through a class of the same
    source tree (matched by name)."""
    parsed, local_bases = {}, {}
    for p in files:
        try:
            tree = ast.parse(p.read_text(encoding="utf-8", errors="replace"))
        except SyntaxError:
            continue
        parsed[p] = tree
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                local_bases.setdefault(node.name, []).append(_base_names(node))
    is_module = set()
    for p, tree in parsed.items():
        mods, classes = _torch_nn_aliases(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef):
                for b in _base_names(node):
                    head = b.rsplit(".", 1)[0] if "." in b else ""
                    # "nn.X" counts without an import too: names reached through star imports
                    if (head and (head in mods or head == "nn" or head.startswith("torch.nn")
                                  or head.endswith(".nn"))) or b in classes:
                        is_module.add(node.name)
    changed = True
    while changed:  # local subclasses of local modules
        changed = False
        for name, bases_list in local_bases.items():
            if name not in is_module and any(b.rsplit(".", 1)[-1] in is_module for bases in bases_list
                                             for b in bases):
                is_module.add(name)
                changed = True
    out = set()
    for p, tree in parsed.items():
        mods, classes = _torch_nn_aliases(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name in is_module:
                bases = _base_names(node)
                direct = any((b.rsplit(".", 1)[0] in mods or b.startswith(("torch.nn", "nn.")) or b in classes
                              or b.rsplit(".", 1)[-1] in is_module) for b in bases)
                if direct:
                    out.add(p)
                    break
    return out


def count_lines(files) -> int:
    return sum(p.read_text(encoding="utf-8", errors="replace").count("\n") for p in files)


def run_cli_convert(src_dir, out_dir: Path, jobs: int, report: Path | None,
                    target: str = "ms_core") -> tuple[float, int, str]:
    """`migrate convert src_dir -o out_dir -j jobs --target target [--report report]` through the
    CLI: (wall seconds, exit code, stderr tail). A list of directories is several sources in one
    run (`migrate convert SRC DEP... -o OUT`: each into OUT/<its name>)."""
    shutil.rmtree(out_dir, ignore_errors=True)
    dirs = [str(d) for d in src_dir] if isinstance(src_dir, (list, tuple)) else [str(src_dir)]
    cmd = [sys.executable, str(ROOT / "cli.py"), "convert", *dirs, "-o", str(out_dir), "-j", str(jobs), "-q",
           "--target", target]
    if report is not None:
        cmd += ["--report", str(report)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    return time.perf_counter() - t0, proc.returncode, proc.stderr[-2000:]


def imports_torch(tree: ast.Module) -> bool:
    """True when the module imports torch (or a torch-only package) somewhere where a missing
    torch raises: not inside a ``try`` that catches ImportError (the converter's guards, a
    user's optional import), which is how converted code keeps torch for marked code only."""
    def unguarded(body) -> bool:
        for node in body:
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] in BLOCKED for a in node.names):
                return True
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                    and node.module.split(".")[0] in BLOCKED:
                return True
            if isinstance(node, ast.Try) and any(_catches_import_error(h) for h in node.handlers):
                blocks = [h.body for h in node.handlers] + [node.orelse, node.finalbody]
            else:
                blocks = [getattr(node, f) for f in ("body", "orelse", "finalbody") if
                          isinstance(getattr(node, f, None), list)]
                blocks += [h.body for h in getattr(node, "handlers", ())]
            if any(unguarded(b) for b in blocks):
                return True
        return False
    return unguarded(tree.body)


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(getattr(k, "id", getattr(k, "attr", "")) in
               ("ImportError", "ModuleNotFoundError", "Exception", "BaseException") for k in kinds)


def static_checks(staged: Path, converted: Path, again: Path, files: list[Path]) -> dict:
    """Parse, idempotence and marker counts over the converted tree."""
    mfiles = model_files(files)
    res = {"files": len(files), "lines": count_lines(files), "model_files": len(mfiles),
           "model_files_marked": 0, "other_files_marked": 0, "parse_failures": [], "not_idempotent": [],
           "importing_torch": [], "runtime_copies": [],
           "markers_model_files": {}, "markers_all": {}, "marked_model_files": {},
           "no_counterpart_files": []}
    for p in files:
        rel = p.relative_to(staged)
        out = converted / rel
        if not out.exists():
            res["parse_failures"].append(f"{rel}: no output")
            continue
        text = out.read_text(encoding="utf-8", errors="replace")
        try:
            if imports_torch(ast.parse(text)):
                res["importing_torch"].append(str(rel))
        except SyntaxError as exc:
            res["parse_failures"].append(f"{rel}: {exc.msg} (line {exc.lineno})")
        second = again / rel
        if not second.exists() or second.read_text(encoding="utf-8", errors="replace") != text:
            res["not_idempotent"].append(str(rel))
        ids = MARKER_RE.findall(text)
        if p not in mfiles and ids:
            res["other_files_marked"] += 1
        for i in ids:
            res["markers_all"][i] = res["markers_all"].get(i, 0) + 1
        if p in mfiles and ids:
            res["model_files_marked"] += 1
            res["marked_model_files"][str(rel)] = sorted(set(ids))
            if no_counterpart_only(text):
                res["no_counterpart_files"].append(str(rel))
            for i in ids:
                res["markers_model_files"][i] = res["markers_model_files"].get(i, 0) + 1
    # the runtime copies the conversion wrote: the second conversion writes the same ones
    from migrate.convert.runtime_files import is_written_runtime
    copies = [d.parent for d in converted.rglob("__init__.py") if is_written_runtime(d.parent)]
    res["runtime_copies"] = sorted(str(d.relative_to(converted)) for d in copies)
    for d in copies:
        for f in d.glob("*.py"):
            second = again / f.relative_to(converted)
            if not second.exists() or second.read_bytes() != f.read_bytes():
                res["not_idempotent"].append(str(f.relative_to(converted)))
    return res


def report_errors(report: Path) -> list[str]:
    """Files the converter reported as failed (from the JSON report)."""
    try:
        data = json.loads(report.read_text())
    except (OSError, ValueError):
        return ["(no report)"]
    return [f"{f['path']}: {f['error']}" for f in data.get("files", []) if f.get("error")]


# ---- child processes: torch side and ms side ---------------------------------------------------

class _NoTorch:
    """A meta-path finder that makes torch (and friends) impossible to import; `allow` are the
    top-level names of converted sources on the path (a converted torchvision)."""

    def __init__(self, allow=()):
        self.allow = set(allow)

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED and name.split(".")[0] not in self.allow:
            raise ImportError(f"import of '{name}' blocked: converted code must not need torch")
        return None


def _first_line(exc: BaseException) -> str:
    # MindSpore frames its messages with '----' lines and a 'C++ Call Stack' section
    text = [ln.strip() for ln in str(exc).strip().splitlines()
            if any(c.isalpha() for c in ln) and "Call Stack" not in ln]
    return f"{type(exc).__name__}: {text[0] if text else ''}".strip()


def _where(exc: BaseException, tree: str) -> str:
    """The innermost traceback frame inside `tree`: 'file:line: code'."""
    found = ""
    for fr in traceback.extract_tb(exc.__traceback__):
        if fr.filename.startswith(tree):
            found = f"{os.path.relpath(fr.filename, tree)}:{fr.lineno}: {(fr.line or '').strip()}"
    return found


def _make_inputs(specs):
    import numpy as np
    rng = np.random.default_rng(0)
    out = []
    for s in specs:
        if s["dtype"] == "int64":
            out.append(rng.integers(0, s["high"], size=s["shape"]).astype(np.int64))
        elif s.get("uniform"):
            out.append(rng.random(s["shape"]).astype(np.float32))
        else:
            out.append(rng.standard_normal(s["shape"]).astype(np.float32))
            for col in s.get("int_cols", ()):  # categorical codes held in a float tensor (TabNet)
                out[-1][:, col] = rng.integers(0, 3, size=s["shape"][0])
    return out


def _flatten(obj, to_numpy):
    if obj is None:
        return []
    if isinstance(obj, (tuple, list)):
        return [a for o in obj for a in _flatten(o, to_numpy)]
    if isinstance(obj, dict):
        return [a for k in obj for a in _flatten(obj[k], to_numpy)]
    arr = to_numpy(obj)
    return [] if arr is None else [arr]


def _build(arch: dict, tree: str):
    """Import the architecture's module from `tree`: (module, a copy of its namespace)."""
    import importlib
    sys.path.insert(0, os.path.join(tree, arch["path"]) if arch["path"] else tree)
    mod = importlib.import_module(arch["module"])
    ns = dict(vars(mod))
    return mod, ns


def _fill_uninitialised(model, torch) -> None:
    """Give the weights a package leaves uninitialised (``nn.Parameter(torch.Tensor(n))``, meant to be loaded
    from a checkpoint) seeded values in [0, 1), so that a row compares the same computation every run
    instead of the allocator's leftovers (at times inf, NaN or 1e16). The caller builds the model in
    deterministic mode, where such memory is NaN; a NaN is what is replaced (an inf mask is kept)."""
    gen = torch.Generator().manual_seed(0)
    with torch.no_grad():
        for t in list(model.parameters()) + list(model.buffers()):
            if t.is_floating_point() and t.numel():
                unset = torch.isnan(t)
                if unset.any():
                    t[unset] = torch.rand(t.shape, generator=gen, dtype=t.dtype)[unset]


def child_torch(arch: dict, tree: str, out: str) -> dict:
    """Build with PyTorch, save values, inputs, outputs and the module structure."""
    import numpy as np
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(1)
    sys.path[:0] = arch.get("torch_paths", [])
    _, ns = _build(arch, tree)
    exec(arch["setup"], ns)
    # uninitialised memory (torch.Tensor(n), torch.empty) is NaN in deterministic mode: see _fill_uninitialised
    torch.use_deterministic_algorithms(True, warn_only=True)
    model = eval(arch["ctor"], ns)
    torch.use_deterministic_algorithms(False)
    model.eval()
    _fill_uninitialised(model, torch)
    inputs = _make_inputs(arch["inputs"])
    # copies: a forward that writes its input in place (spandrel's RCAN: x *= self.rgb_range) must not change
    # the inputs saved for the other side (torch.from_numpy shares their memory)
    ns.update(model=model, inputs=[torch.from_numpy(a.copy()) for a in inputs])
    with torch.no_grad():
        outputs = eval(arch["call"], ns)
    outs = _flatten(outputs, lambda t: t.detach().cpu().numpy() if torch.is_tensor(t) else None)
    arrays, keys, modules = {}, {}, []
    paths = {}
    for path, m in model.named_modules():
        paths[id(m)] = path

    def key_of(t):
        if id(t) not in keys:
            keys[id(t)] = f"t{len(keys)}"
            arrays[keys[id(t)]] = t.detach().cpu().numpy()
        return keys[id(t)]

    for path, m in model.named_modules():
        modules.append({
            "path": path,
            "mro": [[k.__name__, k.__module__] for k in type(m).__mro__ if k is not object],
            "children": {n: paths[id(c)] for n, c in m._modules.items() if c is not None and id(c) in paths},
            "params": [[n, key_of(t)] for n, t in m.named_parameters(recurse=False) if t is not None],
            "buffers": [[n, key_of(t)] for n, t in m.named_buffers(recurse=False) if t is not None],
            "non_persistent": sorted(getattr(m, "_non_persistent_buffers_set", ())),
            # the flags the weight map reads (a norm layer without affine parameters)
            "flags": {k: getattr(m, k) for k in ("affine", "elementwise_affine")
                      if isinstance(getattr(m, k, None), bool)},
        })
    np.savez(os.path.join(out, "torch.npz"), **arrays,
             **{f"in{i}": a for i, a in enumerate(inputs)}, **{f"out{i}": a for i, a in enumerate(outs)})
    with open(os.path.join(out, "torch.json"), "w") as f:
        json.dump({"modules": modules, "outputs": len(outs)}, f)
    return {"params": int(sum(a.size for k, a in arrays.items())), "outputs": [list(a.shape) for a in outs]}


class _Values:
    """A saved torch tensor, as much of it as the weight map reads."""

    def __init__(self, array):
        self._array = array
        self.shape = tuple(array.shape)

    def detach(self):
        return self

    def cpu(self):
        return self

    def numpy(self):
        return self._array


class _ModuleStandIn:
    """A torch module's structure (class names along the MRO, children, parameters, buffers)
    rebuilt from what the torch child saved, so that the checker's weight map can run in a
    process without torch."""

    def __init__(self, order):
        self._order = order
        self._modules = {}
        self._parameters = {}  # torch's own per-module dicts (the weight map reads them)
        self._buffers = {}
        self._non_persistent_buffers_set = set()

    def named_modules(self):
        return iter(self._order)

    def get_submodule(self, path):
        m = self
        for part in path.split(".") if path else []:
            m = m._modules[part]
        return m

    def named_parameters(self, recurse=False):
        return iter(self._parameters.items())

    def named_buffers(self, recurse=False):
        return iter(self._buffers.items())


def _stand_in_class(mro, cache):
    key = tuple(tuple(k) for k in mro)
    if key not in cache:
        klass = _ModuleStandIn
        for name, module in reversed(mro):
            klass = type(name, (klass,), {"__module__": module})
        cache[key] = klass
    return cache[key]


def torch_stand_in(saved: dict, arrays) -> _ModuleStandIn:
    """The torch model as the weight map sees it, from the torch child's files."""
    order, by_path, classes, values = [], {}, {}, {}
    for info in saved["modules"]:
        m = _stand_in_class(info["mro"], classes).__new__(_stand_in_class(info["mro"], classes))
        _ModuleStandIn.__init__(m, order)
        by_path[info["path"]] = m
        order.append((info["path"], m))

    def value(k):
        if k not in values:
            values[k] = _Values(arrays[k])
        return values[k]

    for info in saved["modules"]:
        m = by_path[info["path"]]
        m._modules = {n: by_path[p] for n, p in info["children"].items()}
        m._parameters = {n: value(k) for n, k in info["params"]}
        m._buffers = {n: value(k) for n, k in info["buffers"]}
        m._non_persistent_buffers_set = set(info["non_persistent"])
        for k, v in info.get("flags", {}).items():
            setattr(m, k, v)
    return by_path[""]


def child_ms(arch: dict, tree: str, out: str, block: bool = True) -> dict:
    """Import the converted code with torch blocked, build, copy the weights, run, compare."""
    if block:
        sys.meta_path.insert(0, _NoTorch(arch.get("allow", ())))
    import numpy as np
    res = {"status": "import", "error": "", "where": "", "weights": "", "rel_err": None, "notes": []}
    try:
        _, ns = _build(arch, tree)
    except BaseException as exc:  # noqa: BLE001  (anything the converted import raises is data)
        res.update(error=_first_line(exc), where=_where(exc, tree))
        return res
    res["status"] = "build"
    try:
        exec(arch["setup"], ns)
        model = eval(arch["ctor"], ns)
        if hasattr(model, "set_train"):
            model.set_train(False)
    except BaseException as exc:  # noqa: BLE001
        res.update(error=_first_line(exc), where=_where(exc, tree))
        return res
    import ms_core
    arrays = np.load(os.path.join(out, "torch.npz"))
    with open(os.path.join(out, "torch.json")) as f:
        saved = json.load(f)
    res["status"] = "weights"
    weights_ok = False
    try:
        rep = weight_map().transfer(torch_stand_in(saved, arrays), model)
        weights_ok = rep.ok
        if not rep.ok:
            probs = rep.problems()
            res["weights"] = f"{len(probs)} problems; first: {probs[0]}"
    except BaseException as exc:  # noqa: BLE001
        res["weights"] = _first_line(exc)
        res["where"] = _where(exc, tree)
    inputs = [ms_core.Tensor(arrays[f"in{i}"]) for i in range(len(arch["inputs"]))]
    ns.update(model=model, inputs=inputs)
    try:
        outputs = eval(arch["call"], ns)
    except BaseException as exc:  # noqa: BLE001
        if weights_ok:
            res.update(status="run", error=_first_line(exc), where=_where(exc, tree))
        else:
            res["notes"].append(f"forward also fails: {_first_line(exc)} at {_where(exc, tree)}")
            res["error"] = res["weights"]
        return res
    if not weights_ok:
        res["error"] = res["weights"]
        res["notes"].append("forward runs")
        return res
    outs = _flatten(outputs, lambda t: t.asnumpy() if hasattr(t, "asnumpy") else None)
    np.savez(os.path.join(out, "ms_core.npz"), **{f"out{i}": a for i, a in enumerate(outs)})
    res["status"] = "mismatch"
    worst, error = compare_outputs(outs, [arrays[f"out{i}"] for i in range(saved["outputs"])])
    res["rel_err"] = worst
    if error:
        res["error"] = error
    else:
        res["status"] = "match"
    return res


def compare_outputs(outs: list, refs: list) -> tuple:
    """(worst relative max error, first problem or "") of `outs` against `refs`:
    max|a - b| / max|b| per output, the problem being a count, a shape or the tolerance."""
    import numpy as np
    if len(outs) != len(refs):
        return None, f"{len(outs)} outputs, the reference gives {len(refs)}"
    worst = 0.0
    for i, (a, b) in enumerate(zip(outs, refs)):
        if tuple(a.shape) != tuple(b.shape):
            return None, f"output {i}: shape {tuple(a.shape)}, reference {tuple(b.shape)}"
        a64, b64 = np.asarray(a, np.float64), np.asarray(b, np.float64)
        scale = float(np.max(np.abs(b64))) if b64.size else 0.0
        diff = float(np.max(np.abs(a64 - b64))) if b64.size else 0.0
        err = diff / scale if scale > 0 else diff
        worst = max(worst, err if np.isfinite(err) else float("inf"))
    return worst, ("" if worst <= TOLERANCE else f"relative max error {worst:.3g} > {TOLERANCE:g}")


# ---- the real-MindSpore side (--ms-python) ----------------------------------------------------

def _weight_map_standalone():
    """migrate/check/weights.py loaded as a module of its own: the interpreter that has MindSpore
    need not have libcst (which `import migrate` needs), and the map itself needs only NumPy.
    Its test for "a Tensor attribute, not a Parameter" is widened to MindSpore's Tensor."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("_bench_weights", ROOT / "migrate" / "check" / "weights.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up there
    spec.loader.exec_module(mod)
    import mindspore
    mod._is_ms_tensor = lambda t: isinstance(t, mindspore.Tensor) and not isinstance(t, mindspore.Parameter)
    return mod


def _ms_load_weights(ms, model, saved, arrays) -> str:
    """Copy torch's values into a MindSpore model through the checker's weight map ("" = every
    torch tensor and every parameter accounted for, else the first problem)."""
    rep = _weight_map_standalone().map_names(torch_stand_in(saved, arrays), model)
    if not rep.ok:
        probs = rep.problems()
        return f"{len(probs)} problems; first: {probs[0]}"
    params, cells = dict(model.parameters_and_names()), dict(model.cells_and_names())
    tensors = {}
    for info in saved["modules"]:
        for n, k in info["params"] + info["buffers"]:
            tensors[f"{info['path']}.{n}" if info["path"] else n] = arrays[k]
    for e in rep.entries:
        if e.ms_name is None:
            continue
        value = tensors[e.torch_name]
        if e.action == "tensor-attribute":
            path, attr = e.ms_name.rsplit(".", 1) if "." in e.ms_name else ("", e.ms_name)
            old = getattr(cells[path], attr)
            setattr(cells[path], attr, ms.Tensor(value.reshape(old.shape).astype(old.asnumpy().dtype)))
        else:
            p = params[e.ms_name]
            p.set_data(ms.Tensor(value.reshape(p.shape).astype(p.asnumpy().dtype)))
    return ""


def _ms_names(model) -> str:
    """"" when every Parameter.name is its path (one of them for a weight two layers share) and
    unique, else what is wrong."""
    params = list(model.parameters_and_names())
    paths = {}
    for prefix, cell in model.cells_and_names():
        for local, p in cell._params.items():
            paths.setdefault(id(p), []).append(f"{prefix}.{local}" if prefix else local)
    wrong = [f"{path} named {p.name}" for path, p in params if p.name not in paths.get(id(p), [path])]
    names = [p.name for _, p in params]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if not wrong and not dupes:
        return ""
    return (f"{len(wrong)}/{len(params)} Parameter.name differ from the path (e.g. {wrong[0] if wrong else '-'})"
            + (f"; {len(dupes)} duplicated (e.g. {dupes[0]})" if dupes else ""))


def _ms_round_trip(ms, arch, ns, model, outs, out_dir) -> str:
    """save_checkpoint -> a model built afresh (another seed) -> load_param_into_net: "" when
    nothing is left unloaded on either side and the outputs are the same, else the problem."""
    ckpt = os.path.join(out_dir, "mindspore.ckpt")
    ms.save_checkpoint(model, ckpt)
    ms.set_seed(1)
    exec(arch["setup"], ns)  # a config the first build changed (minGPT's) is made afresh
    fresh = eval(arch["ctor"], ns)
    fresh.set_train(False)
    param_not_load, ckpt_not_load = ms.load_param_into_net(fresh, ms.load_checkpoint(ckpt))
    if param_not_load or ckpt_not_load:
        return (f"{len(param_not_load)} parameters not loaded (e.g. {param_not_load[:1]}), "
                f"{len(ckpt_not_load)} checkpoint entries unused (e.g. {ckpt_not_load[:1]})")
    ns["model"] = fresh
    again = _flatten(eval(arch["call"], ns), lambda t: t.asnumpy() if hasattr(t, "asnumpy") else None)
    worst, error = compare_outputs(again, outs)
    return "" if worst == 0.0 else (error or f"outputs differ after the round trip (relative {worst:.3g})")


def child_mindspore(arch: dict, tree: str, out: str, block: bool = True) -> dict:
    """Real MindSpore (run by --ms-python): import the --target mindspore conversion with torch
    blocked, build, copy torch's weights through the weight map, run in inference mode, compare
    with torch and with ms_core, then the checkpoint round trip."""
    if block:
        sys.meta_path.insert(0, _NoTorch(arch.get("allow", ())))
    import numpy as np
    res = {"status": "import", "error": "", "where": "", "rel_err": None, "rel_err_ms_core": None,
           "names": "", "round_trip": ""}
    try:
        import mindspore as ms
        ms.set_context(mode=ms.PYNATIVE_MODE)
        ms.set_seed(0)
        _, ns = _build(arch, tree)
        res["status"] = "build"
        exec(arch["setup"], ns)
        model = eval(arch["ctor"], ns)
        model.set_train(False)
        res["names"] = _ms_names(model)
        res["status"] = "weights"
        arrays = np.load(os.path.join(out, "torch.npz"))
        saved = json.loads(Path(out, "torch.json").read_text())
        problem = _ms_load_weights(ms, model, saved, arrays)
        if problem:
            res["error"] = problem
            return res
        res["status"] = "run"
        ns.update(model=model, inputs=[ms.Tensor(arrays[f"in{i}"]) for i in range(len(arch["inputs"]))])
        outs = _flatten(eval(arch["call"], ns), lambda t: t.asnumpy() if hasattr(t, "asnumpy") else None)
    except BaseException as exc:  # noqa: BLE001  (anything MindSpore raises is data)
        res.update(error=_first_line(exc), where=_where(exc, tree))
        return res
    res["rel_err"], error = compare_outputs(outs, [arrays[f"out{i}"] for i in range(saved["outputs"])])
    ours = os.path.join(out, "ms_core.npz")
    if os.path.exists(ours):
        with np.load(ours) as z:
            res["rel_err_ms_core"], _ = compare_outputs(outs, [z[f"out{i}"] for i in range(len(z.files))])
    res["status"], res["error"] = ("mismatch", error) if error else ("match", "")
    try:
        res["round_trip"] = _ms_round_trip(ms, arch, ns, model, outs, out)
    except BaseException as exc:  # noqa: BLE001
        res["round_trip"] = f"{_first_line(exc)} [{_where(exc, tree)}]"
    return res


def child_script(script: str, args: list, block: bool, trace_dir: str | None = None, side: str = "",
                 tree: str = "", dropout: bool = True) -> None:
    """Run a script as __main__ (torch blocked for the converted one); with `trace_dir`, record
    what migrate/check/script_trace.py compares (the original's random numbers replayed on the converted
    side)."""
    import runpy
    if block:
        sys.meta_path.insert(0, _NoTorch())
    trace = None
    if trace_dir:
        from migrate.check import script_trace
        replay = os.path.join(trace_dir, "random.npz") if side == "converted" else None
        trace = script_trace.Trace(os.path.join(trace_dir, side), tree, replay)
        os.makedirs(os.path.join(trace_dir, side), exist_ok=True)
        (script_trace.install_torch if side == "original" else script_trace.install_ms)(trace)
    if not dropout:
        from migrate.check import script_trace
        script_trace.no_dropout(side)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    finally:
        if trace is not None:
            trace.save(os.path.join(trace_dir, "random.npz") if side == "original" else None)


def child_main(argv) -> int:
    """Entry point of the child processes (`--child torch|ms|script`)."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--child", choices=("torch", "ms", "mindspore", "script"))
    ap.add_argument("--spec")
    ap.add_argument("--tree")
    ap.add_argument("--out")
    ap.add_argument("--block", action="store_true")
    ap.add_argument("--trace")
    ap.add_argument("--side", default="")
    ap.add_argument("--no-dropout", action="store_true")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    # stand-ins after the interpreter's own packages: MindSpore's venv has the real PIL its
    # dataset modules import, which a stand-in first on the path would hide
    sys.path.extend(p for p in os.environ.get(_FALLBACK_PATHS, "").split(os.pathsep) if p)
    if a.child == "script":
        child_script(a.spec, a.rest[1:] if a.rest[:1] == ["--"] else a.rest, a.block, a.trace, a.side, a.tree,
                     not a.no_dropout)
        return 0
    arch = json.loads(Path(a.spec).read_text())
    try:
        child = {"torch": child_torch, "ms": child_ms, "mindspore": child_mindspore}[a.child]
        res = child(arch, a.tree, a.out) if a.child == "torch" else child(arch, a.tree, a.out, a.block)
    except BaseException as exc:  # noqa: BLE001
        res = {"status": "crash", "error": _first_line(exc), "where": _where(exc, a.tree),
               "trace": traceback.format_exc()[-3000:]}
    Path(a.out, f"{a.child}.result.json").write_text(json.dumps(res, default=str))
    return 0


_FALLBACK_PATHS = "MIGRATE_BENCH_FALLBACK_PATHS"   # searched after the child's site-packages


def _child_env(extra_paths=(), fallback=()) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, extra_paths), str(ROOT)])
    env[_FALLBACK_PATHS] = os.pathsep.join(map(str, fallback))
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[k] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def _run_child(side: str, spec: Path, tree: Path, out: Path, timeout: float, block: bool = False,
               python: str = sys.executable, paths=(), fallback=()) -> dict:
    cmd = [python, str(Path(__file__).resolve()), "--child", side, "--spec", str(spec),
           "--tree", str(tree), "--out", str(out)] + (["--block"] if block else [])
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, env=dict(_child_env(paths, fallback), GLOG_v="3"), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "error": f"no result within {timeout:.0f} s", "seconds": timeout}
    result = out / f"{side}.result.json"
    if not result.exists():
        tail = (proc.stderr or proc.stdout).strip().splitlines()
        return {"status": "crash", "error": tail[-1] if tail else f"exit {proc.returncode}",
                "seconds": time.perf_counter() - t0}
    res = json.loads(result.read_text())
    res["seconds"] = time.perf_counter() - t0
    return res


def source_named(name: str) -> Source | None:
    return next((s for s in SOURCES if s.name == name), None)


def _uses(name: str) -> list[str]:
    """The sources `name` uses, and theirs, in a stable order."""
    out, todo = [], list(source_named(name).uses if source_named(name) else ())
    while todo:
        u = todo.pop(0)
        if u not in out:
            out.append(u)
            todo += list(source_named(u).uses)
    return out


def torch_stand_ins(source: str, work: Path, which: str = "torch_stand_ins") -> list[str]:
    """The directory of the source's stand-in modules (`which`: the torch side's, or `stand_ins`
    for both sides), written once ([] if none)."""
    src = source_named(source)
    if src is None or not getattr(src, which):
        return []
    d = work / which / source
    for rel, text in getattr(src, which):
        f = d / rel
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(text)
        package = f.parent
        while package != d:  # every directory up to d is a package
            (package / "__init__.py").touch()
            package = package.parent
    return [str(d)]


def check_arch(arch: Arch, staged: Path, converted: Path, work: Path, timeout: float,
               block: bool = True, mindspore: tuple | None = None, torch_paths=(), dep_trees=None) -> dict:
    """Both children for one architecture; the row for the table. With `mindspore` =
    (interpreter, tree converted with --target mindspore), a third child runs that tree on real
    MindSpore (row["mindspore"]). `torch_paths` go on the torch child's path only; `dep_trees`
    maps each side ("torch", "ms", "mindspore") to the trees of the sources this one uses."""
    # (the name cut to 120 characters, and its checksum: two constructors of one long prefix differ)
    d = work / "arch" / f"{re.sub(r'[^A-Za-z0-9_.-]+', '_', arch.name)[:110]}_{zlib.crc32(arch.name.encode()):08x}"
    shutil.rmtree(d, ignore_errors=True)
    d.mkdir(parents=True)
    dep_trees = dep_trees or {}
    both = [p for name in (arch.source, *_uses(arch.source)) for p in torch_stand_ins(name, work, "stand_ins")]
    # converted packages named like a blocked one (the converted torchvision itself, or used)
    allow = sorted({c.name for t in [converted, *dep_trees.get("ms", []), *dep_trees.get("mindspore", [])]
                    if Path(t).is_dir() for c in Path(t).iterdir() if c.name in BLOCKED})
    spec = d / "spec.json"
    spec.write_text(json.dumps({**asdict(arch), "allow": allow, **converted_ctor(arch, staged, "ms_core")}))
    torch_spec = d / "torch_spec.json"
    # a used source's stand-ins, except those for a package another used source is (timm's torchvision)
    real = {c.name for t in dep_trees.get("torch", []) for c in Path(t).iterdir()}
    torch_spec.write_text(json.dumps({**asdict(arch), "torch_paths": [
        p for name in (arch.source, *_uses(arch.source)) for p in torch_stand_ins(name, work)
        if not {c.name for c in Path(p).iterdir()} & real]}))
    row = {"source": arch.source, "module": arch.module, "ctor": arch.ctor, "status": "", "error": "",
           "where": "", "rel_err": None, "notes": []}
    t = _run_child("torch", torch_spec, staged, d, timeout,
                   paths=[*map(str, dep_trees.get("torch", [])), *torch_paths, *both])
    if t.get("status") in ("crash", "timeout"):
        row.update(status="torch-fail", error=t.get("error", ""), where=t.get("where", ""))
        return row
    row["params"] = t.get("params")
    m = _run_child("ms", spec, converted, d, timeout, block, paths=[*map(str, dep_trees.get("ms", [])), *both])
    row.update(status=m.get("status", "crash"), error=m.get("error", ""), where=m.get("where", ""),
               rel_err=m.get("rel_err"), notes=m.get("notes", []), weights=m.get("weights", ""),
               seconds=round(t.get("seconds", 0) + m.get("seconds", 0), 1))
    if mindspore is not None:
        python, ms_tree = mindspore
        spec = d / "mindspore_spec.json"
        spec.write_text(json.dumps({**asdict(arch), "allow": allow, **converted_ctor(arch, staged, "mindspore")}))
        row["mindspore"] = _run_child("mindspore", spec, ms_tree, d, timeout, block, python=python,
                                      paths=[*map(str, dep_trees.get("mindspore", []))], fallback=both)
    return row


# ---- training scripts --------------------------------------------------------------------------

def data_words(d: Path) -> None:
    """A tiny word corpus: data/tiny/{train,valid,test}.txt."""
    import numpy as np
    rng = np.random.default_rng(0)
    vocab = [f"w{i}" for i in range(40)]
    (d / "data" / "tiny").mkdir(parents=True, exist_ok=True)
    for name, n in (("train", 60), ("valid", 10), ("test", 10)):
        lines = [" ".join(rng.choice(vocab, size=8)) for _ in range(n)]
        (d / "data" / "tiny" / f"{name}.txt").write_text("\n".join(lines) + "\n")


def data_tokens(d: Path) -> None:
    """nanoGPT-style token files: data/tiny/{train,val}.bin (uint16) and meta.pkl."""
    import pickle
    import numpy as np
    rng = np.random.default_rng(0)
    (d / "data" / "tiny").mkdir(parents=True, exist_ok=True)
    for name in ("train", "val"):
        rng.integers(0, 65, size=4000).astype(np.uint16).tofile(d / "data" / "tiny" / f"{name}.bin")
    with open(d / "data" / "tiny" / "meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": 65}, f)


def data_text(d: Path) -> None:
    """input.txt for minGPT's chargpt: random lines over a small alphabet (with "O God, O God!")."""
    import numpy as np
    rng = np.random.default_rng(0)
    alphabet = list("abcdeGO ,!\n")
    (d / "input.txt").write_text("O God, O God!\n" + "".join(rng.choice(alphabet, size=2000)))


def data_mnist(d: Path) -> None:
    """MNIST idx files (48 training, 30 test images) in ../data/MNIST/raw, where torchvision keeps them."""
    import numpy as np
    rng = np.random.default_rng(0)
    raw = d.parent / "data" / "MNIST" / "raw"
    raw.mkdir(parents=True, exist_ok=True)
    for prefix, n in (("train", 48), ("t10k", 30)):
        for kind, array in (("images-idx3", rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)),
                            ("labels-idx1", rng.integers(0, 10, n, dtype=np.uint8))):
            header = np.array([0x0800 | array.ndim, *array.shape], ">u4")
            (raw / f"{prefix}-{kind}-ubyte").write_bytes(header.tobytes() + array.tobytes())


DATA = {"words": data_words, "tokens": data_tokens, "text": data_text, "mnist": data_mnist}


def _script_tag(s: Script) -> str:
    tag = f"{s.source}_{s.script}_{zlib.crc32(' '.join(s.args).encode()):08x}"
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", tag)


def run_script(s: Script, tree: Path, work: Path, side: str, timeout: float, block: bool = True) -> dict:
    """Run one script from a fresh copy of its tree; status ran / fail / timeout. With
    `s.compare`, the run is traced (migrate/check/script_trace.py) into work/traces/<script>/<side>."""
    d = work / "scripts" / side / _script_tag(s)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(tree, d)
    cwd = d / s.cwd if s.cwd else d
    if s.data:
        DATA[s.data](cwd)
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "script", "--spec", str(d / s.script)]
    cmd += ["--block"] if side == "converted" and block else []
    if s.compare:
        cmd += ["--trace", str(work / "traces" / _script_tag(s)), "--side", side, "--tree", str(d)]
    cmd += [] if s.dropout else ["--no-dropout", "--side", side]
    cmd += ["--", *s.args]
    t0 = time.perf_counter()
    try:
        extra = [d / p for p in s.path] + ([Path(p) for p in s.original_path] if side == "original" else [])
        proc = subprocess.run(cmd, cwd=cwd, env=_child_env(extra), capture_output=True,
                              text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "error": f"still running after {timeout:.0f} s", "seconds": timeout}
    secs = round(time.perf_counter() - t0, 1)
    if proc.returncode == 0:
        return {"status": "ran", "error": "", "seconds": secs}
    lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
    err = lines[-1] if lines else f"exit {proc.returncode}"
    where = ""
    for ln in lines:
        m = re.match(r'\s*File "([^"]+)", line (\d+)', ln)
        if m and m.group(1).startswith(str(d)):
            where = f"{os.path.relpath(m.group(1), d)}:{m.group(2)}"
    return {"status": "fail", "error": err, "where": where, "seconds": secs}


def compare_traces(s: Script, work: Path) -> dict:
    """Losses and parameter statistics of the two traced runs (see migrate/check/script_trace.py)."""
    from migrate.check import script_trace
    d = work / "traces" / _script_tag(s)
    try:
        a = json.loads((d / "original" / "trace.json").read_text())
        b = json.loads((d / "converted" / "trace.json").read_text())
    except (OSError, ValueError):
        return {"status": "no trace"}
    return script_trace.compare(a, b, SCRIPT_TOLERANCE)


# ---- the run -----------------------------------------------------------------------------------

@dataclass
class SourceResult:
    """Everything measured on one source (one row of the package table, its architectures and scripts)."""

    name: str
    spec: str
    note: str = ""
    skipped: str = ""
    files: int = 0
    lines: int = 0
    model_files: int = 0
    model_files_marked: int = 0
    other_files_marked: int = 0
    importing_torch: list = field(default_factory=list)
    convert_seconds: float = 0.0
    lines_per_s: float = 0.0
    convert_exit: int = 0
    convert_errors: list = field(default_factory=list)
    parse_failures: list = field(default_factory=list)
    not_idempotent: list = field(default_factory=list)
    runtime_copies: list = field(default_factory=list)  # the runtime packages the conversion wrote
    markers_model_files: dict = field(default_factory=dict)
    markers_all: dict = field(default_factory=dict)
    marked_model_files: dict = field(default_factory=dict)
    no_counterpart_files: list = field(default_factory=list)
    archs: list = field(default_factory=list)
    scripts: list = field(default_factory=list)

    @property
    def built(self) -> int:
        return sum(a["status"] in ("weights", "run", "mismatch", "match") for a in self.archs)

    @property
    def matched(self) -> int:
        return sum(a["status"] == "match" for a in self.archs)


def convert_package(src: Source, args, work: Path) -> tuple[SourceResult, Path, Path]:
    """Fetch, stage, convert (twice) and measure one source: (result, staged dir, converted dir)."""
    res = SourceResult(src.name, src.spec, src.note)
    snapshots = Path(args.snapshots) if args.snapshots else None
    root = source_root(src, Path(args.cache), args.dl_dir, snapshots)
    staged, converted = work / "src" / src.name, work / "out" / src.name
    if root is None:
        res.skipped = f"snapshot gh_{src.spec[7:].replace('/', '+')} not found under --snapshots"
        return res, staged, converted
    files = stage(src, root, staged)
    report = work / "reports" / f"{src.name}.json"
    report.parent.mkdir(parents=True, exist_ok=True)
    secs, code, err = run_cli_convert(staged, converted, args.jobs, report)
    again = work / "again" / src.name
    run_cli_convert(converted, again, args.jobs, None)
    st = static_checks(staged, converted, again, files)
    for k, v in st.items():
        setattr(res, k, v)
    res.convert_seconds = round(secs, 2)
    res.lines_per_s = round(res.lines / secs) if secs else 0
    res.convert_exit = code
    res.convert_errors = report_errors(report) + ([err.strip().splitlines()[-1]] if code not in (0, 1) and err.strip()
                                                  else [])
    if args.ms_python:
        run_cli_convert(staged, work / "out_mindspore" / src.name, args.jobs, None, target="mindspore")
    return res, staged, converted


def convert_together(sources, trees, args, work: Path) -> dict:
    """{source name: converted tree} for each source that uses others: it and the sources it uses
    converted in one run (`migrate convert SRC DEP... -o OUT`), so that they import each other
    converted (with --separately each is converted in its own run, as before that existed)."""
    out = {}
    for src in sources:
        names = [src.name, *_uses(src.name)]
        if not src.uses or not all(source_named(n).tree and n in trees for n in names):
            continue
        dirs = [trees[n][0] / source_named(n).tree for n in names]
        out[src.name] = work / "out_together" / src.name
        run_cli_convert(dirs, out[src.name], args.jobs, None)
        if args.ms_python:
            run_cli_convert(dirs, work / "out_mindspore_together" / src.name, args.jobs, None, target="mindspore")
    return out


def run(args) -> list[SourceResult]:
    """Convert every selected source, then check architectures and scripts `args.jobs` at a time."""
    work = Path(args.work)
    work.mkdir(parents=True, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    sources = [s for s in SOURCES if (only is None or s.name in only) and (s.quick or not args.quick)]
    wanted = {s.name for s in sources} | {u for s in sources for u in _uses(s.name)}
    sources = [s for s in SOURCES if s.name in wanted]  # the sources they use, converted first
    results = {}
    trees, torch_paths = {}, {}
    for src in sources:
        t0 = time.perf_counter()
        res, staged, converted = convert_package(src, args, work)
        results[src.name] = res
        trees[src.name] = (staged, converted)
        torch_paths[src.name] = [fetch_pypi(spec, Path(args.cache), args.dl_dir) for spec in src.torch_needs]
        print(f"[{src.name}] "
              f"{res.skipped or f'{res.files} files, {res.lines} lines converted in {res.convert_seconds:.1f} s'}"
              f" ({time.perf_counter() - t0:.1f} s)", flush=True)
    together = {} if args.separately else convert_together(sources, trees, args, work)
    archs = [a for a in ARCHS if a.source in results and not results[a.source].skipped and not args.no_archs
             and (only is None or a.source in only)
             and (a.quick or not args.quick) and (not args.arch or args.arch in a.name)]
    scripts = [s for s in SCRIPTS if s.source in results and not results[s.source].skipped
               and (s.quick or not args.quick) and not args.no_scripts and not args.arch]

    def do_arch(a):
        staged, converted = trees[a.source]
        ms_side = (args.ms_python, work / "out_mindspore" / a.source) if args.ms_python else None
        deps = _uses(a.source)
        dep_trees = {"torch": [trees[u][0] for u in deps], "ms": [trees[u][1] for u in deps],
                     "mindspore": [work / "out_mindspore" / u for u in deps]}
        if a.source in together:  # the source and the ones it uses, converted in one run
            converted = together[a.source]
            ms_side = (args.ms_python, work / "out_mindspore_together" / a.source) if args.ms_python else None
            dep_trees.update(ms=[], mindspore=[])
        row = check_arch(a, staged, converted, work, args.timeout, block=not args.allow_torch, mindspore=ms_side,
                         torch_paths=[p for n in (a.source, *deps) for p in torch_paths[n]], dep_trees=dep_trees)
        print(f"  {a.source:<18} {a.ctor[:50]:<50} {row['status']:<10} {row['error'][:90]}", flush=True)
        if "mindspore" in row:
            print(f"  {'':<18} {'MindSpore':<50} {ms_cell(row['mindspore'])[:120]}", flush=True)
        return a, row

    def do_script(s):
        staged, converted = trees[s.source]
        row = {"source": s.source, "script": s.script, "args": " ".join(s.args)}
        shutil.rmtree(work / "traces" / _script_tag(s), ignore_errors=True)
        row["original"] = run_script(s, staged, work, "original", args.timeout)
        row["converted"] = run_script(s, converted, work, "converted", args.timeout, not args.allow_torch)
        row["compare"] = compare_traces(s, work) if s.compare else {}
        print(f"  {s.source:<18} {s.script:<40} original {row['original']['status']}, converted "
              f"{row['converted']['status']}: {row['converted']['error'][:80]} "
              f"{row['compare'].get('status', '')}", flush=True)
        return s, row

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for a, row in pool.map(do_arch, archs):
            results[a.source].archs.append(row)
        for s, row in pool.map(do_script, scripts):
            results[s.source].scripts.append(row)
    return [results[s.name] for s in sources]


# ---- output ------------------------------------------------------------------------------------

def _table(headers, rows) -> str:
    widths = [max(len(str(h)), *(len(str(r[i])) for r in rows)) if rows else len(str(h))
              for i, h in enumerate(headers)]
    line = lambda cells: "| " + " | ".join(str(c).ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return "\n".join([line(headers), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])


def ms_cell(m: dict) -> str:
    """One architecture on real MindSpore: 'build / forward vs torch (vs ms_core) / names /
    checkpoint round trip', or the stage that failed and why."""
    if m.get("status") not in ("match", "mismatch"):
        where = f" [{m['where']}]" if m.get("where") else ""
        return f"{m.get('status', 'crash')}: {m.get('error', '')}{where}"
    errs = f"{m['rel_err']:.1e}" + (f" (ms_core {m['rel_err_ms_core']:.1e})" if m.get("rel_err_ms_core") is not None
                                     else "")
    forward = f"match {errs}" if m["status"] == "match" else f"mismatch: {m['error']} {errs}"
    names = "names ok" if not m.get("names") else f"names: {m['names']}"
    trip = "round trip ok" if not m.get("round_trip") else f"round trip: {m['round_trip']}"
    return f"builds; {forward}; {names}; {trip}"


def ms_summary(results: list[SourceResult]) -> str:
    """The real-MindSpore totals: builds, matches, path-like names, checkpoint round trips."""
    rows = [a["mindspore"] for r in results for a in r.archs if "mindspore" in a]
    ran = [m for m in rows if m.get("status") in ("match", "mismatch")]
    built = [m for m in rows if m.get("status") in ("weights", "run", "match", "mismatch")]
    n = len(rows)
    return (f"MindSpore 2.10 (--target mindspore): builds {len(built)}/{n}, matches torch "
            f"{sum(m['status'] == 'match' for m in ran)}/{n}, path-like unique Parameter names "
            f"{sum(not m.get('names') for m in built)}/{n}, checkpoint round trips "
            f"{sum(not m.get('round_trip') for m in ran)}/{n}")


def render(results: list[SourceResult]) -> str:
    rows = []
    tot = dict(files=0, lines=0, mf=0, mfm=0, ofm=0, it=0, b=0, n=0, m=0, secs=0.0, pf=0, ni=0)
    for r in results:
        if r.skipped:
            rows.append([r.name, "skipped: " + r.skipped] + [""] * 9)
            continue
        n = len(r.archs)
        rows.append([r.name, r.files, r.lines, f"{r.model_files_marked}/{r.model_files}",
                     f"{r.other_files_marked}/{r.files - r.model_files}", len(r.importing_torch),
                     f"{r.built}/{n}" if n else "-", f"{r.matched}/{n}" if n else "-",
                     f"{r.lines_per_s:,}", len(r.parse_failures), len(r.not_idempotent)])
        tot["files"] += r.files
        tot["lines"] += r.lines
        tot["mf"] += r.model_files
        tot["mfm"] += r.model_files_marked
        tot["ofm"] += r.other_files_marked
        tot["it"] += len(r.importing_torch)
        tot["b"] += r.built
        tot["n"] += n
        tot["m"] += r.matched
        tot["secs"] += r.convert_seconds
        tot["pf"] += len(r.parse_failures)
        tot["ni"] += len(r.not_idempotent)
    rows.append(["**total**", tot["files"], tot["lines"], f"{tot['mfm']}/{tot['mf']}",
                 f"{tot['ofm']}/{tot['files'] - tot['mf']}", tot["it"], f"{tot['b']}/{tot['n']}",
                 f"{tot['m']}/{tot['n']}", f"{round(tot['lines'] / tot['secs']) if tot['secs'] else 0:,}",
                 tot["pf"], tot["ni"]])
    out = [_table(["package", "files", "lines", "model files with markers", "other files with markers",
                   "files importing torch", "builds", "matches", "convert lines/s", "parse failures",
                   "not idempotent"], rows)]
    arows, with_ms = [], any("mindspore" in a for r in results for a in r.archs)
    for r in results:
        for a in r.archs:
            err = a["error"] if a["status"] != "match" else f"rel err {a['rel_err']:.1e}"
            where = f" [{a['where']}]" if a.get("where") and a["status"] != "match" else ""
            arows.append([r.name, f"`{a['ctor'][:60]}`", a["status"], (err + where).replace("|", "\\|")[:160]]
                         + ([ms_cell(a["mindspore"]).replace("|", "\\|")[:200] if "mindspore" in a else "-"]
                            if with_ms else []))
    if arows:
        out.append(_table(["package", "architecture", "status", "first error"]
                          + (["MindSpore 2.10 (--target mindspore)"] if with_ms else []), arows))
    if with_ms:
        out.append(ms_summary(results))
    srows = []
    for r in results:
        for s in r.scripts:
            c = s.get("compare") or {}
            errs = [c.get(k) for k in ("loss_err", "param_err")]
            srows.append([r.name, s["script"] + (" --model Transformer" if "Transformer" in s["args"] else ""),
                          s["original"]["status"], s["converted"]["status"],
                          c.get("status", "-") if s["converted"]["status"] == "ran" else "-",
                          f"{c.get('losses', 0)}/{c.get('steps', 0)}" if c else "-",
                          " / ".join("-" if e is None else f"{e:.1e}" for e in errs) if c else "-",
                          (s["converted"]["error"]
                           + (f" [{s['converted'].get('where')}]" if s["converted"].get("where") else "")
                           ).replace("|", "\\|")[:160]])
    if srows:
        out.append(_table(["package", "script", "original", "converted", "vs torch", "losses/steps",
                           "rel err loss / params", "first error (converted)"], srows))
    markers = {}
    for r in results:
        for k, v in r.markers_model_files.items():
            markers[k] = markers.get(k, 0) + v
    if markers:
        out.append("markers in model-definition files: "
                   + ", ".join(f"{k} x{v}" for k, v in sorted(markers.items(), key=lambda kv: -kv[1])))
        model = sum(r.model_files for r in results)
        marked = sum(r.model_files_marked for r in results)
        feature = [f"{r.name}/{f}" for r in results for f in r.no_counterpart_files]
        out.append(f"model-definition files without a marker: {model - marked}/{model} "
                   f"({100 * (model - marked) / max(model, 1):.1f} %); {len(feature)} of the {marked} marked files "
                   f"are marked only for torch features with no MindSpore counterpart "
                   f"({', '.join(NO_COUNTERPART[:6])}, ...); "
                   f"without them: {model - marked}/{model - len(feature)} "
                   f"({100 * (model - marked) / max(model - len(feature), 1):.1f} %)")
    return "\n\n".join(out)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--child"]:
        return child_main(argv)
    # the parent reads this tree's migrate (static checks, converted constructors), as the children do
    sys.path.insert(0, str(ROOT))
    default_cache = os.environ.get("MS_MIGRATE_BENCH_CACHE", str(Path.home() / ".cache" / "ms-migrate-bench"))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cache", default=default_cache, help="download/unpack cache (env MS_MIGRATE_BENCH_CACHE)")
    ap.add_argument("--dl-dir", action="append",
                    default=[d for d in os.environ.get("MS_MIGRATE_BENCH_DL", "").split(os.pathsep) if d],
                    help="a directory of already downloaded archives (repeatable; env MS_MIGRATE_BENCH_DL)")
    ap.add_argument("--snapshots", default=os.environ.get("MS_MIGRATE_BENCH_SNAPSHOTS"),
                    help="directory with GitHub snapshots unpacked as gh_<owner>+<repo>/")
    ap.add_argument("--work", help="scratch directory (default <cache>/work); kept for inspection")
    ap.add_argument("--jobs", "-j", type=int, default=2, help="converter processes and parallel checks")
    ap.add_argument("--quick", action="store_true", help="a subset of sources, architectures and scripts")
    ap.add_argument("--only", help="comma-separated source names")
    ap.add_argument("--arch", help="only architectures whose name contains this text (no scripts)")
    ap.add_argument("--no-scripts", action="store_true", help="skip the training-script runs")
    ap.add_argument("--no-archs", action="store_true", help="skip the architectures (scripts only)")
    ap.add_argument("--timeout", type=float, default=300, help="seconds per child process")
    ap.add_argument("--json", help="write the results as JSON")
    ap.add_argument("--ms-python", help="an interpreter with MindSpore: also convert with --target mindspore and "
                                        "run each architecture there (weights, forward, checkpoint round trip)")
    ap.add_argument("--separately", action="store_true",
                    help="convert a source and the sources it uses (Source.uses) each in its own run, as "
                         "before `migrate convert SRC DEP...` (the first pass); by default they are "
                         "converted together")
    ap.add_argument("--allow-torch", action="store_true",
                    help="diagnosis only: let the converted code import torch, to see what fails after "
                         "the leftover torch imports (the table is then not the benchmark's)")
    args = ap.parse_args(argv)
    args.work = args.work or str(Path(args.cache) / "work")
    t0 = time.perf_counter()
    results = run(args)
    print()
    print(render(results))
    print(f"\n{datetime.date.today()}  total {time.perf_counter() - t0:.0f} s")
    if args.json:
        data = [dict(asdict(r), builds=r.built, matches=r.matched) for r in results]
        Path(args.json).write_text(json.dumps({"date": str(datetime.date.today()), "tolerance": TOLERANCE,
                                               "sources": data}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
