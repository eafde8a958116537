"""Generic, table-driven rewriting of one call: bind torch arguments, apply their fates, emit."""
from __future__ import annotations

import ast
import string

import libcst as cst

from mappings import Entry, Fate
from mappings.target_defaults import load as target_defaults
from migrate.convert.cst import attribute, children, code_of, dotted, is_primary, parse_expr
from migrate.convert.template import render as render_template

_SEVERITY = {"exact": 0, "transformed": 1, "approximate": 2, "unsupported": 3}
_NO_SPACE_EQ = cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                               whitespace_after=cst.SimpleWhitespace(""))
_ATOMS = (cst.Name, cst.Attribute, cst.Integer, cst.Float, cst.SimpleString, cst.Call,
          cst.Subscript, cst.Tuple, cst.List)


def literal(node: cst.BaseExpression | None):
    """Return the Python value of a literal expression, or raise ValueError."""
    if node is None:
        raise ValueError("missing")
    return ast.literal_eval(code_of(node))


def _none(node) -> bool:
    """``node`` is the literal ``None``."""
    return isinstance(node, cst.Name) and node.value == "None"


def is_literal(node) -> bool:
    """True when ``node`` is a literal (number, string, tuple of literals, None, bool)."""
    try:
        literal(node)
    except (ValueError, SyntaxError, TypeError):
        return False
    return True


def operand(node: cst.BaseExpression) -> str:
    """Source of ``node``, parenthesised unless it is atomic."""
    text = code_of(node)
    if isinstance(node, _ATOMS) or (isinstance(node, cst.UnaryOperation) and is_literal(node)):
        return text
    return f"({text})"


def primary(node: cst.BaseExpression) -> str:
    """Source of ``node`` to put before ``.name``: parenthesised unless it is a primary.

    Rules that build ``f"{x}.attr"`` text from an argument use this, so that a literal or an
    operation keeps its meaning (``(0).set_data(...)``, ``(-w).shape``, ``(a + b).dtype``).

    Example:
        >>> primary(cst.parse_expression("-1")), primary(cst.parse_expression("m.weight"))
        ('(-1)', 'm.weight')
    """
    text = code_of(node)
    return text if is_primary(node) else f"({text})"


# the builtins a table's argument expression may use and still fold to a constant
_FOLDABLE = {"float": float, "tuple": tuple, "list": list, "int": int, "isinstance": isinstance}


def render(template: str, values: dict[str, cst.BaseExpression]) -> cst.BaseExpression:
    """Fill ``{name}`` slots of ``template``; fold it to a constant when every slot is literal."""
    used = {name for _, name, _, _ in string.Formatter().parse(template) if name}
    values = {k: v for k, v in values.items() if k in used}
    try:
        folded = {k: repr(literal(v)) for k, v in values.items()}
        # literal operands only; float(), tuple() and isinstance() fold too (float(0.1) -> 0.1)
        result = eval(template.format(**folded), {"__builtins__": _FOLDABLE})  # noqa: S307 (table data)
        if isinstance(result, float):
            result = round(result, 12)
        return parse_expr(repr(result))
    except (ValueError, SyntaxError, TypeError, NameError, KeyError, ZeroDivisionError):
        pass
    return parse_expr(template.format(**{k: operand(v) for k, v in values.items()}))


def make_arg(value: cst.BaseExpression, keyword: str | None, like: cst.Arg | None = None) -> cst.Arg:
    """Build an Arg, reusing ``like``'s comma and whitespace so formatting survives."""
    kw = cst.Name(keyword) if keyword else None
    if like is not None:
        if keyword and like.keyword is not None:
            return like.with_changes(value=value, keyword=kw)
        if keyword:
            return like.with_changes(value=value, keyword=kw, equal=_NO_SPACE_EQ)
        return like.with_changes(value=value, keyword=None, equal=cst.MaybeSentinel.DEFAULT)
    if keyword:
        return cst.Arg(value=value, keyword=kw, equal=_NO_SPACE_EQ)
    return cst.Arg(value=value)


class BindError(Exception):
    """The call's arguments cannot be matched to the torch signature."""


