"""einops over the target's ops, generated into the converted file that uses einops.

``from einops import rearrange, repeat, reduce`` and ``from einops.layers.torch import
Rearrange, Reduce`` are everywhere in research code (lucidrains' models, most vision
transformers). einops itself cannot run there: its torch layers are torch Modules, and its
functions do not know ms_core or MindSpore tensors. The converted file gets these sources
instead (only the ones it uses): a parser of einops' pattern language, and
rearrange/reduce/repeat written with ``ops.reshape``, ``ops.transpose``, ``ops.broadcast_to`` and
the reductions, so they differentiate like any other op. Patterns are parsed when first seen (a
pattern only run time knows works too) and the parse is kept per pattern; shapes are worked out
on each call.

The sources are templates (``ops.``/``nn.`` are the target's, renamed by the converter when the
file binds those names); :data:`SOURCES` maps each key (also the generated name) to its source,
:data:`NEEDS` says which other pieces each one uses. Errors are MindSpore-style ValueErrors:
``For 'rearrange', the shape of 'tensor' ...``.
"""
from __future__ import annotations

_PATTERN = '''
class EinopsPattern:
    """einops' pattern language ('b c (h p1) (w p2) -> b (h w) (p1 p2 c)') for rearrange,
    reduce and repeat: parsed once per pattern (kept in _parsed), shapes worked out per call."""

    _parsed = {}
    _reductions = ("mean", "sum", "max", "min", "prod", "any", "all")

    @classmethod
    def of(cls, operation, pattern):
        found = cls._parsed.get((operation, pattern))
        if found is None:
            found = cls._parsed[(operation, pattern)] = cls(operation, pattern)
        return found

    def __init__(self, operation, pattern):
        self.operation, self.pattern = operation, pattern
        if not isinstance(pattern, str) or pattern.count("->") != 1:
            self.fail(f"the 'pattern' must be a str with one '->', but got {pattern!r}")
        left, right = pattern.split("->")
        self.anonymous = {}
        self.left, self.right = self.side(left, "left"), self.side(right, "right")
        names = [{a for g in side for a in g[0] if a != "..."} for side in (self.left, self.right)]
        self.left_names, self.right_names = names
        dots = [any("..." in g[0] for g in side) for side in (self.left, self.right)]
        if dots[1] and not dots[0]:
            self.fail(f"the 'pattern' has '...' on the right side only: {pattern!r}")
        if any("..." in g[0] and g[1] for g in self.left):
            self.fail(f"the 'pattern' may not put '...' inside parentheses on the left side: {pattern!r}")
        self.dots = dots[0]
        if operation == "rearrange":
            if self.anonymous:
                self.fail(f"the 'pattern' may hold no anonymous axis but 1 in rearrange: {pattern!r}")
            if names[0] != names[1] or dots[0] != dots[1]:
                extra = sorted(names[0] ^ names[1]) or ["..."]
                self.fail(f"the axes {extra} of 'pattern' {pattern!r} must be on both sides")
        elif operation == "repeat" and (names[0] - names[1] or dots[0] != dots[1]):
            extra = sorted(names[0] - names[1]) or ["..."]
            self.fail(f"the axes {extra} of 'pattern' {pattern!r} are on the left side only")
        elif operation == "reduce" and names[1] - names[0]:
            self.fail(f"the axes {sorted(names[1] - names[0])} of 'pattern' {pattern!r} are on the right "
                      f"side only")

    def fail(self, what):
        raise ValueError(f"For '{self.operation}', {what}.")

    def side(self, text, where):
        """The groups of one side: (axis names, parenthesized); a number > 1 is an anonymous
        axis of that length, 1 and () a unit axis (a group of no axis)."""
        groups, group, seen = [], None, set()
        for token in text.replace("(", " ( ").replace(")", " ) ").split():
            if token == "(":
                if group is not None:
                    self.fail(f"the 'pattern' may not nest parentheses: {self.pattern!r}")
                group = []
                continue
            if token == ")":
                if group is None:
                    self.fail(f"the 'pattern' has an unmatched ')': {self.pattern!r}")
                groups.append((tuple(group), True))
                group = None
                continue
            if token.isdecimal():
                if int(token) == 0:
                    self.fail(f"the 'pattern' may not hold an axis of length 0: {self.pattern!r}")
                name = None if int(token) == 1 else f"{len(self.anonymous)}:{token}"
                if name is not None:
                    self.anonymous[name] = int(token)
            elif token == "..." or token.isidentifier():
                name = token
                if name in seen:
                    self.fail(f"the axis {name!r} is twice on the {where} side of 'pattern' {self.pattern!r}")
                seen.add(name)
            else:
                self.fail(f"the 'pattern' holds {token!r}, which is not an axis name: {self.pattern!r}")
            if group is not None:
                group.extend([name] if name is not None else [])
            else:
                groups.append(((name,) if name is not None else (), False))
        if group is not None:
            self.fail(f"the 'pattern' has an unmatched '(': {self.pattern!r}")
        return groups

    def expand(self, groups, dots):
        """The groups with '...' replaced by its axes (bare: one group each; in parentheses: all
        in that group)."""
        out = []
        for names, parens in groups:
            if "..." not in names:
                out.append(names)
            elif parens:
                at = names.index("...")
                out.append(names[:at] + dots + names[at + 1:])
            else:
                out.extend((d,) for d in dots)
        return out

    def lengths(self, shape, axes_lengths):
        """Every axis's length from the input shape and the given lengths."""
        ndim = len(shape)
        count = len(self.left) - 1 if self.dots else len(self.left)
        if ndim < count or (not self.dots and ndim != count):
            self.fail(f"the 'pattern' {self.pattern!r} has {count}{' or more' if self.dots else ''} axes "
                      f"on the left side, but got a tensor of shape {tuple(shape)}")
        dots = tuple(f"...{i}" for i in range(ndim - count)) if self.dots else ()
        known = dict(self.anonymous)
        for name, value in axes_lengths.items():
            if name not in self.left_names | self.right_names:
                self.fail(f"the axis {name!r} given a length is not in 'pattern' {self.pattern!r}")
            known[name] = int(value)
        left = self.expand(self.left, dots)
        for names, size in zip(left, shape):
            unknown = [a for a in names if a not in known]
            product = 1
            for a in names:
                product *= known.get(a, 1)
            if len(unknown) > 1:
                self.fail(f"the lengths of axes {unknown} in 'pattern' {self.pattern!r} cannot be inferred: "
                          f"give all but one of them")
            if unknown and size % product == 0:
                known[unknown[0]] = size // product
            elif unknown or product != size:
                self.fail(f"the axis of length {size} cannot be split as {names or '1'} "
                          f"(lengths {[known.get(a, '?') for a in names]}) in 'pattern' {self.pattern!r}, "
                          f"tensor shape {tuple(shape)}")
        return known, left, self.expand(self.right, dots)

    def apply(self, tensor, reduction, axes_lengths):
        """rearrange / reduce (``reduction`` given) / repeat of ``tensor``."""
        if isinstance(tensor, (list, tuple)):
            tensor = ops.stack(list(tensor))
        known, left, right = self.lengths(tuple(tensor.shape), axes_lengths)
        order = [a for names in left for a in names]
        out_axes = [a for names in right for a in names]
        missing = [a for a in out_axes if a not in known]
        if missing:
            self.fail(f"the lengths of the new axes {missing} of 'pattern' {self.pattern!r} must be given")
        x = self.reshape(tensor, [known[a] for a in order])
        if reduction is not None:
            gone = tuple(i for i, a in enumerate(order) if a not in out_axes)
            x = self.reduce(x, reduction, gone) if gone else x
            order = [a for a in order if a in out_axes]
        kept = [a for a in out_axes if a in order]
        perm = tuple(order.index(a) for a in kept)
        if perm != tuple(range(len(perm))):
            x = ops.transpose(x, perm)
        if len(kept) != len(out_axes):  # repeat: new axes, as 1s broadcast to their lengths
            x = self.reshape(x, [known[a] if a in order else 1 for a in out_axes])
            x = ops.broadcast_to(x, tuple(known[a] for a in out_axes))
        sizes = []
        for names in right:
            size = 1
            for a in names:
                size *= known[a]
            sizes.append(size)
        return self.reshape(x, sizes)

    def reshape(self, x, shape):
        return x if tuple(x.shape) == tuple(shape) else ops.reshape(x, tuple(shape))

    def reduce(self, x, reduction, axes):
        if callable(reduction):
            return reduction(x, axes)
        if reduction not in self._reductions:
            self.fail(f"the 'reduction' must be one of {list(self._reductions)} or a callable, "
                      f"but got {reduction!r}")
        if reduction == "mean":
            return ops.mean(x, axes)
        if reduction == "sum":
            return ops.sum(x, axes)
        if reduction == "max":
            return ops.amax(x, axes)
        if reduction == "min":
            return ops.amin(x, axes)
        if reduction == "prod":
            return ops.prod(x, axes)
        return ops.any(x, axes) if reduction == "any" else ops.all(x, axes)
'''

