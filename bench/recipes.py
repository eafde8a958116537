"""Training recipes from public repositories: converted, run without torch, compared with torch step by step.

Each row is a real training script (pytorch/examples, pytorch/tutorials, karpathy's nanoGPT /
minGPT / makemore, yunjey's pytorch-tutorial, reference implementations of papers: GCN and GAT
from pytorch/examples, kuangliu's pytorch-cifar, akamaster's CIFAR ResNets, davda54's SAM), plus the three
recipes of our own in tests/fixtures/training/recipes (marked "ours": the minimal reproductions,
not counted among the public scripts). For each:

1. stage the script's directory from its snapshot (`--snapshots DIR/gh_<owner>+<repo>`), apply the
   row's `edits` (sizes only: epochs, widths, batch sizes; `.cuda()` on a CPU machine; a terminal
   width where no terminal is) on the original before conversion, so both sides run the same code;
2. convert the directory with the CLI (`migrate convert DIR -o OUT`) and count the `# migrate:
   MS9xx` markers left in the converted files (column **markers**);
3. make the row's small data (synthetic: MNIST/CIFAR files in torchvision's layout, word and token
   corpora) in both copies;
4. run the original under torch and the conversion in a child process in which torch cannot be
   imported (column **runs without torch**), both traced by migrate/check/script_trace.py: the same initial
   weights (one NumPy stream per network; parameters a script sets itself by `deepcopy` or
   `load_state_dict` are not redrawn), torch's random numbers and dropout masks replayed on the
   converted side, random samplers read in order, `random` and `numpy.random` seeded alike;
5. compare per step (column **agrees**): the loss of every backward / value_and_grad call and
   each parameter's sum and sum of squares after every optimizer step (relative error <= 1e-4,
   the first 64 of each), and the row's printed metrics (regular expressions over stdout:
   accuracies, evaluation losses; within 1e-4 relative or one unit of the last printed digit);
6. rows with `resume` run a second time from the checkpoint the first run wrote (original from
   the original's, converted from the converted's), traced and compared the same way (column
   **resume**).

Stand-ins only where a package cannot be installed beside this torch, on the torch side only:
bench/standins/torchvision (MNIST / FashionMNIST / CIFAR10 files, the transforms the scripts use,
`utils.save_image`) and a `torch.utils.tensorboard.SummaryWriter` that writes a CSV (tensorboard is
not installed). Random augmentations (RandomCrop, RandomHorizontalFlip) are the identity on both
sides in rows with `augment=False` (each side draws from its own generator).

Usage::

    python bench/recipes.py --snapshots /work/cache/src [--only nanogpt,makemore] [-j 2] [--json r.json]

Not part of the test suite; only the standard library, numpy, torch and this project are used.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import runpy
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
from realworld import (  # noqa: E402 (bench/ is put on the path just above)
    MARKER_RE,
    _NoTorch,
    data_text,
    data_tokens,
    data_words,
)

TOLERANCE = 1e-4
RECORDS = 64                      # losses and optimizer steps compared per run
STANDINS = BENCH / "standins"
STANDIN_LIBS = BENCH / "standins_libs"   # libraries that are not torch's, on both sides (see its README)
NO_TERMINAL = ("_, term_width = os.popen('stty size', 'r').read().split()",
               "_, term_width = '24 80'.split()")


@dataclass(frozen=True)
class Recipe:
    """One training script: `script` inside `tree` (a directory of the snapshot `snapshot`,
    staged whole), run from `cwd` (default: the script's directory) with `args`."""

    name: str
    snapshot: str
    tree: str
    script: str
    args: tuple = ()
    cwd: str = ""
    edits: tuple = ()        # (file in tree, old text, new text): sizes and machine only
    data: tuple = ()         # (maker, argument) pairs, see DATA
    resume: tuple | None = None   # all the args of a second run that resumes from the first one's checkpoint
    metrics: tuple = ()      # regular expressions over stdout; every group is a number compared
    augment: bool = True     # False: random augmentations are the identity on both sides
    dropout: bool = True     # False: dropout is the identity on both sides (masks not replayable)
    ours: bool = False       # a recipe of our own (tests/fixtures/training/recipes)
    path: tuple = ()         # directories of the tree put on sys.path (a package imported by name)
    prepare: tuple = ()      # scripts of the tree (beside `script`) each side runs first: its own data files
    note: str = ""


_NANOGPT = ("--dataset=tiny", "--device=cpu", "--compile=False", "--dtype=float32", "--max_iters=4",
            "--eval_interval=2", "--eval_iters=1", "--log_interval=1", "--batch_size=2", "--block_size=16",
            "--n_layer=1", "--n_head=2", "--n_embd=16", "--gradient_accumulation_steps=2", "--grad_clip=1.0",
            "--always_save_checkpoint=True", "--out_dir=out", "--warmup_iters=2", "--lr_decay_iters=6")
_MAKEMORE = ("--input-file", "names_small.txt", "--num-workers", "0", "--batch-size", "8", "--n-layer", "1",
             "--n-embd", "16", "--n-embd2", "16", "--n-head", "2")
_GCN = (("main.py", "idx[:1000], idx[1000:1500], idx[1500:]", "idx[:100], idx[100:150], idx[150:]"),
        ("main.py", """    with requests.get(cora_url, stream=True) as tgz_file:
        with tarfile.open(fileobj=tgz_file.raw, mode='r:gz') as tgz_object:
            tgz_object.extractall()""", "    pass  # bench: no network here; ./cora was written by the data maker"))

_LLAMA2C = ("--device=cpu", "--compile=False", "--dtype=float16", "--vocab_source=custom", "--vocab_size=64",
            "--batch_size=2", "--max_seq_len=16", "--dim=16", "--n_layers=1", "--n_heads=2", "--n_kv_heads=2",
            "--multiple_of=8", "--gradient_accumulation_steps=2", "--max_iters=4", "--eval_interval=2",
            "--eval_iters=1", "--warmup_iters=2", "--always_save_checkpoint=True", "--out_dir=out")

RECIPES = [
    # ---- pytorch/examples -------------------------------------------------------------------
    Recipe("examples/mnist", "gh_pytorch+examples", "mnist", "main.py",
           ("--epochs", "2", "--batch-size", "16", "--test-batch-size", "20", "--no-accel", "--log-interval", "1",
            "--save-model"),
           data=(("mnist", "../data"),), metrics=(r"Average loss: ([\d.]+), Accuracy: (\d+)/",),
           note="Adadelta + StepLR, dropout, NLL; test loop"),
    Recipe("examples/word_language_model", "gh_pytorch+examples", "word_language_model", "main.py",
           ("--data", "data/tiny", "--epochs", "2", "--emsize", "16", "--nhid", "16", "--nlayers", "1", "--bptt", "8",
            "--batch_size", "4", "--dropout", "0", "--save", "model.pt", "--log-interval", "2"),
           data=(("words", ""),), metrics=(r"valid loss\s+([\d.]+)",),
           note="manual SGD over p.data, clip_grad_norm_, hidden-state detach, lr annealing"),
    Recipe("examples/vae", "gh_pytorch+examples", "vae", "main.py",
           ("--epochs", "1", "--batch-size", "16", "--no-accel", "--log-interval", "1"),
           data=(("mnist", "../data"),), metrics=(r"Average loss: ([\d.]+)", r"Test set loss: ([\d.]+)"),
           note="reparametrisation (torch.randn_like), sum-reduced BCE + KLD"),
    Recipe("examples/mnist_rnn", "gh_pytorch+examples", "mnist_rnn", "main.py",
           ("--epochs", "1", "--batch-size", "16", "--test-batch-size", "20", "--log-interval", "1", "--save-model"),
           data=(("mnist", "../data"),), metrics=(r"Average loss: ([\d.]+), Accuracy: (\d+)/",),
           note="LSTM over image rows, Adadelta + StepLR"),
    Recipe("examples/mnist_forward_forward", "gh_pytorch+examples", "mnist_forward_forward", "main.py",
           ("--epochs", "3", "--train_size", "48", "--test_size", "30", "--threshold", "2", "--log-interval", "1",
            "--save_model"),
           data=(("mnist", "./data"),), metrics=(r"error: ([\d.]+)",),
           note="Hinton's forward-forward: one Adam per layer, layer-local losses"),
    Recipe("examples/regression", "gh_pytorch+examples", "regression", "main.py", (),
           note="hand-written SGD on fc.weight.grad; stops at a loss threshold"),
    # ---- pytorch/tutorials --------------------------------------------------------------------
    Recipe("tutorials/quickstart", "gh_pytorch+tutorials", "beginner_source/basics", "quickstart_tutorial.py",
           edits=(("quickstart_tutorial.py", "epochs = 5", "epochs = 2"),
                  ("quickstart_tutorial.py", "batch_size = 64", "batch_size = 16")),
           data=(("fashion", "data"),), metrics=(r"Accuracy: ([\d.]+)%, Avg loss: ([\d.]+)",),
           note="Dataset/DataLoader, SGD; torch.save(state_dict) then load into a new model"),
    Recipe("tutorials/sequence_models", "gh_pytorch+tutorials", "beginner_source/nlp", "sequence_models_tutorial.py",
           edits=(("sequence_models_tutorial.py", "for epoch in range(300):", "for epoch in range(6):"),),
           note="LSTM tagger, hidden state kept on the module, model.zero_grad()"),
    # ---- yunjey/pytorch-tutorial ---------------------------------------------------------------
    Recipe("yunjey/feedforward", "gh_yunjey+pytorch-tutorial", "tutorials/01-basics/feedforward_neural_network",
           "main.py",
           edits=(("main.py", "num_epochs = 5", "num_epochs = 1"), ("main.py", "batch_size = 100", "batch_size = 16"),
                  ("main.py", "hidden_size = 500", "hidden_size = 32")),
           data=(("mnist", "../../data"),), metrics=(r"test images: ([\d.]+) %",),
           note="MLP, Adam, accuracy loop, torch.save(state_dict)"),
    Recipe("yunjey/convolutional", "gh_yunjey+pytorch-tutorial",
           "tutorials/02-intermediate/convolutional_neural_network", "main.py",
           edits=(("main.py", "num_epochs = 5", "num_epochs = 1"), ("main.py", "batch_size = 100", "batch_size = 16")),
           data=(("mnist", "../../data"),), metrics=(r"test images: ([\d.]+) %",),
           note="conv + BatchNorm, Adam, model.eval() test"),
    Recipe("yunjey/deep_residual_network", "gh_yunjey+pytorch-tutorial",
           "tutorials/02-intermediate/deep_residual_network", "main.py",
           edits=(("main.py", "num_epochs = 80", "num_epochs = 2"), ("main.py", "batch_size = 100", "batch_size = 8"),
                  ("main.py", "[2, 2, 2]", "[1, 1, 1]")),
           data=(("cifar", "../../data/"),), metrics=(r"test images: ([\d.]+) %",), augment=False,
           note="ResNet (CIFAR), Pad/RandomCrop/Flip, lr decay through param_groups['lr'] ="),
    Recipe("yunjey/language_model", "gh_yunjey+pytorch-tutorial", "tutorials/02-intermediate/language_model",
           "main.py",
           edits=(("main.py", "embed_size = 128", "embed_size = 16"),
                  ("main.py", "hidden_size = 1024", "hidden_size = 16"),
                  ("main.py", "num_epochs = 5", "num_epochs = 1"),
                  ("main.py", "num_samples = 1000", "num_samples = 20"),
                  ("main.py", "batch_size = 20", "batch_size = 4"), ("main.py", "seq_length = 30", "seq_length = 8")),
           data=(("lines", "data/train.txt"),),
           note="LSTM LM, truncated BPTT (detach), clip_grad_norm_, multinomial sampling"),
    Recipe("yunjey/gan", "gh_yunjey+pytorch-tutorial", "tutorials/03-advanced/generative_adversarial_network",
           "main.py",
           edits=(("main.py", "num_epochs = 200", "num_epochs = 1"), ("main.py", "batch_size = 100", "batch_size = 16"),
                  ("main.py", "hidden_size = 256", "hidden_size = 32")),
           data=(("mnist", "../../data"),),
           note="two Adams, D and G steps, reset_grad(), torch.randn latents, save_image"),
    # ---- karpathy --------------------------------------------------------------------------------
    Recipe("karpathy/nanoGPT", "gh_karpathy+nanoGPT", "", "train.py", _NANOGPT, data=(("tokens", ""),),
           resume=(*_NANOGPT, "--init_from=resume", "--max_iters=6"),
           metrics=(r"train loss ([\d.]+), val loss ([\d.]+)",),
           note="AdamW groups by dim, cosine lr with warmup, grad accumulation, clip, checkpoint dict, resume"),
    Recipe("karpathy/makemore", "gh_karpathy+makemore", "", "makemore.py", _MAKEMORE + ("--max-steps", "4"),
           edits=(("makemore.py", "step > 0 and step % 500 == 0", "step > 0 and step % 2 == 0"),
                  ("makemore.py", "if step % 10 == 0:", "if step % 1 == 0:")),
           data=(("names", "names_small.txt"),), resume=(*_MAKEMORE, "--max-steps", "4", "--resume"),
           metrics=(r"train loss: ([\d.]+) test loss: ([\d.]+)",),
           note="AdamW, InfiniteDataLoader (RandomSampler with replacement), SummaryWriter, save/resume"),
    Recipe("karpathy/minGPT chargpt", "gh_karpathy+minGPT", "", "projects/chargpt/chargpt.py",
           ("--trainer.max_iters=3", "--trainer.num_workers=0", "--trainer.batch_size=4", "--model.model_type=gpt-nano",
            "--data.block_size=16", "--system.work_dir=out", "--model.embd_pdrop=0.0", "--model.resid_pdrop=0.0",
            "--model.attn_pdrop=0.0"),
           cwd="projects/chargpt", data=(("text", ""),), path=("",),
           note="Trainer class with callbacks, AdamW groups by module type, clip"),
    # ---- reference implementations of papers ---------------------------------------------------
    Recipe("kuangliu/pytorch-cifar", "gh_kuangliu+pytorch-cifar", "", "main.py", ("--lr", "0.05"),
           edits=(("main.py", "start_epoch+200", "start_epoch+1"), ("main.py", "net = SimpleDLA()", "net = LeNet()"),
                  ("main.py", "batch_size=128", "batch_size=8"), ("main.py", "batch_size=100", "batch_size=10"),
                  ("main.py", "num_workers=2", "num_workers=0"), ("utils.py", *NO_TERMINAL)),
           data=(("cifar", "./data"),), resume=("--lr", "0.05", "--resume"), augment=False,
           metrics=(r"Loss: ([\d.]+) \| Acc: ([\d.]+)%",),
           note="SGD + CosineAnnealingLR, checkpoint {'net', 'acc', 'epoch'}, --resume"),
    Recipe("examples/gcn (Kipf & Welling)", "gh_pytorch+examples", "gcn", "main.py",
           ("--epochs", "4", "--hidden-dim", "8", "--val-every", "1", "--no-accel"), edits=_GCN,
           data=(("cora", "cora"),),
           metrics=(r"loss_train: ([\d.]+) acc_train: ([\d.]+) loss_val: ([\d.]+) acc_val: ([\d.]+)",
                    r"Test set results: loss ([\d.]+) accuracy ([\d.]+)"),
           note="sparse COO adjacency (to_sparse, sparse @), Adam + weight decay, index masks"),
    Recipe("examples/gat (Velickovic et al.)", "gh_pytorch+examples", "gat", "main.py",
           ("--epochs", "3", "--hidden-dim", "8", "--num-heads", "2", "--val-every", "1", "--no-accel"),
           edits=(("main.py", "idx[:1200], idx[1200:1600], idx[1600:]", "idx[:100], idx[100:150], idx[150:]"),),
           data=(("cora", "cora"),),
           metrics=(r"loss_train: ([\d.]+) acc_train: ([\d.]+) loss_val: ([\d.]+) acc_val: ([\d.]+)",
                    r"Test set results: loss ([\d.]+) accuracy ([\d.]+)"),
           note="graph attention (LeakyReLU scores, masked softmax, dropout), Adam"),
    Recipe("akamaster/pytorch_resnet_cifar10", "gh_akamaster+pytorch_resnet_cifar10", "", "trainer.py",
           ("--arch", "resnet20", "--epochs", "2", "-b", "8", "-j", "0", "--print-freq", "1", "--save-every", "1"),
           edits=(("trainer.py", ".cuda()", ""), ("trainer.py", "batch_size=128", "batch_size=10")),
           data=(("cifar", "./data"),), augment=False,
           metrics=(r"Prec@1 ([\d.]+)",),
           note="ResNet-20 in DataParallel, SGD + MultiStepLR, checkpoint dicts (its --resume does not run "
                "under torch: MultiStepLR(last_epoch=) on a fresh optimizer has no initial_lr)"),
    Recipe("davda54/sam (Foret et al.)", "gh_davda54+sam", "", "example/train.py",
           ("--batch_size", "8", "--depth", "10", "--width_factor", "1", "--epochs", "1", "--threads", "0"),
           cwd="example", data=(("cifar", "data"), ("cifar", "cifar")), augment=False,
           metrics=(r"([\d.]+)\s+\u2502\s*([\d.]+) %",),
           note="SAM, a torch.optim.Optimizer subclass over SGD (first_step/second_step, two backward "
                "passes), WideResNet, label smoothing, BatchNorm momentum switched off for the second pass"),
    # ---- a second sample (recipes6): training-recipe features the rows above lack -------------------
    Recipe("karpathy/llama2.c", "gh_karpathy+llama2.c", "", "train.py", _LLAMA2C, data=(("pretok", "data/tok64"),),
           resume=(*_LLAMA2C, "--init_from=resume", "--max_iters=6"),
           metrics=(r"train loss ([\d.]+), val loss ([\d.]+)", r"\| loss ([\d.]+) \| lr ([\d.e+-]+)"),
           note="GradScaler(enabled=float16) on CPU, nullcontext autocast, warmup + cosine lr by hand, grad "
                "accumulation, unscale_ + clip, IterableDataset, checkpoint dict {model, optimizer, model_args, "
                "iter_num, ...}, resume, model_export"),
    Recipe("examples/time_sequence_prediction", "gh_pytorch+examples", "time_sequence_prediction", "train.py",
           ("--steps", "2"), prepare=("generate_sine_wave.py",),
           edits=(("generate_sine_wave.py", "L = 1000", "L = 40"), ("generate_sine_wave.py", "N = 100", "N = 5"),
                  ("train.py", "future = 1000", "future = 10"),
                  # torch >= 2.6 loads weights only by default; the script predates that
                  ("train.py", "torch.load('traindata.pt')", "torch.load('traindata.pt', weights_only=False)")),
           metrics=(r"test loss: ([\d.e-]+)",),
           note="LBFGS with a closure, float64 model (.double()), LSTMCell loop, torch.save/load of a numpy array"),
    Recipe("w86763777/pytorch-ddpm", "gh_w86763777+pytorch-ddpm", "", "main.py",
           ("--train", "--ch=64", "--ch_mult=1", "--ch_mult=2", "--attn=1", "--num_res_blocks=1", "--T=10",
            "--total_steps=4", "--warmup=2", "--batch_size=4", "--num_workers=0", "--sample_size=2",
            "--sample_step=2", "--save_step=2", "--logdir=./logs/run"),
           # 64 channels: GroupNorm(32, ch) with 2 channels a group (with 1, the time embedding added per channel
           # before it has no effect and a zero gradient, which Adam turns into rounding-noise steps)
           edits=(("main.py", "device = torch.device('cuda:0')", "device = torch.device('cpu')"),),
           data=(("cifar", "./data"),), augment=False,
           note="DDPM: EMA of the weights through state_dict() copy_, warmup LambdaLR, clip, infinite loader, "
                "checkpoint dict {net_model, ema_model, sched, optim, step, x_T}, absl flags"),
    Recipe("zoubohao/DDPM", "gh_zoubohao+DenoisingDiffusionProbabilityModel-ddpm-", "", "Main.py",
           edits=(("Main.py", '"epoch": 200', '"epoch": 10'), ("Main.py", '"batch_size": 80', '"batch_size": 20'),
                  ("Main.py", '"T": 1000', '"T": 10'), ("Main.py", '"channel": 128', '"channel": 64'),
                  ("Main.py", '"channel_mult": [1, 2, 3, 4]', '"channel_mult": [1, 2]'),
                  ("Main.py", '"attn": [2]', '"attn": [1]'), ("Main.py", '"num_res_blocks": 2', '"num_res_blocks": 1'),
                  ("Main.py", '"device": "cuda:0"', '"device": "cpu"'),
                  ("Diffusion/Train.py", "num_workers=4", "num_workers=0")),
           data=(("cifar", "./CIFAR10"),), augment=False,
           note="a _LRScheduler subclass (gradual warmup) chained to CosineAnnealingLR, AdamW, clip, tqdm "
                "set_postfix reading optimizer.state_dict()"),
    Recipe("yunjey/variational_autoencoder", "gh_yunjey+pytorch-tutorial",
           "tutorials/03-advanced/variational_autoencoder", "main.py",
           edits=(("main.py", "num_epochs = 15", "num_epochs = 1"), ("main.py", "batch_size = 128", "batch_size = 16"),
                  ("main.py", "h_dim = 400", "h_dim = 32")),
           data=(("mnist", "../../data"),),
           note="VAE: reparametrisation, sum-reduced BCE + KL, sampling and reconstructions saved"),
    Recipe("yunjey/bidirectional_rnn", "gh_yunjey+pytorch-tutorial",
           "tutorials/02-intermediate/bidirectional_recurrent_neural_network", "main.py",
           edits=(("main.py", "hidden_size = 128", "hidden_size = 16"),
                  ("main.py", "batch_size = 100", "batch_size = 16"), ("main.py", "num_epochs = 2", "num_epochs = 1")),
           data=(("mnist", "../../data/"),), metrics=(r"test images: ([\d.]+) %",),
           note="2-layer bidirectional LSTM over image rows, zeros initial state, Adam"),
    # ---- a third sample (recipes7): EMA, checkpoint resume, warmup schedulers, accumulation, autocast ------
    Recipe("karpathy/build-nanogpt", "gh_karpathy+build-nanogpt", "", "train_gpt2.py",
           edits=(("train_gpt2.py", "GPT(GPTConfig(vocab_size=50304))",
                   "GPT(GPTConfig(block_size=32, vocab_size=64, n_layer=1, n_head=2, n_embd=16))"),
                  ("train_gpt2.py", "total_batch_size = 524288", "total_batch_size = 64"),
                  ("train_gpt2.py", "B = 64 # micro", "B = 2 # micro"), ("train_gpt2.py", "T = 1024 #", "T = 16 #"),
                  ("train_gpt2.py", "warmup_steps = 715", "warmup_steps = 2"),
                  ("train_gpt2.py", "max_steps = 19073", "max_steps = 4"),
                  ("train_gpt2.py", "val_loss_steps = 20", "val_loss_steps = 2")),
           data=(("fineweb", "edu_fineweb10B"),),
           metrics=(r"validation loss: ([\d.]+)", r"HellaSwag accuracy: (\d+)/",
                    r"\| loss: ([\d.]+) \| lr ([\d.e+-]+)"),
           note="torch.autocast(cpu, bfloat16) around every forward, grad accumulation (loss / steps), AdamW "
                "groups by dim (decay / no decay), warmup + cosine lr set on param_groups, clip_grad_norm_, "
                "manual_seed, a torch.Generator for top-k sampling, checkpoint dict {model, config, step, val_loss}, "
                "a HellaSwag eval"),
    Recipe("weiaicunzai/pytorch-cifar100", "gh_weiaicunzai+pytorch-cifar100", "", "train.py",
           ("-net", "resnet18", "-b", "8", "-warm", "1", "-lr", "0.1"),
           edits=(("conf/global_settings.py", "EPOCH = 200", "EPOCH = 3"),
                  ("conf/global_settings.py", "MILESTONES = [60, 120, 160]", "MILESTONES = [2, 3, 4]"),
                  ("conf/global_settings.py", "SAVE_EPOCH = 10", "SAVE_EPOCH = 2"),
                  ("train.py", "num_workers=4", "num_workers=0")),
           data=(("cifar100", "./data"),), augment=False,
           resume=("-net", "resnet18", "-b", "8", "-warm", "1", "-lr", "0.1", "-resume"),
           metrics=(r"Test set: Epoch: \d+, Average loss: ([\d.]+), Accuracy: ([\d.]+)",),
           note="a _LRScheduler subclass (WarmUpLR, per iteration) then MultiStepLR.step(epoch), SGD + weight "
                "decay, SummaryWriter add_graph / add_histogram / grad norms of the last child, resume from the "
                "newest weights file of the newest run folder"),
    Recipe("ermongroup/ddim", "gh_ermongroup+ddim", "", "main.py", ("--config", "cifar10.yml", "--doc", "run", "--ni"),
           edits=(("configs/cifar10.yml", "ch: 128", "ch: 64"), ("configs/cifar10.yml", "ch_mult: [1, 2, 2, 2]",
                                                                  "ch_mult: [1, 2]"),
                  ("configs/cifar10.yml", "num_res_blocks: 2", "num_res_blocks: 1"),
                  ("configs/cifar10.yml", "num_diffusion_timesteps: 1000", "num_diffusion_timesteps: 10"),
                  ("configs/cifar10.yml", "batch_size: 128\n    n_epochs: 10000", "batch_size: 8\n    n_epochs: 1"),
                  ("configs/cifar10.yml", "snapshot_freq: 5000", "snapshot_freq: 2"),
                  ("configs/cifar10.yml", "num_workers: 4", "num_workers: 0")),
           data=(("cifar_split", "exp/datasets/cifar10,exp/datasets/cifar10_test"),), augment=False,
           resume=("--config", "cifar10.yml", "--doc", "run", "--ni", "--resume_training"),
           note="DDIM training: EMAHelper (a dict of param.data.clone(), updated by `shadow[name].data = ...`), "
                "DataParallel, Adam from a config, clip_grad_norm_ in try/except, antithetic torch.randint "
                "timesteps, checkpoint list [model, optimizer, epoch, step, ema] and resume (eps reset in the "
                "loaded param_groups), yaml config, tensorboard logger"),
    Recipe("tutorials/nn_tutorial", "gh_pytorch+tutorials", "beginner_source", "nn_tutorial.py",
           data=(("mnist_pickle", "data/mnist/mnist.pkl.gz"),), metrics=(r"(?m)^\d+ (\d+\.\d{7,})$",),
           note="What is torch.nn really: tensors with requires_grad_ updated by hand under no_grad (`w -= "
                "w.grad * lr`, grad.zero_()), then nn.Parameter, nn.Linear, optim.SGD, TensorDataset sliced, "
                "DataLoader(shuffle), a Lambda module, WrappedDataLoader, AdaptiveAvgPool2d"),
    Recipe("tutorials/amp_recipe", "gh_pytorch+tutorials", "recipes_source/recipes", "amp_recipe.py",
           edits=(("amp_recipe.py", "    torch.cuda.empty_cache()\n    torch.cuda.reset_max_memory_allocated()\n",
                   ""),
                  ("amp_recipe.py", "    torch.cuda.synchronize()\n", ""),
                  ("amp_recipe.py", "torch.cuda.max_memory_allocated()", "0"),
                  ("amp_recipe.py", ".cuda()", ""), ("amp_recipe.py", 'device="cuda"', 'device="cpu"'),
                  ("amp_recipe.py", "batch_size = 512", "batch_size = 8"),
                  ("amp_recipe.py", "in_size = 4096", "in_size = 16"),
                  ("amp_recipe.py", "out_size = 4096", "out_size = 8"),
                  ("amp_recipe.py", "num_batches = 50", "num_batches = 4"),
                  ("amp_recipe.py", "epochs = 3", "epochs = 2")),
           note="torch.cuda.amp.GradScaler(enabled=...) and autocast on a machine without CUDA (torch disables "
                "both), scaler.scale(loss).backward() / step / update, unscale_ + clip, a checkpoint dict {model, "
                "optimizer, scaler} loaded back"),
    # ---- a fourth sample (recipes8): the tutorials' simplest loops, never converted here ------------------
    Recipe("yunjey/logistic_regression", "gh_yunjey+pytorch-tutorial", "tutorials/01-basics/logistic_regression",
           "main.py",
           edits=(("main.py", "num_epochs = 5", "num_epochs = 1"), ("main.py", "batch_size = 100", "batch_size = 16")),
           data=(("mnist", "../../data"),), metrics=(r"test images: ([\d.]+) %",),
           note="nn.Linear on flattened images, CrossEntropyLoss, SGD, accuracy with torch.max(outputs.data, 1)"),
    Recipe("yunjey/linear_regression", "gh_yunjey+pytorch-tutorial", "tutorials/01-basics/linear_regression",
           "main.py",
           note="NumPy arrays through torch.from_numpy each epoch, MSELoss, SGD, model(...).detach().numpy() "
                "plotted (matplotlib stand-in), torch.save(state_dict)"),
    Recipe("yunjey/recurrent_neural_network", "gh_yunjey+pytorch-tutorial",
           "tutorials/02-intermediate/recurrent_neural_network", "main.py",
           edits=(("main.py", "hidden_size = 128", "hidden_size = 16"),
                  ("main.py", "batch_size = 100", "batch_size = 16"), ("main.py", "num_epochs = 2", "num_epochs = 1")),
           data=(("mnist", "../../data/"),), metrics=(r"test images: ([\d.]+) %",),
           note="2-layer LSTM over image rows, zeros initial state .to(device), Adam, accuracy loop"),
    # ---- ours: the minimal reproductions of the three recipes --------------------------
    Recipe("ours/classifier", "fixtures", "", "classifier_recipe.py", ("--steps", "6"), ours=True,
           resume=("--steps", "10", "--resume"), metrics=(r"ema acc ([\d.]+)", r"val loss ([\d.]+)"),
           note="AdamW 2 groups, warmup+cosine LambdaLR, label smoothing, accumulation, clip, EMA, save/resume"),
    Recipe("ours/language_model", "fixtures", "", "lm_recipe.py", ("--steps", "6"), ours=True,
           resume=("--steps", "10", "--resume"), metrics=(r"val loss ([\d.]+)",),
           note="padding collate, causal Transformer with square mask, tied weights, Adam + OneCycleLR"),
    Recipe("ours/multitask", "fixtures", "", "multitask_recipe.py", ("--epochs", "6"), ours=True,
           metrics=(r"val loss ([\d.]+)", r"lr ([\d.e-]+)"),
           note="dict outputs, loss Module, Nesterov SGD per-group lr, ReduceLROnPlateau, early stop"),
]

# Scripts measured statically only (converted, markers counted): their original cannot run here.
STATIC = [
    Recipe("timm train.py (0.9.16)", "gh_huggingface+pytorch-image-models", "", "train.py",
           note="needs torchvision and PIL on the torch side (timm.data); converted with the timm package"),
]


# ---- data ---------------------------------------------------------------------------------------

def _idx_files(raw: Path, n_train: int, n_test: int, seed: int) -> None:
    import numpy as np
    rng = np.random.default_rng(seed)
    raw.mkdir(parents=True, exist_ok=True)
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        for kind, array in (("images-idx3", rng.integers(0, 256, (n, 28, 28), dtype=np.uint8)),
                            ("labels-idx1", rng.integers(0, 10, n, dtype=np.uint8))):
            header = np.array([0x0800 | array.ndim, *array.shape], ">u4")
            (raw / f"{prefix}-{kind}-ubyte").write_bytes(header.tobytes() + array.tobytes())


def data_mnist_at(cwd: Path, root: str) -> None:
    """MNIST idx files (48 training, 30 test images) in root/MNIST/raw, where torchvision keeps them."""
    _idx_files(cwd / root / "MNIST" / "raw", 48, 30, 0)


def data_fashion_at(cwd: Path, root: str) -> None:
    """FashionMNIST idx files (48 training, 30 test images) in root/FashionMNIST/raw."""
    _idx_files(cwd / root / "FashionMNIST" / "raw", 48, 30, 1)


def data_cifar_at(cwd: Path, root: str) -> None:
    """CIFAR-10 python batches (5 x 8 training, 20 test images) in root/cifar-10-batches-py."""
    import pickle

    import numpy as np
    rng = np.random.default_rng(2)
    d = cwd / root / "cifar-10-batches-py"
    d.mkdir(parents=True, exist_ok=True)
    for name, n in [(f"data_batch_{i}", 8) for i in range(1, 6)] + [("test_batch", 20)]:
        batch = {"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8),
                 "labels": [int(v) for v in rng.integers(0, 10, n)]}
        with open(d / name, "wb") as f:
            pickle.dump(batch, f)
    with open(d / "batches.meta", "wb") as f:
        pickle.dump({"label_names": ["plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
                                     "truck"]}, f)


def data_lines(cwd: Path, path: str) -> None:
    """A word corpus of 30 lines over 25 words at `path`."""
    import numpy as np
    rng = np.random.default_rng(3)
    vocab = [f"w{i}" for i in range(25)]
    (cwd / path).parent.mkdir(parents=True, exist_ok=True)
    (cwd / path).write_text("\n".join(" ".join(rng.choice(vocab, size=7)) for _ in range(30)) + "\n")


def data_names(cwd: Path, path: str) -> None:
    """200 names of the repository's names.txt (or made-up ones) at `path`."""
    src = cwd / "names.txt"
    names = src.read_text().split()[:200] if src.is_file() else [f"n{'abcde'[i % 5]}x{i}" for i in range(200)]
    (cwd / path).write_text("\n".join(names) + "\n")


def data_cora(cwd: Path, folder: str) -> None:
    """A Cora-like citation graph in folder/cora.content and cora.cites: 240 papers with 24
    binary features and one of 7 classes (string labels), 600 citations by paper id."""
    import numpy as np
    rng = np.random.default_rng(4)
    d = cwd / folder
    d.mkdir(parents=True, exist_ok=True)
    ids = rng.choice(np.arange(1000, 99999), size=240, replace=False)
    classes = [f"Topic_{c}" for c in "ABCDEFG"]
    with open(d / "cora.content", "w") as f:
        for pid in ids:
            feats = (rng.random(24) < 0.2).astype(int)
            feats[rng.integers(0, 24)] = 1      # no paper without a word
            f.write("\t".join([str(pid), *map(str, feats), classes[rng.integers(0, 7)]]) + "\n")
    edges = rng.choice(ids, size=(600, 2))
    with open(d / "cora.cites", "w") as f:
        f.writelines(f"{a}\t{b}\n" for a, b in edges if a != b)


def data_pretok(cwd: Path, folder: str) -> None:
    """Pretokenized shards as llama2.c's tinystories.py writes them (uint16 token ids, one file per
    shard; shard 0 is the validation split): 3 shards of 400 tokens below 64 in folder."""
    import numpy as np
    rng = np.random.default_rng(5)
    d = cwd / folder
    d.mkdir(parents=True, exist_ok=True)
    for i in range(3):
        rng.integers(0, 64, 400).astype(np.uint16).tofile(d / f"data{i:02d}.bin")


def data_cifar100_at(cwd: Path, root: str) -> None:
    """CIFAR-100 python pickles (40 training, 20 test images; fine and coarse labels) in
    root/cifar-100-python, where torchvision keeps them."""
    import pickle

    import numpy as np
    rng = np.random.default_rng(6)
    d = cwd / root / "cifar-100-python"
    d.mkdir(parents=True, exist_ok=True)
    for name, n in (("train", 40), ("test", 20)):
        fine = rng.integers(0, 100, n)
        batch = {"data": rng.integers(0, 256, (n, 3072), dtype=np.uint8), "fine_labels": [int(v) for v in fine],
                 "coarse_labels": [int(v) // 5 for v in fine]}
        with open(d / name, "wb") as f:
            pickle.dump(batch, f)
    with open(d / "meta", "wb") as f:
        pickle.dump({"fine_label_names": [f"c{i}" for i in range(100)],
                     "coarse_label_names": [f"s{i}" for i in range(20)]}, f)


def data_fineweb(cwd: Path, folder: str) -> None:
    """Token shards as build-nanogpt's fineweb.py writes them (uint16 .npy, 'val' in the first
    shard's name, 'train' in the others): 1 + 2 shards of 1200 tokens below 64 in folder; and a
    HellaSwag validation file of 3 short examples (hellaswag/hellaswag_val.jsonl beside the script,
    where its loader looks before downloading)."""
    import numpy as np
    rng = np.random.default_rng(7)
    d = cwd / folder
    d.mkdir(parents=True, exist_ok=True)
    for i, split in enumerate(("val", "train", "train")):
        np.save(d / f"edufineweb_{split}_{i:06d}.npy", rng.integers(0, 64, 1200).astype(np.uint16))
    h = cwd / "hellaswag"
    h.mkdir(exist_ok=True)
    words = ["run", "sit", "jump", "eat", "go", "nap"]
    rows = [{"ind": k, "ctx": f"A man {words[k]}s and", "label": int(rng.integers(0, 4)),
             "endings": [f"{w} {k}" for w in words[:4]]} for k in range(3)]
    (h / "hellaswag_val.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))


def data_cifar_split(cwd: Path, roots: str) -> None:
    """CIFAR-10 batches at each of the comma-separated roots (ddim reads training and test images
    from two folders)."""
    for root in roots.split(","):
        data_cifar_at(cwd, root)


def data_mnist_pickle(cwd: Path, path: str) -> None:
    """MNIST as deeplearning.net's mnist.pkl.gz at `path`: ((x, y) train, valid, test), images as
    float32 rows of 784 in [0, 1), labels int64; 200 training, 60 validation, 20 test images."""
    import gzip
    import pickle

    import numpy as np
    rng = np.random.default_rng(8)
    splits = tuple((rng.random((n, 784), dtype=np.float32), rng.integers(0, 10, n).astype(np.int64))
                   for n in (200, 60, 20))
    (cwd / path).parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(cwd / path, "wb") as f:
        pickle.dump(splits, f)


DATA = {"pretok": data_pretok, "mnist_pickle": data_mnist_pickle, "cifar100": data_cifar100_at, "fineweb": data_fineweb,
        "cifar_split": data_cifar_split,
        "mnist": data_mnist_at, "cora": data_cora, "fashion": data_fashion_at, "cifar": data_cifar_at,
        "lines": data_lines,
        "names": data_names, "words": lambda cwd, _: data_words(cwd), "tokens": lambda cwd, _: data_tokens(cwd),
        "text": lambda cwd, _: data_text(cwd)}


# ---- staging and conversion ----------------------------------------------------------------------

def _snapshot_root(r: Recipe, snapshots: Path) -> Path:
    if r.snapshot == "fixtures":
        return ROOT / "tests" / "fixtures" / "training" / "recipes"
    return snapshots / r.snapshot


def stage(r: Recipe, snapshots: Path, dest: Path) -> Path:
    """Copy the recipe's tree to dest (files up to 2 MB), with the row's edits applied."""
    src = _snapshot_root(r, snapshots) / r.tree
    if not src.is_dir():
        raise FileNotFoundError(f"snapshot {src} not found")
    shutil.rmtree(dest, ignore_errors=True)

    def ignore(d, names):
        return [n for n in names if n in (".git", "__pycache__")
                or (os.path.isfile(os.path.join(d, n)) and os.path.getsize(os.path.join(d, n)) > 2_000_000)]

    shutil.copytree(src, dest, ignore=ignore)
    for rel, old, new in r.edits:
        p = dest / rel
        text = p.read_text()
        if old not in text:
            raise ValueError(f"{r.name}: edit target {old!r} not in {rel}")
        p.write_text(text.replace(old, new))
    return dest


def convert(staged: Path, out: Path, timeout: float) -> dict:
    """`migrate convert staged -o out`; markers per converted file."""
    shutil.rmtree(out, ignore_errors=True)
    report = out.with_suffix(".report.json")
    proc = subprocess.run([sys.executable, str(ROOT / "cli.py"), "convert", str(staged), "-o", str(out),
                           "--jobs", "1", "--report", str(report)], check=False, capture_output=True, text=True,
                          timeout=timeout, env=_env())
    markers = {}
    for p in sorted(out.rglob("*.py")) if out.is_dir() else []:
        rel = p.relative_to(out)
        if any(part.startswith("migrate_runtime") and not (staged / part).exists() for part in rel.parts[:-1]):
            continue  # the runtime copy the conversion writes (its docstrings quote markers)
        found = MARKER_RE.findall(p.read_text(errors="replace"))
        if found:
            markers[str(p.relative_to(out))] = found
    return {"status": "ok" if out.is_dir() else "fail", "error": proc.stderr.strip()[-500:], "markers": markers}


def _env(extra=()) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([*map(str, extra), str(ROOT)])
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        env[k] = "1"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


# ---- one run (child process) ---------------------------------------------------------------------

def child(a) -> int:
    """Run one script as __main__, traced (see the module docstring)."""
    from migrate.check import script_trace
    script_trace.MAX_RECORDS = RECORDS
    if a.side == "converted":
        sys.meta_path.insert(0, _NoTorch())
    else:
        _tensorboard_standin()
    random.seed(0)
    import numpy as np
    np.random.seed(0)
    os.makedirs(a.trace, exist_ok=True)
    replay = os.path.join(a.trace, "..", "random.npz") if a.side == "converted" else None
    trace = script_trace.Trace(a.trace, a.tree, replay)
    options = script_trace.Options(weights=not a.no_weights, keep_set=True, by_name=True)
    (script_trace.install_torch if a.side == "original" else script_trace.install_ms)(trace, options)
    if a.no_dropout:
        script_trace.no_dropout(a.side)
    if a.no_augment:
        no_augment(a.side)
    sys.argv = [a.script, *a.rest]
    sys.path.insert(0, os.path.dirname(os.path.abspath(a.script)))
    try:
        runpy.run_path(a.script, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise
    finally:
        trace.save(os.path.join(a.trace, "..", "random.npz") if a.side == "original" else None)
    return 0


def no_augment(side: str) -> None:
    """Make random image augmentations the identity on one side (each side draws from its own
    generator): RandomHorizontalFlip never flips, RandomCrop takes the centre of its padded input,
    RandomRotation turns by 0 degrees."""
    if side == "original":
        import torchvision.transforms as T  # the bench stand-in (bench/standins)
        T.AUGMENT = False
    else:
        from ms_core.dataset import vision
        vision.RandomCrop.offset = lambda self, h, w: ((h - self.size[0]) // 2, (w - self.size[1]) // 2)
        vision.RandomHorizontalFlip.flips = lambda self: False
        vision.RandomRotation.angle = lambda self: 0.0


def _tensorboard_standin() -> None:
    """torch.utils.tensorboard without tensorboard (not installed here): a SummaryWriter that
    writes its scalars to scalars.csv in log_dir."""
    import types
    mod = types.ModuleType("torch.utils.tensorboard")

    class SummaryWriter:
        def __init__(self, log_dir=None, *args, **kwargs):
            self.path = os.path.join(log_dir or "runs", "scalars.csv")
            os.makedirs(os.path.dirname(self.path), exist_ok=True)

        def add_scalar(self, tag, value, step=None, *args, **kwargs):
            with open(self.path, "a") as f:
                f.write(f"{tag},{step},{float(value)}\n")

        def add_histogram(self, *args, **kwargs):   # graphs, histograms, images: nothing compared
            pass

        def add_graph(self, *args, **kwargs):
            pass

        def add_image(self, *args, **kwargs):
            pass

        def flush(self):
            pass

        def close(self):
            pass

    mod.SummaryWriter = SummaryWriter
    sys.modules["torch.utils.tensorboard"] = mod


# ---- one recipe (parent) -------------------------------------------------------------------------

def run_side(r: Recipe, tree: Path, side: str, trace: Path, args: tuple, timeout: float, resume: bool) -> dict:
    cwd = tree / r.cwd if r.cwd else (tree / r.script).parent
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child", "--side", side, "--script",
           str(tree / r.script), "--trace", str(trace / side), "--tree", str(tree)]
    cmd += ["--no-weights"] if resume else []
    cmd += [] if r.dropout else ["--no-dropout"]
    cmd += [] if r.augment else ["--no-augment"]
    cmd += ["--", *args]
    extra = [tree / d for d in r.path] + ([STANDINS] if side == "original" else []) + [STANDIN_LIBS]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, check=False, cwd=cwd, env=_env(extra), capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"status": "timeout", "error": f"still running after {timeout:.0f} s", "stdout": ""}
    res = {"status": "ran" if proc.returncode == 0 else "fail", "stdout": proc.stdout,
           "seconds": round(time.perf_counter() - t0, 1)}
    if proc.returncode:
        lines = [ln for ln in proc.stderr.strip().splitlines() if ln.strip()]
        res["error"] = lines[-1][:300] if lines else f"exit {proc.returncode}"
        res["where"] = _where(proc.stderr, tree)
        res["stderr"] = proc.stderr[-4000:]
    return res


def _where(stderr: str, tree: Path) -> str:
    where = ""
    for m in re.finditer(r'File "([^"]+)", line (\d+)', stderr):
        if m.group(1).startswith(str(tree)):
            where = f"{os.path.relpath(m.group(1), tree)}:{m.group(2)}"
    return where


def compare_metrics(r: Recipe, a: str, b: str) -> dict:
    """The row's printed numbers: same count, each within TOLERANCE relative or one unit of the
    last printed digit."""
    want = [m for rx in r.metrics for m in re.findall(rx, a)]
    got = [m for rx in r.metrics for m in re.findall(rx, b)]
    def flat(ms):
        return [v for m in ms for v in ((m,) if isinstance(m, str) else m)]

    want, got = flat(want), flat(got)
    if len(want) != len(got):
        return {"status": "differ", "detail": f"{len(got)} numbers printed, torch {len(want)}", "n": len(want)}
    worst = 0.0
    for x, y in zip(got, want):
        unit = 10.0 ** -len(y.split(".")[1]) if "." in y else 1.0
        diff = abs(float(x) - float(y))
        if diff > max(TOLERANCE * abs(float(y)), unit * 1.0001):
            return {"status": "differ", "detail": f"{x} vs torch {y}", "n": len(want)}
        worst = max(worst, diff / max(abs(float(y)), 1e-12))
    return {"status": "agree" if want else "none", "n": len(want), "worst": worst}


def compare_run(r: Recipe, trace: Path, a: dict, b: dict) -> dict:
    from migrate.check import script_trace
    try:
        ta = json.loads((trace / "original" / "trace.json").read_text())
        tb = json.loads((trace / "converted" / "trace.json").read_text())
    except (OSError, ValueError):
        return {"status": "no trace"}
    res = script_trace.compare(ta, tb, TOLERANCE)
    res["metrics"] = compare_metrics(r, a["stdout"], b["stdout"]) if r.metrics else {"status": "none"}
    if res["metrics"]["status"] == "differ":
        res["status"] = "differ"
    if res["status"] == "agree" and (len(ta["losses"]) != len(tb["losses"]) or len(ta["steps"]) != len(tb["steps"])):
        res["status"] = "differ"
        res["detail"] = (f"{len(tb['losses'])} losses / {len(tb['steps'])} steps, torch "
                         f"{len(ta['losses'])} / {len(ta['steps'])}")
    return res


def run_recipe(r: Recipe, snapshots: Path, work: Path, timeout: float) -> dict:
    row = {"name": r.name, "ours": r.ours, "note": r.note}
    base = work / re.sub(r"[^A-Za-z0-9_.-]+", "_", r.name)
    try:
        staged = stage(r, snapshots, base / "original")
    except (OSError, ValueError) as exc:
        row["skipped"] = str(exc)
        return row
    conv = convert(staged, base / "converted", timeout)
    row["markers"] = conv["markers"]
    if conv["status"] != "ok":
        row["convert_error"] = conv["error"]
        return row
    for side_tree in (staged, base / "converted"):
        cwd = side_tree / r.cwd if r.cwd else (side_tree / r.script).parent
        for maker, arg in r.data:
            DATA[maker](cwd, arg)
    trace = base / "trace"
    shutil.rmtree(trace, ignore_errors=True)
    for side, side_tree in (("original", staged), ("converted", base / "converted")):
        for script in r.prepare:
            prep = replace(r, script=os.path.join(os.path.dirname(r.script), script))
            res = run_side(prep, side_tree, side, trace / "prepare", (), timeout, False)
            if res["status"] != "ran":
                row[side] = {**res, "error": f"{script}: {res.get('error', res['status'])}"}
                return row
    row["original"] = run_side(r, staged, "original", trace, r.args, timeout, False)
    row["converted"] = run_side(r, base / "converted", "converted", trace, r.args, timeout, False)
    if row["original"]["status"] == "ran" and row["converted"]["status"] == "ran":
        row["compare"] = compare_run(r, trace, row["original"], row["converted"])
    if r.resume is not None and row["original"]["status"] == "ran":
        rt = base / "trace_resume"
        shutil.rmtree(rt, ignore_errors=True)
        row["resume_original"] = run_side(r, staged, "original", rt, r.resume, timeout, True)
        if row["converted"]["status"] == "ran":
            row["resume_converted"] = run_side(r, base / "converted", "converted", rt, r.resume, timeout, True)
            if row["resume_original"]["status"] == "ran" and row["resume_converted"]["status"] == "ran":
                row["resume_compare"] = compare_run(r, rt, row["resume_original"], row["resume_converted"])
    return row


def static_row(r: Recipe, snapshots: Path, work: Path, timeout: float) -> dict:
    row = {"name": r.name, "ours": False, "note": r.note, "static": True}
    base = work / re.sub(r"[^A-Za-z0-9_.-]+", "_", r.name)
    try:
        staged = stage(r, snapshots, base / "original")
    except (OSError, ValueError) as exc:
        row["skipped"] = str(exc)
        return row
    conv = convert(staged, base / "converted", timeout)
    script = r.script
    row["markers"] = {k: v for k, v in conv["markers"].items() if k == script}
    row["package_markers"] = conv["markers"]
    return row


# ---- the table -----------------------------------------------------------------------------------

def _run_cell(res: dict | None) -> str:
    if not res:
        return "-"
    if res["status"] == "ran":
        return "yes"
    where = f" ({res['where']})" if res.get("where") else ""
    return f"no: {res.get('error', res['status'])[:110]}{where}"


def _agree_cell(cmp: dict | None) -> str:
    if not cmp:
        return "-"
    if cmp["status"] == "agree":
        errs = [e for e in (cmp.get("loss_err"), cmp.get("param_err")) if e is not None]
        m = cmp.get("metrics", {})
        extra = f", {m['n']} metrics" if m.get("status") == "agree" else ""
        return f"yes ({cmp['losses']} losses, {cmp['steps']} steps{extra}; worst {max(errs, default=0):.1e})"
    if cmp["status"] == "differ":
        bits = []
        if cmp.get("loss_err") is not None:
            bits.append(f"loss {cmp['loss_err']:.1e}")
        if cmp.get("param_err") is not None:
            bits.append(f"params {cmp['param_err']:.1e}")
        if cmp.get("metrics", {}).get("status") == "differ":
            bits.append("metrics: " + cmp["metrics"]["detail"])
        if cmp.get("detail"):
            bits.append(cmp["detail"])
        return "no: " + ", ".join(bits)
    return cmp["status"]


def _marker_cell(markers: dict) -> str:
    if not markers:
        return "0"
    ids = sorted({i for v in markers.values() for i in v})
    return f"{sum(len(v) for v in markers.values())} ({', '.join(ids[:6])}{', ...' if len(ids) > 6 else ''})"


def table(rows: list) -> str:
    head = ["recipe", "markers", "runs without torch", "agrees with torch", "resume agrees"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        if row.get("skipped"):
            out.append(f"| {row['name']} | skipped: {row['skipped']} | | | |")
            continue
        if row.get("static"):
            out.append(f"| {row['name']} | {_marker_cell(row['markers'])} in train.py, "
                       f"{_marker_cell(row['package_markers'])} in the tree | not run: {row['note']} | - | - |")
            continue
        orig = row.get("original", {})
        runs = _run_cell(row.get("converted"))
        if orig and orig.get("status") != "ran":
            runs = f"original failed: {_run_cell(orig)}"
        resume = "-"
        if "resume_original" in row:
            if row["resume_original"]["status"] != "ran":
                resume = f"original failed: {_run_cell(row['resume_original'])}"
            elif row.get("resume_converted", {}).get("status") not in (None, "ran"):
                resume = _run_cell(row["resume_converted"])
            else:
                resume = _agree_cell(row.get("resume_compare"))
        out.append(f"| {row['name']} | {_marker_cell(row.get('markers', {}))} | {runs} | "
                   f"{_agree_cell(row.get('compare'))} | {resume} |")
    return "\n".join(out)


def summary(rows: list) -> str:
    public = [r for r in rows if not r.get("ours") and not r.get("static") and not r.get("skipped")]
    clean = sum(not r.get("markers") for r in public)
    runs = sum(r.get("converted", {}).get("status") == "ran" for r in public)
    agree = sum(r.get("compare", {}).get("status") == "agree" for r in public)
    res = [r for r in public if "resume_original" in r]
    res_ok = sum(r.get("resume_compare", {}).get("status") == "agree" for r in res)
    return (f"public scripts: {len(public)}; converted without markers {clean}/{len(public)}, run without torch "
            f"{runs}/{len(public)}, agree with torch {agree}/{len(public)}, resume agrees {res_ok}/{len(res)}")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--snapshots", default=os.environ.get("MS_MIGRATE_BENCH_SNAPSHOTS", "/work/cache/src"))
    ap.add_argument("--work", default="/tmp/ms-migrate-recipes")
    ap.add_argument("--only", help="comma-separated substrings of recipe names")
    ap.add_argument("-j", "--jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--json")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--side", help=argparse.SUPPRESS)
    ap.add_argument("--script", help=argparse.SUPPRESS)
    ap.add_argument("--trace", help=argparse.SUPPRESS)
    ap.add_argument("--tree", help=argparse.SUPPRESS)
    ap.add_argument("--no-weights", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-dropout", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--no-augment", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args(argv)
    if a.child:
        a.rest = a.rest[1:] if a.rest[:1] == ["--"] else a.rest
        return child(a)
    snapshots, work = Path(a.snapshots), Path(a.work)
    work.mkdir(parents=True, exist_ok=True)
    keep = [s.strip() for s in a.only.split(",")] if a.only else None
    chosen = [r for r in RECIPES if keep is None or any(k in r.name for k in keep)]
    static = [r for r in STATIC if keep is None or any(k in r.name for k in keep)]
    t0 = time.perf_counter()

    def one(r):
        try:
            row = run_recipe(r, snapshots, work, a.timeout)
        except Exception as exc:  # noqa: BLE001 (a bench bug costs its row only)
            row = {"name": r.name, "ours": r.ours, "skipped": f"bench error: {type(exc).__name__}: {exc}"}
        print(f"  {r.name:<36} {_agree_cell(row.get('compare'))[:60]:<60} {time.perf_counter() - t0:6.0f} s",
              flush=True)
        return row

    with ThreadPoolExecutor(max(1, a.jobs)) as pool:
        rows = list(pool.map(one, chosen))
    rows += [static_row(r, snapshots, work, a.timeout) for r in static]
    print()
    print(table(rows))
    print()
    print(summary(rows))
    if a.json:
        Path(a.json).write_text(json.dumps(rows, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
