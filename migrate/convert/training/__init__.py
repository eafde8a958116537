"""Training-script rewrites: a statement-level pass that runs before the main walk.

PyTorch trains with a tape (``optimizer.zero_grad(); loss = ...; loss.backward();
optimizer.step()``); MindSpore with a function transform. This pass turns each training step it
can prove safe into MindSpore's functional form::

    def forward_fn(inputs, targets):          # defined once, before the outermost loop
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        return loss, outputs                  # the loss, then what the rest of the loop reads

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)
    for inputs, targets in loader:
        (loss, outputs), grads = grad_fn(inputs, targets)
        optimizer(grads)

and leaves the statements inside (model calls, losses, tensor methods) to the main walk.
Variants: gradient clipping, accumulation, a guarded ``step()``, GradScaler + autocast, a
training step inside a function, several optimizers stepping in turn (GAN), ``backward()`` only
in a training phase, data-parallel steps, ``torch.autograd.grad`` -> ``ms.grad``, ``no_grad``
blocks inside the forward pass -> ``ops.stop_gradient`` (only there: outside a transform nothing is
recorded, and the main walk unwraps them). Around the steps: ``zero_grad()`` removed,
``len(loader)``, Dataset classes, samplers, process groups. A step it cannot prove safe (``.grad``
read, ``retain_graph``, a loss that depends on a network call made before ``zero_grad()``, ...)
stays as it was under a ``# migrate: MS95x`` marker that says what to do by hand.

How it is safe: the forward segment is the backward slice of the loss inside the block of the
``backward()`` call (bounded by ``zero_grad()`` and by earlier steps); the names it reads that
the loop rebinds become forward_fn's parameters (the rest are closures); the names it binds
that any other code reads are returned as auxiliary outputs. Untouched statements keep their
identity, so the main walk still reports the input's line numbers.

Modules: ``driver`` (the pass over a file and its scopes), ``step`` (one training step, planned
then written), ``update`` (clipping, unscale, step, zero_grad after ``backward()``), ``cleanup``
(statements around the steps), ``autograd_grad``, ``bindings`` (what the file binds: optimizers,
loaders, ...), ``tree`` (names, paths, identity-preserving edits, lines), ``rules`` (the
``MS2xx`` records). The table rules of mappings/training.toml (DataLoader, TensorDataset, ...)
are argument rules in :mod:`migrate.convert.rules.data`.
"""
from __future__ import annotations

from migrate.convert.training.driver import TrainingPass, training_pass

__all__ = ["TrainingPass", "training_pass"]