_REARRANGE = '''
def einops_rearrange(tensor, pattern, **axes_lengths):
    """einops.rearrange over the target's ops (a list of tensors is stacked first)."""
    return EinopsPattern.of("rearrange", pattern).apply(tensor, None, axes_lengths)
'''

_REDUCE = '''
def einops_reduce(tensor, pattern, reduction, **axes_lengths):
    """einops.reduce over the target's ops: 'mean', 'sum', 'max', 'min', 'prod', 'any', 'all'
    or a callable(tensor, axes)."""
    return EinopsPattern.of("reduce", pattern).apply(tensor, reduction, axes_lengths)
'''

_REPEAT = '''
def einops_repeat(tensor, pattern, **axes_lengths):
    """einops.repeat over the target's ops: new axes are broadcast to their lengths."""
    return EinopsPattern.of("repeat", pattern).apply(tensor, None, axes_lengths)
'''

_REARRANGE_CELL = '''
class EinopsRearrange(nn.Cell):
    """einops.layers.torch.Rearrange as a Cell (the pattern is checked when it is built)."""

    def __init__(self, pattern, **axes_lengths):
        super().__init__()
        EinopsPattern.of("rearrange", pattern)
        self.pattern, self.axes_lengths = pattern, dict(axes_lengths)

    def construct(self, x):
        return einops_rearrange(x, self.pattern, **self.axes_lengths)

    def extend_repr(self):
        return ", ".join([repr(self.pattern)] + [f"{k}={v}" for k, v in self.axes_lengths.items()])
'''