class CallEdit:
    """One call being rewritten: bound torch arguments in, target arguments out.

    Rules receive this object: they read ``bound``/``given``, change ``out`` through
    :meth:`set`/:meth:`drop`, and report through :meth:`note`, :meth:`worse`, :meth:`unsupported`.

    With ``runtime`` set, the call is the body of a generated torch-signature class or function
    (:mod:`migrate.convert.torch_signature`): every argument is a parameter name whose value comes
    at run time. Rules then translate with run-time code (:meth:`helper`, statements in
    ``prelude``, :meth:`reject`) instead of folding literals; a rule that cannot translate a value
    statically calls :meth:`needs_runtime`, and the call goes to the torch-signature class.
    """

    def __init__(self, converter, call: cst.Call, entry: Entry, receiver: cst.BaseExpression | None = None):
        self.converter = converter
        self.call = call
        self.entry = entry
        self.receiver = receiver
        self.label = entry.label
        self.notes: list[str] = [entry.note] if entry.note else []
        self.problems: list[str] = []
        self.bound: dict[str, cst.BaseExpression] = {}
        self.given: set[str] = set()        # names the source passed explicitly
        self.source_args: dict[str, cst.Arg] = {}
        self.positional: set[str] = set()
        self.out: list[list] = []             # [key, value, positional?, like-arg]
        self.func: cst.BaseExpression | None = None
        self.result: cst.BaseExpression | None = None  # a rule may replace the whole call
        # the local name of a generated function applied to the object built (what the target's
        # constructor cannot be told, e.g. torch's initialisation): f(call), or f(self) in a
        # torch-signature class
        self.finish: str | None = None
        self.star_args: list[cst.Arg] = []
        self.kwargs_args: list[cst.Arg] = []  # **-arguments of a **name parameter
        self.receiver_before = None  # the method receiver as written (before conversion)
        self.method_receiver = None  # the method receiver, converted
        self.marker = "MS902"  # the marker written when a problem keeps the call as it was
        self.original = call  # the call as written (before its arguments were converted)
        self.runtime = False  # generating a torch-signature class: values come at run time
        self.prelude: list[str] = []  # runtime: statements run before the target call
        # runtime, a torch-signature class: statements run after the target's __init__ (``self``
        # is the layer) and methods of the class (sources at class-body indentation 0)
        self.after_init: list[str] = []
        self.members: list[str] = []
        self.runtime_reasons: list[str] = []  # static: what only run time can translate
        self.unless_runtime: list[str] = []  # static: problems unless the call goes to run time
        self.post: tuple | None = None  # (helper, argument): the built call is passed through it
        self.casts: dict[str, cst.BaseExpression] = {}  # "result"/"input" -> the dtype to cast it to

    # -- helpers for rules --
    def worse(self, label: str, note: str = "") -> None:
        """Raise the label to at least ``label`` and add ``note``."""
        if _SEVERITY[label] > _SEVERITY[self.label]:
            self.label = label
        if note:
            self.notes.append(note)

    def note(self, text: str) -> None:
        self.notes.append(text)

    def unsupported(self, reason: str, marker: str = "MS902") -> None:
        """Keep the call as it was and mark it (``marker``: the marker ID, MS902 by default)."""
        self.problems.append(reason)
        self.marker = marker

    def needs_runtime(self, reason: str) -> None:
        """The translation depends on a value known only at run time (``padding=p``): the call
        is better made through the torch-signature class, which translates it then."""
        self.runtime_reasons.append(reason)

    def helper(self, name: str) -> str:
        """The local name of the run-time helper ``name`` (:mod:`migrate.runtime`),
        emitted into the converted file."""
        return self.converter.output.signatures.helper(name)

    def reject(self, condition: str, message: str) -> None:
        """Runtime: raise a ValueError with ``message`` when ``condition`` (source text over the
        parameter names) holds when the class is built."""
        self.prelude.append(f"if {condition}:\n    raise ValueError({message!r})")

    @property
    def api_name(self) -> str:
        """The torch API's short name as error messages give it (``'Conv2d'``)."""
        return self.entry.torch.rsplit(".", 1)[-1]

    def get(self, key: str):
        for item in self.out:
            if item[0] == key:
                return item[1]
        return None

    def set(self, key: str, value, keyword: bool = True) -> None:
        """Set target argument ``key`` (replacing it in place, or appending by keyword)."""
        if isinstance(value, str):
            value = parse_expr(value)
        for item in self.out:
            if item[0] == key:
                item[1] = value
                return
        self.out.append([key, value, not keyword and all(i[2] for i in self.out), None])

    def drop(self, key: str) -> None:
        self.out = [i for i in self.out if i[0] != key]
        # an argument after a removed positional one must now be passed by keyword
        seen_kw = False
        for item in self.out:
            seen_kw = seen_kw or not item[2]
            if seen_kw:
                item[2] = False

    def value(self, name: str, default: bool = True):
        """The torch argument ``name`` as given, or its torch default expression."""
        if name in self.bound:
            return self.bound[name]
        p = self.entry.param(name)
        if default and p is not None and p.default is not None:
            return parse_expr(p.default)
        return None

    # -- the generic steps --
    def bind(self) -> None:
        params = self.entry.params or ()
        star = next((p for p in params if p.star and not p.kwargs), None)
        pos_params = [p for p in params if not p.star]
        star_values = []
        names = {p.name for p in params if not p.kwargs}
        pack = star is not None and (self.entry.args.get(star.name) or Fate()).pack
        unpacked = []  # the star's values as arguments, when one is a *-argument (sizes at run time)
        if any(arg.star for arg in self.call.args) and self._passes_through():
            return
        for i, arg in enumerate(self.call.args):
            if arg.star == "*" and star is not None and not pack and i >= params.index(star):
                star_values.append(arg)
                continue
            if unpacked and arg.keyword is None and not arg.star:
                continue  # (one of the star's values, collected already)
            if arg.star == "*" and star is not None and pack and i >= params.index(star):
                if not unpacked:  # the star's values: every positional argument from its place on
                    unpacked = [a for a in self.call.args[params.index(star):] if a.keyword is None and a.star != "**"]
                    star_values = []
                continue
            if arg.star == "**" and any(p.kwargs for p in params):
                self.kwargs_args.append(arg)  # passed through as they are (a **name parameter)
                continue
            if arg.star == "**" and self._factory_kwargs(arg):
                continue
            if arg.star:
                raise BindError(f"cannot translate {arg.star}-arguments")
            if arg.keyword is None:
                if star is not None and (i >= params.index(star)):
                    star_values.append(arg if not pack else arg.value)
                    continue
                if i >= len(pos_params):
                    raise BindError("too many positional arguments")
                name = pos_params[i].name
                self.positional.add(name)
            else:
                name = numpy_alias(self.entry, arg.keyword.value, names)
                if name not in names and any(p.kwargs for p in params):
                    self.kwargs_args.append(arg)
                    continue
                if name == "out" and "out" not in names and _none(arg.value) and self.entry.torch.startswith("torch."):
                    # torch's functions take out=; out=None, its default, writes nowhere (deepctr's
                    # torch.mean(x, dim=-1, out=None)): nothing to translate
                    self.note("out=None: torch's default (the result is returned)")
                    continue
                if name not in names:
                    raise BindError(f"unknown argument {name}=")
                if star is not None and name == star.name:
                    self.positional.add(name)  # torch.empty(size=(2, 3)): the *size, packed
            if name in self.bound:
                raise BindError(f"argument {name} given twice")
            self.bound[name] = arg.value
            self.given.add(name)
            self.source_args[name] = arg
        missing = [p.name for p in pos_params if p.default is None and p.name not in self.bound and not p.kwargs]
        if missing and not unpacked and not (star is not None and star_values):
            # torch would raise a TypeError: not torch's call (another library's method of that name)
            raise BindError(f"missing argument {missing[0]}")
        if unpacked:
            self._runtime_sizes(star.name, unpacked)
        elif star is not None and star_values and not pack:
            self.star_args = star_values  # passed through one by one, in place
            self.given.add(star.name)
            self.positional.add(star.name)
            self.bound[star.name] = None
        elif star is not None and star_values and star.name not in self.bound:
            elements = [v if isinstance(v, cst.StarredElement) else cst.Element(v) for v in star_values]
            if len(star_values) == 1 and not isinstance(star_values[0], (cst.Integer, cst.UnaryOperation,
                                                                         cst.StarredElement)):
                self.bound[star.name] = star_values[0]
            else:
                self.bound[star.name] = cst.Tuple(elements) if len(elements) > 1 \
                    else cst.Tuple([elements[0].with_changes(comma=cst.Comma())])
            self.given.add(star.name)
            self.positional.add(star.name)

        self._legacy_reduction()

    def _legacy_reduction(self) -> None:
        """torch's deprecated ``size_average`` / ``reduce`` of a loss, given as constants, are the
        ``reduction`` they stand for (torch's legacy rule, which overrides ``reduction=``):
        ``reduce=False`` -> 'none', else ``size_average=False`` -> 'sum', else 'mean'. A value
        known only at run time stays bound (and is marked by the table)."""
        names = {p.name for p in self.entry.params or ()}
        given = [n for n in ("size_average", "reduce") if n in self.bound]
        if not given or not {"size_average", "reduce", "reduction"} <= names:
            return
        try:
            flags = {n: literal(self.bound[n]) for n in given}
        except (ValueError, SyntaxError, TypeError):
            return
        if any(v not in (None, True, False) for v in flags.values()):
            return
        size_average = flags.get("size_average") is not False
        reduce = flags.get("reduce") is not False
        reduction = "mean" if size_average and reduce else "sum" if reduce else "none"
        for n in given:
            del self.bound[n]
            self.given.discard(n)
            self.positional.discard(n)
        self.bound["reduction"] = cst.SimpleString(repr(reduction))
        self.given.add("reduction")
        self.source_args.pop("reduction", None)
        self.note(f"{', '.join(f'{n}={flags[n]}' for n in given)}: torch's legacy form of reduction={reduction!r}")

    def _runtime_sizes(self, name: str, args: list) -> None:
        """torch's varargs sizes with a *-argument (``view(*shape)``, ``zeros(*s, 3)``): what they
        hold is known at run time only: the table's tensor method, which takes torch's varargs
        (a dtype too, for view), or the generated ``torch_sizes(...)`` (ints one by one, or one
        sequence of them: torch's rule)."""
        fate = self.entry.args.get(name) or Fate()
        if fate.method and self.method_receiver is not None:
            self.result = cst.Call(cst.Attribute(self.method_receiver, cst.Name(fate.method)), list(args))
            self.note(f"*-arguments: Tensor.{fate.method} takes torch's varargs (MindSpore 2.10 and ms_core)")
            return
        helper = self.helper("torch_sizes")
        self.bound[name] = cst.Call(cst.Name(helper), [a.with_changes(comma=cst.MaybeSentinel.DEFAULT) for a in args])
        self.given.add(name)
        self.positional.add(name)
        self.note("*-arguments: sizes normalised at run time (torch_sizes), as torch reads them")

    def _passes_through(self) -> bool:
        """A call with ``*args`` of an entry that only renames: positional arguments mean the same
        on both sides, so the call keeps them as written (``m.add_module(*pair)`` ->
        ``m.insert_child_to_cell(*pair)``). Sets the result; False when a value must change."""
        entry = self.entry
        if entry.rule or entry.template is not None or any(a.keyword is not None or a.star == "**"
                                                           for a in self.call.args):
            return False
        if any(p.star or p.kwargs for p in entry.params or ()):
            return False
        for fate in entry.args.values():
            if fate is not None and (fate.expr or fate.explicit or fate.keyword or fate.drop
                                     or fate.unsupported or fate.pack or fate.tuple):
                return False
        receiver = [cst.Arg(self.receiver)] if self.receiver is not None else []
        self.result = self.call.with_changes(func=self.func, args=[*receiver, *self.call.args])
        return True

    def _factory_kwargs(self, arg: cst.Arg) -> bool:
        """``torch.empty(s, **dd)``: a creation op's factory keywords as a dict known at run time;
        its dtype is taken by the generated ``torch_factory_dtype`` (the device, layout and the
        other factory keywords change no number). False for other calls (layers among them)."""
        names = {p.name for p in self.entry.params or ()}
        if not {"dtype", "device"} <= names or self.entry.torch.startswith("torch.nn.") or "dtype" in self.bound:
            return False
        self.bound["dtype"] = cst.Call(cst.Name(self.helper("torch_factory_dtype")), [cst.Arg(arg.value)])
        self.given.add("dtype")
        return True

    def _variable(self, value) -> bool:
        """A value of a torch.nn layer or function held by a variable of the user's
        (``padding_mode``, ``self.training``), not a literal nor a module's constant (``ms.float64``)."""
        root = value
        sigs = self.converter.output.signatures
        if isinstance(root, cst.Call) and isinstance(root.func, cst.Name) and sigs is not None \
                and root.func.value in sigs.names.values():
            root = root.func  # a run-time helper's value (torch_conv_attr(c, 'padding_mode'))
        while isinstance(root, cst.Attribute):
            root = root.value
        return self.entry.torch.startswith("torch.nn.") and isinstance(root, cst.Name) \
            and root.value not in self.converter.facts.imported \
            and root.value not in self.converter.facts.names.values() and root.value not in ("None", "True", "False")

    def apply_fates(self) -> None:
        params = self.entry.params or ()
        args = self.entry.args
        for name, fate in args.items():
            if fate is not None and fate.tuple and isinstance(self.bound.get(name), cst.List):
                self.bound[name] = as_tuple(self.bound[name])
                self.note(f"{name} as a tuple (MindSpore takes an int or a tuple, not a list)")
        can_pos = True
        leading = _positional_count(self.entry)
        for i, p in enumerate(params):
            fate: Fate = args.get(p.name) or Fate()
            value = self.bound.get(p.name)
            if p.kwargs:
                for a in self.kwargs_args:
                    self.out.append(["**" if a.star else a.keyword.value, a.value, False, a])
                continue
            if p.star and self.star_args:
                for a in self.star_args:
                    self.out.append(["*", a.value, True, a])
                continue
            default_text = p.default
            if fate.cast is not None:
                if value is not None and code_of(value) != "None":
                    self.casts[fate.cast] = value
                    self.note(f"{p.name}={code_of(value)}: the {fate.cast} cast to it")
                continue
            if fate.param_dtype is not None:
                if value is not None:
                    self._param_dtype(p.name, value, fate.param_dtype)
                continue
            if fate.seed is not None:
                self._generator_seed(p.name, value, fate.seed)
                continue
            if fate.unsupported is not None and value is not None:
                ok = fate.unless if fate.unless is not None else default_text
                if self.runtime and ok is not None:
                    test = "is not" if ok in ("None", "True", "False") else "!="
                    self.reject(f"{p.name} {test} {ok}",
                                f"For '{self.api_name}' (torch signature), {p.name} other than "
                                f"{ok} is not supported: {fate.unsupported}.")
                elif _differs(value, ok) and ok not in (None, "None") and self._variable(value) \
                        and not self.runtime:
                    # padding_mode=padding_mode: the torch-signature class checks the value when
                    # the layer is built; without one, the call is kept and marked
                    self.needs_runtime(f"{p.name}={code_of(value)} known at run time")
                    self.unless_runtime.append(f"{p.name}={code_of(value)}: {fate.unsupported}")
                elif _differs(value, ok):
                    self.unsupported(f"{p.name}={code_of(value)}: {fate.unsupported}")
                continue
            if fate.unsupported is not None:
                continue
            if fate.drop is not None:
                if value is not None and code_of(value) != default_text:
                    self.worse(fate.label, f"{p.name}={code_of(value)} dropped: {fate.drop}")
                elif value is not None:
                    self.note(f"{p.name} dropped: {fate.drop}")
                continue
            if value is None:
                if not fate.explicit or default_text is None:
                    continue
                value = parse_expr(default_text)
            if p.default in ("True", "False") and isinstance(value, cst.Integer):
                # torch takes any truthy value for a flag (nn.Linear(a, b, 1)); MindSpore's
                # validators take a bool only
                value = cst.Name("True" if int(value.value, 0) else "False")
            if fate.expr is not None:
                value = render(fate.expr, {p.name: value, **{k: v for k, v in self.bound.items()
                                                             if k != p.name and v is not None}})
            if fate.input_dtype and self.converter.facts.target_name == "mindspore":
                value = self._in_input_dtype(p.name, value)
            key = fate.to or p.name
            positional = (can_pos and p.name in self.positional and i < leading and not fate.keyword)
            can_pos = can_pos and positional
            self.out.append([key, value, positional, self.source_args.get(p.name)])
        if "input" in self.casts:
            self._cast_input(self.casts.pop("input"))

    def _generator_seed(self, name: str, value, unset: str) -> None:
        """torch's ``generator=g`` as the target's ``seed=torch_seed(g, unset)``: each call draws
        its seed from the generator's own stream (a TorchGenerator); nothing for None."""
        if value is None or code_of(value) == "None":
            return
        seed = parse_expr(f"{self.helper('torch_seed')}({code_of(value)}, {unset})")
        self.out.append(["seed", seed, False, None])
        self.note(f"{name}={code_of(value)}: seed= drawn from the generator's own stream")

    def _in_input_dtype(self, name: str, value):
        """An int or bool literal ``value`` as a tensor of the input's dtype (torch casts it to
        it; MindSpore 2.10's CPU kernel refuses a value of another kind); the input read by
        name, so that it is not computed twice."""
        if not is_literal(value) or type(literal(value)) not in (int, bool):
            return value
        source = self.method_receiver if self.entry.torch.startswith("Tensor.") else self.bound.get("input")
        if source is None or dotted(source) is None:
            self.note(f"{name}={code_of(value)}: MindSpore 2.10's CPU kernel wants a value of the input's "
                      f"kind (a float for a float tensor)")
            return value
        self.note(f"{name}={code_of(value)} given in the input's dtype (MindSpore 2.10's CPU kernel "
                  f"refuses a value of another kind)")
        return cst.Call(parse_expr(self.converter.tname("ms.Tensor")),
                        [cst.Arg(value), cst.Arg(cst.Attribute(source, cst.Name("dtype")))])

    def _param_dtype(self, name: str, value, how: str) -> None:
        """torch's ``dtype=`` of a layer's parameters: None and float32 are MindSpore's default
        (nothing to pass); another dtype goes to the layer's ``dtype=`` (``how`` "pass": Dense,
        MultiheadAttention), or its table is cast after it is built (``how`` "table": MindSpore
        2.10's Embedding keeps a float32 table whatever its dtype); a name or attribute is
        translated at run time (None -> float32)."""
        text, f32 = code_of(value), self.converter.tname("ms.float32")
        if text in ("None", f32):
            self.note(f"{name}={text}: float32 parameters, MindSpore's default")
            return
        if not isinstance(value, (cst.Name, cst.Attribute)):
            self.unsupported(f"{name}={text}: a per-layer dtype computed by an expression")
            return
        self.converter.output.used.add("ms")
        known = text.startswith(f32.rsplit(".", 1)[0] + ".")  # ms.float16: known now
        if how == "pass":
            self.out.append([name, value if known else parse_expr(f"{f32} if {text} is None else {text}"), False, None])
            self.note(f"{name}: the layer's parameters in that dtype (None: float32)")
        elif self.runtime:
            self.reject(f"{text} is not None and {text} != {f32}",
                        f"For '{self.api_name}' (torch signature), {name} other than float32 is not "
                        "supported: MindSpore 2.10's Embedding keeps a float32 table.")
        else:
            self.post = (self.helper("torch_table_dtype"), value)
            self.note(f"{name}: the table cast to that dtype after the layer is built (None: float32)")

    def template_values(self) -> dict[str, cst.BaseExpression]:
        """Every torch parameter's argument as given (converted), else its default (``None``
        when it has none); a ``*name`` parameter's values as one tuple."""
        values = {}
        for p in self.entry.params or ():
            if p.star and self.star_args:
                values[p.name] = cst.Tuple([cst.StarredElement(a.value) if a.star == "*" else cst.Element(a.value)
                                            for a in self.star_args])
                continue
            value = self.value(p.name)
            values[p.name] = value if value is not None else parse_expr("None")
        return values

    def _cast(self, node, dtype) -> cst.BaseExpression:
        """``node.astype(dtype)``; through the generated ``torch_cast`` when ``dtype`` may be None."""
        prefix = self.converter.tname("ms.float32").rsplit(".", 1)[0] + "."
        if code_of(dtype).startswith(prefix):
            return cst.Call(attribute(node, "astype"), [cst.Arg(dtype)])
        return cst.Call(cst.Name(self.helper("torch_cast")), [cst.Arg(node), cst.Arg(dtype)])

    def _cast_input(self, dtype) -> None:
        """Cast the input (the receiver of a method, else the first argument) before the rule runs."""
        if self.method_receiver is not None:
            cast = self.method_receiver = self._cast(self.method_receiver, dtype)
            if self.receiver is not None:
                self.receiver = cast
            elif isinstance(self.func, cst.Attribute):
                self.func = self.func.with_changes(value=cast)
        elif self.out and self.entry.params and self.bound.get(self.entry.params[0].name) is self.out[0][1]:
            self.out[0][1] = self.bound[self.entry.params[0].name] = self._cast(self.out[0][1], dtype)
        else:
            self.unsupported(f"dtype={code_of(dtype)}: the input to cast is not known")

    def build(self) -> cst.BaseExpression:
        new = self._build_call()
        if not self.runtime and _calls_a_lambda(new):
            new = self._named_call() or new
        if "result" in self.casts:
            new = self._cast(new, self.casts["result"])
        if self.post is not None:
            helper, value = self.post
            new = cst.Call(cst.Name(helper), [cst.Arg(new), cst.Arg(value)])
        if self.finish is not None:
            new = cst.Call(func=cst.Name(self.finish), args=[cst.Arg(new)])
        return new

    def _target_default(self, key, value, like) -> bool:
        """Whether the keyword argument ``key=value`` the conversion writes (not one the user
        wrote as it is) gives the target callable its own default, the same on ms_core and
        MindSpore (:mod:`mappings.target_defaults`)."""
        if self.runtime or key in ("*", "**") or like is not None and like.value is value \
                or not isinstance(value, (cst.Name, cst.Integer, cst.Float, cst.SimpleString, cst.UnaryOperation)):
            return False
        target = self.entry.target
        defaults = target_defaults().get(target)
        text = defaults.get(key) if defaults else None
        if text is None or not code_of(self.func).endswith("." + target.split(".", 1)[-1]):
            return False  # (a rule chose another callable)
        return _same_literal(value, text)

    def _named_call(self) -> cst.Call | None:
        """A call of the runtime's function with the entry's torch signature, which computes what
        the lambda called in place that its template or rule wrote computes (``(lambda _p:
        ...)(math.pi * x)`` -> ``torch_sinc(x)``), with the arguments as given; None when the
        entry has no such function or the call passes ``*args`` / ``**kwargs``."""
        params = self.entry.params or ()
        if any(p.star for p in params) or self.star_args or self.kwargs_args or self.entry.torch.startswith("Tensor."):
            return None
        name = self.converter.output.signatures.function(self.entry.torch)
        if name is None:
            return None
        args, positional = [], True
        for p in params:
            if p.name not in self.bound or p.name not in self.given:
                positional = False
                continue
            positional = positional and p.name in self.positional
            keyword = None if positional else cst.Name(p.name)
            equal = cst.AssignEqual(cst.SimpleWhitespace(""), cst.SimpleWhitespace("")) if keyword \
                else cst.MaybeSentinel.DEFAULT
            args.append(cst.Arg(self.bound[p.name], keyword=keyword, equal=equal))
        self.note(f"through the runtime's {name}: torch's signature, computed as the table says")
        return cst.Call(cst.Name(name), args)

    def _build_call(self) -> cst.BaseExpression:
        if self.result is not None:
            return self.result
        if self.entry.template is not None:
            return render_template(self.converter, self.entry.template, self.template_values())
        args = []
        if self.receiver is not None:
            args.append(cst.Arg(value=self.receiver))
        for key, value, positional, like in self.out:
            if not positional and self._target_default(key, value, like):
                continue  # nn.Dense(..., has_bias=True): MindSpore's own default, not spelled
            if key == "*" and like is not None:
                args.append(like)  # pass-through variadic argument, kept as written
                continue
            if key == "**":
                args.append(cst.Arg(value=value, star="**"))  # keywords given at run time
                continue
            args.append(make_arg(value, None if positional else key, like))
        if args:
            last = args[-1]
            if isinstance(last.comma, cst.Comma) and not _multiline(last.comma):
                args[-1] = last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
            else:
                args[-1] = _closing_layout(last, self.call.args)
        elif self.call.args and not _has_comment(self.call.whitespace_before_args):
            # every argument dropped: `nn.ReLU()`, not the layout of the arguments that were there
            return self.call.with_changes(func=self.func, args=[],
                                          whitespace_before_args=cst.SimpleWhitespace(""))
        return self.call.with_changes(func=self.func, args=args)


