"""The statement rules of the training pass, described as registry records.

The pass applies them (a step is rewritten by several at once: MS201 with MS202, MS203, ...);
reports carry their IDs and ``migrate mappings --rules`` lists them. Its markers (MS951-MS955)
are in :data:`migrate.convert.registry.MARKERS`.
"""
from __future__ import annotations

from migrate.convert.registry import statement_rule

TRAINING_STEP = statement_rule(
    "MS201", "training_step", "Replace zero_grad/loss.backward()/optimizer.step() with forward_fn + "
                              "ms.value_and_grad (built once) + optimizer(grads).")
ZERO_GRAD = statement_rule(
    "MS202", "zero_grad", "Replace optimizer.zero_grad() / model.zero_grad() with nothing (fresh "
                          "gradients on every call).")
CLIP_GRAD_NORM = statement_rule(
    "MS203", "clip_grad_norm", "Replace clip_grad_norm_(params, max_norm) with grads = "
                               "ops.clip_by_global_norm(grads, max_norm).")
CLIP_GRAD_VALUE = statement_rule(
    "MS204", "clip_grad_value", "Replace clip_grad_value_(params, v) with grads = ops.clip_by_value(grads, -v, v).")
GRAD_ACCUMULATION = statement_rule(
    "MS205", "grad_accumulation", "Replace backward() every batch + step() every k batches with a "
                                  "summed grads tuple applied and reset every k batches.")
GRAD_SCALER = statement_rule(
    "MS206", "grad_scaler", "Replace scaler.scale(loss).backward()/unscale_/step/update with "
                            "scale in forward_fn, unscale(grads), all_finite, adjust.")
GUARDED_STEP = statement_rule(
    "MS207", "guarded_step", "Replace `if cond: optimizer.step()` with `if cond: optimizer(grads)`.")
AUTOCAST = statement_rule(
    "MS208", "autocast", "Replace `with autocast(): body` with body (float32; use ms.amp.auto_mixed_precision).")
AUTOGRAD_GRAD = statement_rule(
    "MS209", "autograd_grad", "Replace torch.autograd.grad(f(x), x, create_graph=True) with ms.grad(lambda x: f(x))(x).")
INIT_PROCESS_GROUP = statement_rule(
    "MS210", "init_process_group", "Replace dist.init_process_group(...) with communication.init() + "
                                   "set_auto_parallel_context(DATA_PARALLEL, gradients_mean=True).")
DATASET_BASE = statement_rule(
    "MS211", "dataset_base", "Replace class D(torch.utils.data.Dataset) with class D (a GeneratorDataset source).")
SAMPLER_STATEMENTS = statement_rule(
    "MS212", "distributed_sampler_statements", "Replace sampler = DistributedSampler(...) / "
                                               "sampler.set_epoch(e) with dataset sharding.")
CONDITIONAL_BACKWARD = statement_rule(
    "MS213", "conditional_backward", "Replace `loss = f(x); if C: loss.backward()` with the forward "
                                     "pass in `if C: grad_fn(...) else: f(x)`.")
LEN_LOADER = statement_rule(
    "MS214", "len_loader", "Replace len(loader) / len(loader.dataset) with get_dataset_size() of the "
                           "batched / unbatched dataset.")
GRAD_REDUCER = statement_rule(
    "MS215", "grad_reducer", "Replace DDP gradient averaging with nn.DistributedGradReducer on the grads.")
NO_GRAD_IN_FORWARD = statement_rule(
    "MS216", "no_grad_in_forward", "Replace `with torch.no_grad(): t = f(x)` inside forward_fn with "
                                   "t = f(x); t = ops.stop_gradient(t).")
MANUAL_UPDATE = statement_rule(
    "MS217", "manual_update", "Replace backward() + `for p in net.parameters(): p.data.add_(-lr * p.grad)` "
                              "with value_and_grad over net.trainable_params() + `for p, p_grad in zip(...)`: "
                              "p.set_data(p - lr * p_grad).")
GRADIENT_COMPUTATION = statement_rule(
    "MS218", "gradient_computation", "Replace y.sum().backward() with no optimizer (x.grad read after it) "
                                     "with ms.value_and_grad over the networks' parameters (and x): x_grad.")
BACKWARD_CHAIN = statement_rule(
    "MS219", "backward_chain", "Replace several backward() calls (in one block, or one per loop iteration) "
                               "before one step with their value_and_grad grads summed in a tuple.")
TRAIN_MODE = statement_rule(
    "MS229", "train_mode", "Replace net = Net() with net = Net(); net.set_train(True) for a network the file "
                           "trains and never switches with train()/eval() (torch modules start in training mode).")
VJP_THROUGH = statement_rule(
    "MS232", "vjp_through", "Replace fake = netG(z) read by a loss after another optimizer's step (a GAN "
                            "generator) with fake, fake_vjp = ms.vjp(...) and the loss's fake gradient "
                            "pulled back through fake_vjp.")
PARAM_NAME_TESTS = statement_rule(
    "MS233", "param_name_tests", "Replace pn.endswith('weight') / pn == 'bias' on a named_parameters() name with "
                                 "tests that also accept gamma/embedding_table / beta (the converted layers' names).")
PARAM_INPLACE = statement_rule(
    "MS234", "param_inplace", "Replace in-place arithmetic on the parameter of a parameters() loop (p.mul_(c), "
                              "p.data.add_(x), p -= x) with p.set_data(...).")
LR_READS = statement_rule(
    "MS238", "lr_reads", "Replace a read of a parameter group's lr (opt.param_groups[0]['lr'], g['lr'] in a loop "
                         "over param_groups) with float(...): MindSpore keeps a Parameter there.")