_REDUCE_CELL = '''
class EinopsReduce(nn.Cell):
    """einops.layers.torch.Reduce as a Cell (the pattern is checked when it is built)."""

    def __init__(self, pattern, reduction, **axes_lengths):
        super().__init__()
        EinopsPattern.of("reduce", pattern)
        self.pattern, self.reduction, self.axes_lengths = pattern, reduction, dict(axes_lengths)

    def construct(self, x):
        return einops_reduce(x, self.pattern, self.reduction, **self.axes_lengths)

    def extend_repr(self):
        return ", ".join([repr(self.pattern), repr(self.reduction)]
                         + [f"{k}={v}" for k, v in self.axes_lengths.items()])
'''

_STAR = '''
def einops_star_pattern(pattern, operation):
    """The number of axes before and after the one '*' of a pack/unpack pattern ('b * d')."""
    names = pattern.split() if isinstance(pattern, str) else None
    if not names or names.count("*") != 1 or any(n != "*" and not n.isidentifier() for n in names) \\
            or len(set(names)) != len(names):
        raise ValueError(f"For '{operation}', the 'pattern' must hold distinct axis names and one '*', "
                         f"but got {pattern!r}.")
    at = names.index("*")
    return at, len(names) - at - 1
'''

_PACK = '''
def einops_pack(tensors, pattern):
    """einops.pack over the target's ops: the axes at '*' of each tensor flattened into one and
    the tensors joined there; returns (packed, the shapes of those axes)."""
    before, after = einops_star_pattern(pattern, "pack")
    flat, shapes = [], []
    for i, t in enumerate(tensors):
        shape = tuple(t.shape)
        if len(shape) < before + after:
            raise ValueError(f"For 'pack', the 'pattern' {pattern!r} needs {before + after} axes or more, "
                             f"but tensor {i} has shape {shape}.")
        middle = shape[before:len(shape) - after]
        size = 1
        for n in middle:
            size *= n
        shapes.append(middle)
        flat.append(ops.reshape(t, shape[:before] + (size,) + shape[len(shape) - after:]))
    return ops.cat(flat, before), shapes
'''