def _same_literal(value, text: str) -> bool:
    """``value`` (a node) is the literal whose source is ``text``, of the same type (``1`` is
    not ``1.0`` nor ``True``)."""
    try:
        a, b = ast.literal_eval(code_of(value)), ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return type(a) is type(b) and a == b


def _differs(value, text) -> bool:
    """``value`` is not the literal ``text`` (``"zeros"`` is ``'zeros'``)."""
    if isinstance(value, cst.SimpleString) and text is not None and text[:1] in "'\"":
        return value.evaluated_value != text[1:-1]
    return code_of(value) != text


# the NumPy spellings torch's C++ argument parser accepts for its own (torch.* functions and
# Tensor methods; not the Python-defined ones of torch.nn): x.mean(axis=1, keepdims=True)
_NUMPY_ALIASES = {"axis": "dim", "keepdims": "keepdim", "x": "input", "a": "input", "x1": "input",
                  "x2": "other"}


def numpy_alias(entry: Entry, name: str, names: set) -> str:
    """The torch parameter ``name`` stands for: itself, or the one whose NumPy alias it is."""
    alias = _NUMPY_ALIASES.get(name)
    if name in names or alias not in names or entry.torch.startswith("torch.nn.") \
            or not entry.torch.startswith(("torch.", "Tensor.")):
        return name
    return alias


