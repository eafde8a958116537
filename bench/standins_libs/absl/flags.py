"""absl.flags stand-in: DEFINE_* register a flag with its default; FLAGS(argv) parses them."""


class _Flags:
    def __init__(self):
        object.__setattr__(self, "_specs", {})    # name -> (kind, default)
        object.__setattr__(self, "_values", {})

    def _define(self, kind, name, default):
        self._specs[name] = (kind, default)
        self._values[name] = list(default) if kind.startswith("multi") and default is not None else default

    def __getattr__(self, name):
        try:
            return self._values[name]
        except KeyError:
            raise AttributeError(f"flag --{name} is not defined") from None

    def __setattr__(self, name, value):
        self._values[name] = value

    def _convert(self, name, text):
        kind = self._specs[name][0]
        if kind in ("integer", "multi_integer"):
            return int(text)
        if kind == "float":
            return float(text)
        if kind == "bool":
            return text.lower() in ("1", "true", "t", "yes")
        return text

    def __call__(self, argv):
        rest, given_multi = [argv[0]], set()
        i = 1
        while i < len(argv):
            arg = argv[i]
            i += 1
            if not arg.startswith("--"):
                rest.append(arg)
                continue
            name, eq, text = arg[2:].partition("=")
            if name not in self._specs and name.startswith("no") and self._specs.get(name[2:], ("",))[0] == "bool":
                self._values[name[2:]] = False
                continue
            if name not in self._specs:
                raise SystemExit(f"FATAL Flags parsing error: Unknown command line flag '{name}'")
            kind = self._specs[name][0]
            if kind == "bool" and not eq:
                self._values[name] = True
                continue
            if not eq:
                text, i = argv[i], i + 1
            value = self._convert(name, text)
            if kind.startswith("multi"):
                if name not in given_multi:
                    self._values[name], _ = [], given_multi.add(name)
                self._values[name].append(value)
            else:
                self._values[name] = value
        return rest

    def flags_into_string(self):
        return "".join(f"--{k}={v}\n" for k, v in self._values.items())


FLAGS = _Flags()


def _definer(kind):
    def define(name, default, help=None, *args, **kwargs):  # noqa: A002 (absl's keyword)
        if kind == "enum" and args:
            help = args[0] if isinstance(args[0], str) else help  # noqa: A001
        FLAGS._define(kind, name, default)
    return define


DEFINE_bool = DEFINE_boolean = _definer("bool")
DEFINE_integer = _definer("integer")
DEFINE_float = _definer("float")
DEFINE_string = _definer("string")
DEFINE_multi_integer = _definer("multi_integer")
DEFINE_multi_string = _definer("multi_string")


def DEFINE_enum(name, default, enum_values, help=None, **kwargs):  # noqa: A002, N802 (absl's names)
    FLAGS._define("enum", name, default)