_UNPACK = '''
def einops_unpack(tensor, packed_shapes, pattern):
    """einops.unpack over the target's ops: the '*' axis split into the given shapes (one of
    them may hold one -1)."""
    before, after = einops_star_pattern(pattern, "unpack")
    shape = tuple(tensor.shape)
    if len(shape) != before + after + 1:
        raise ValueError(f"For 'unpack', the 'pattern' {pattern!r} needs {before + after + 1} axes, "
                         f"but got a tensor of shape {shape}.")
    sizes = []
    for part in packed_shapes:
        part = tuple(part)
        if part.count(-1) > 1:
            raise ValueError(f"For 'unpack', a shape in 'packed_shapes' may hold one -1, but got {part}.")
        sizes.append(None if -1 in part else einops_prod(part))
    unknown = [i for i, size in enumerate(sizes) if size is None]
    if len(unknown) > 1:
        raise ValueError(f"For 'unpack', at most one of 'packed_shapes' may hold -1, but got {packed_shapes}.")
    if unknown:
        rest = shape[before] - sum(size for size in sizes if size is not None)
        if rest < 0 or rest % max(1, -einops_prod(packed_shapes[unknown[0]])):
            raise ValueError(f"For 'unpack', 'packed_shapes' {packed_shapes} do not fit axis {before} of "
                             f"length {shape[before]}.")
        sizes[unknown[0]] = rest
    if sum(sizes) != shape[before]:
        raise ValueError(f"For 'unpack', 'packed_shapes' {packed_shapes} hold {sum(sizes)} elements, but "
                         f"axis {before} has length {shape[before]}.")
    parts = ops.split(tensor, sizes, before) if len(sizes) > 1 else [tensor]
    out = []
    for part, size, packed in zip(parts, sizes, packed_shapes):
        middle = tuple(size // max(1, -einops_prod(packed)) if n == -1 else n for n in packed)
        out.append(ops.reshape(part, shape[:before] + middle + shape[before + 1:]))
    return out
'''

_PROD = '''
def einops_prod(values):
    """The product of a sequence of ints (1 when empty)."""
    out = 1
    for v in values:
        out *= v
    return out
'''

_PARSE_SHAPE = '''
def einops_parse_shape(x, pattern):
    """einops.parse_shape: the length of each named axis of ``x`` ('_' skips an axis, '...'
    any number of them)."""
    names, shape = pattern.split(), tuple(x.shape)
    dots = names.count("...")
    if dots > 1 or any(n != "..." and not n.isidentifier() for n in names) \\
            or (len(shape) != len(names) if not dots else len(shape) < len(names) - 1):
        raise ValueError(f"For 'parse_shape', the 'pattern' {pattern!r} does not fit shape {shape}.")
    if dots:
        at = names.index("...")
        names = names[:at] + ["_"] * (len(shape) - len(names) + 1) + names[at + 1:]
    return {n: s for n, s in zip(names, shape) if n != "_"}
'''

_EINSUM = '''
def einops_einsum(*tensors_and_pattern):
    """einops.einsum(*tensors, pattern) as torch.einsum's translation: multi-letter axis names
    become letters."""
    *tensors, pattern = tensors_and_pattern
    if not isinstance(pattern, str) or "->" not in pattern or "(" in pattern or not tensors:
        raise ValueError(f"For 'einsum', the last argument must be a pattern 'a b, b c -> a c' after "
                         f"the tensors, but got {pattern!r}.")
    letters, parts = {}, []
    inputs, output = pattern.split("->")
    for spec in inputs.split(",") + [output]:
        text = ""
        for name in spec.split():
            if name != "...":
                if not name.isidentifier():
                    raise ValueError(f"For 'einsum', {name!r} in 'pattern' {pattern!r} is not an axis name.")
                letters.setdefault(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[len(letters)])
            text += "..." if name == "..." else letters[name]
        parts.append(text)
    return _torch_einsum(",".join(parts[:-1]) + "->" + parts[-1], *tensors)
'''