def _calls_a_lambda(node) -> bool:
    """``node`` calls a lambda where it is written, at its top or inside (``ops.matmul((lambda
    _s: ...)(s), v)``)."""
    stack = [node]
    while stack:  # the code fields (printing the node to look for "lambda" first cost more)
        n = stack.pop()
        if type(n) is cst.Call and type(n.func) is cst.Lambda:
            return True
        stack.extend(children(n))
    return False


def _multiline(comma: cst.Comma) -> bool:
    return isinstance(comma.whitespace_after, cst.ParenthesizedWhitespace)


def _has_comment(whitespace) -> bool:
    return isinstance(whitespace, cst.ParenthesizedWhitespace) and (
        whitespace.first_line.comment is not None or any(e.comment for e in whitespace.empty_lines))


def _closing_layout(last: cst.Arg, source_args) -> cst.Arg:
    """``last`` (the last argument out) closes the call where the last argument as written did:
    when the arguments after it were dropped, ``)`` keeps its own line's indentation instead of
    taking the indentation of the next argument's line."""
    end = source_args[-1] if source_args else None
    if end is None or last is end or not isinstance(last.comma, cst.Comma) or not _multiline(last.comma):
        return last
    src, ws = end.comma.whitespace_after if isinstance(end.comma, cst.Comma) else None, last.comma.whitespace_after
    if not isinstance(src, cst.ParenthesizedWhitespace):
        # `)` was on the last argument's line: so it is now, unless a comment needs the line break
        return last if _has_comment(ws) else last.with_changes(comma=cst.MaybeSentinel.DEFAULT)
    return last.with_changes(comma=last.comma.with_changes(
        whitespace_after=ws.with_changes(indent=src.indent, last_line=src.last_line)))


def _positional_count(entry: Entry) -> int:
    """Leading torch parameters whose position is the same in the target."""
    if entry.positional is not None:
        return entry.positional
    n = 0
    for p in entry.params or ():
        fate = entry.args.get(p.name)
        if fate is not None and fate != Fate(to=fate.to, pack=fate.pack, method=fate.method,
                                             input_dtype=fate.input_dtype, tuple=fate.tuple) \
                and not fate.param_dtype:
            break
        n += 1
        if p.star:
            break
    return n


def as_tuple(node: cst.List):
    """The list display ``node`` as a tuple display, its spacing kept (``[2, 2]`` -> ``(2, 2)``);
    a one-element list as its element (``[k]`` -> ``k``: torch reads one size for every axis, as
    MindSpore reads an int)."""
    elements = list(node.elements)
    if len(elements) == 1 and isinstance(elements[0], cst.Element):
        return elements[0].value
    return cst.Tuple(elements, lpar=[*node.lpar, cst.LeftParen(whitespace_after=node.lbracket.whitespace_after)],
                     rpar=[cst.RightParen(whitespace_before=node.rbracket.whitespace_before), *node.rpar])