_ASNUMPY = '''
def einops_asnumpy(tensor):
    """einops.asnumpy: the tensor's values as a NumPy array."""
    return tensor.asnumpy() if hasattr(tensor, "asnumpy") else tensor
'''


def _replaced_modules_source() -> str:
    """The generated ``_torch_replaced_modules``: einops' modules (from the einops tables) as
    module objects holding this file's generated code, for imports by name."""
    from mappings import load_tables
    contents: dict[str, dict[str, str]] = {}
    for qual, entry in load_tables().items():
        if qual.split(".", 1)[0] == "einops" and entry.label != "unsupported" and entry.target:
            module, name = qual.rsplit(".", 1)
            contents.setdefault(module, {})[name] = entry.target
    table = "".join(f"\n            {module!r}: {{"
                    + "".join(f"\n                {n!r}: {t}," for n, t in sorted(names.items()))
                    + "\n            },"
                    for module, names in sorted(contents.items()))
    return f'''
def _torch_replaced_modules():
    """einops' modules as the converted code imports them by name (a module name in a string):
    module objects holding the generated einops code, parents first, each child an attribute of
    its parent; made once."""
    import types
    made = _torch_replaced_modules.__dict__.get("made")
    if made is None:
        made = _torch_replaced_modules.made = {{}}
        for name, values in sorted({{{table}
        }}.items()):
            parts = name.split(".")
            for i in range(1, len(parts) + 1):
                prefix = ".".join(parts[:i])
                if prefix not in made:
                    made[prefix] = types.ModuleType(prefix, "generated by migrate in place of " + prefix)
                    if i > 1:
                        setattr(made[".".join(parts[:i - 1])], parts[i - 1], made[prefix])
            vars(made[name]).update(values)
    return made
''', sorted({t for names in contents.values() for t in names.values()})


_REPLACED, _REPLACED_NEEDS = _replaced_modules_source()

_IMPORT_MODULE = '''
def _torch_import_module(name, package=None):
    """importlib.import_module(name, package), except that einops' modules are answered by the
    generated code (_torch_replaced_modules): the converted code needs neither einops nor torch."""
    import importlib
    found = _torch_replaced_modules().get(name)
    return found if found is not None else importlib.import_module(name, package)
'''

_IMPORT = '''
def _torch_import(name, globals=None, locals=None, fromlist=(), level=0):
    """__import__(name, ...), except that einops' modules are answered by the generated code
    (_torch_replaced_modules): the top package, or the module itself when fromlist is given."""
    modules = _torch_replaced_modules()
    if level == 0 and name in modules:
        return modules[name] if fromlist else modules[name.split(".", 1)[0]]
    return __import__(name, globals, locals, fromlist, level)
'''

SOURCES = {"EinopsPattern": _PATTERN, "einops_rearrange": _REARRANGE, "einops_reduce": _REDUCE,
           "einops_repeat": _REPEAT, "EinopsRearrange": _REARRANGE_CELL, "EinopsReduce": _REDUCE_CELL,
           "einops_star_pattern": _STAR, "einops_pack": _PACK, "einops_unpack": _UNPACK,
           "einops_prod": _PROD, "einops_parse_shape": _PARSE_SHAPE, "einops_einsum": _EINSUM,
           "einops_asnumpy": _ASNUMPY, "_torch_replaced_modules": _REPLACED,
           "_torch_import_module": _IMPORT_MODULE, "_torch_import": _IMPORT}
NEEDS = {"einops_rearrange": ("EinopsPattern",), "einops_reduce": ("EinopsPattern",),
         "einops_repeat": ("EinopsPattern",), "EinopsRearrange": ("EinopsPattern", "einops_rearrange"),
         "EinopsReduce": ("EinopsPattern", "einops_reduce"), "einops_pack": ("einops_star_pattern",),
         "einops_unpack": ("einops_star_pattern", "einops_prod"), "einops_einsum": ("_torch_einsum",),
         "_torch_replaced_modules": tuple(t for t in _REPLACED_NEEDS if t in SOURCES),
         "_torch_import_module": ("_torch_replaced_modules",), "_torch_import": ("_torch_replaced_modules",)}
