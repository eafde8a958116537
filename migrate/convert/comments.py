"""Comments a rewrite would lose are kept: put above the statement they were in, or (at the end
of a file, which libcst would lose) passed around the conversion.

A rule that rebuilds a call from text (``nn.init.xavier_normal_(w,  # the weight ...)`` becomes
``w.set_data(initializer(...))``) or drops an argument (``nn.ReLU(True,  # in place ...)``) has
nowhere to put the comments that were between the arguments. Rather than teach every rule where
each comment goes, the walker compares each rewritten statement with the statement as written
(:func:`keep_lost_comments`) and writes the comments the rewrite lost on their own lines right
above the result, where a reader of the converted call still sees them.

Only a statement's own comments are compared (its leading lines, its expressions, its header
line): the statements of a block are compared on their own, when the walker leaves them.
"""
from __future__ import annotations

import dataclasses
import io
import tokenize
from collections import Counter

import libcst as cst

_STATEMENT: dict[type, bool] = {}


def _is_statement(t: type) -> bool:
    r = _STATEMENT.get(t)
    if r is None:
        r = _STATEMENT[t] = issubclass(t, cst.BaseStatement)
    return r


def own_comments(statement: cst.CSTNode, nested: bool = False) -> list[str]:
    """The comments of ``statement`` (text with its '#') in source order, not counting those of
    the statements in its body (unless ``nested``).

    Args:
        statement: a statement node (or any node).
        nested: count the comments of the statements in its body too.

    Returns:
        The comment texts.

    Example:
        >>> own_comments(cst.parse_statement("f(a,  # one\\n  b)  # two\\n"))
        ['# one', '# two']
    """
    found = []
    stack = [statement]
    while stack:
        node = stack.pop()
        t = type(node)
        if t is cst.Comment:
            found.append(node.value)
            continue
        # libcst's children are in source order (dataclass fields are not: a call's
        # whitespace_before_args comes after its args)
        stack.extend(c for c in reversed(node.children) if nested or not _is_statement(type(c)))
    return found


def keep_lost_comments(old: cst.CSTNode, new):
    """Return ``new`` (the rewrite of statement ``old``) with the comments of ``old`` that it
    lost written on their own lines above it.

    Args:
        old: the statement as the walker found it.
        new: its rewrite (a statement node; anything else is returned as it is).

    Returns:
        ``new``, or a copy with more ``leading_lines``.

    Example:
        >>> old = cst.parse_statement("act = nn.ReLU(\\n    True,  # in place\\n)\\n")
        >>> new = cst.parse_statement("act = nn.ReLU()\\n")
        >>> cst.Module([keep_lost_comments(old, new)]).code
        '# in place\\nact = nn.ReLU()\\n'
    """
    if new is old or not hasattr(new, "leading_lines"):
        return new
    gone, came = [], []
    _delta(old, new, gone, came)  # only the parts the rewrite replaced
    if not gone or not Counter(gone) - Counter(came):
        return new
    lines = lost_comment_lines(old, [new])
    return new.with_changes(leading_lines=[*new.leading_lines, *lines]) if lines else new


def lost_comment_lines(old: cst.CSTNode, new: list, nested: bool = False) -> list[cst.EmptyLine]:
    """The comments of statement ``old`` that none of the statements ``new`` (what replaces it,
    maybe nothing) has, as comment lines to put above what stays.

    Args:
        old: the statement as written (its own comments, not those of its body).
        new: the statements (or other nodes; None entries are skipped) that replace it.
        nested: look for them in the bodies of ``new`` too (``old`` may have moved into one).

    Returns:
        One ``EmptyLine`` per lost comment, in source order.

    Example:
        >>> old = cst.parse_statement("opt.zero_grad(  # reset\\n)\\n")
        >>> [ln.comment.value for ln in lost_comment_lines(old, [])]
        ['# reset']
    """
    mine = _comments(old, False, [])
    if not mine:
        return []
    left = Counter(text for node in new if node is not None for text in _comments(node, nested, []))
    if not Counter(mine) - left:
        return []  # nothing lost (the common case: no need for the source order below)
    lost = []
    for text in own_comments(old):
        if left[text]:
            left[text] -= 1
        else:
            lost.append(cst.EmptyLine(comment=cst.Comment(text)))
    return lost


# The fast walks below read a node's dataclass fields directly: libcst's ``children`` runs a
# visitor over every child, which made the lost-comment guard a third of a conversion. They give
# the same comments as :func:`own_comments`, in field order (not source order): enough to tell
# whether anything was lost, and only then is :func:`own_comments` asked for the order.
_FIELDS: dict[type, tuple[str, ...]] = {}
_NODE: dict[type, bool] = {}
_Comment = cst.Comment


def _fields(t: type) -> tuple[str, ...]:
    names = _FIELDS.get(t)
    if names is None:
        names = _FIELDS[t] = tuple(f.name for f in dataclasses.fields(t))
    return names


def _is_node(t: type) -> bool:
    r = _NODE.get(t)
    if r is None:
        r = _NODE[t] = issubclass(t, cst.CSTNode)
    return r


def _comments(node, nested: bool, found: list) -> list:
    """Append the comment texts of ``node`` (not those of the statements in its body, unless
    ``nested``) to ``found``, in field order; returns ``found``."""
    stack = [node]
    while stack:
        n = stack.pop()
        t = type(n)
        if t is _Comment:
            found.append(n.value)
            continue
        for name in _fields(t):
            v = getattr(n, name)
            tv = type(v)
            if tv is list or tv is tuple:
                stack.extend(c for c in v if _is_node(type(c)) and (nested or not _is_statement(type(c))))
            elif _is_node(tv) and (nested or not _is_statement(tv)):
                stack.append(v)
    return found


def _delta(old, new, gone: list, came: list) -> None:
    """The comments of the parts of ``old`` that ``new`` does not share (to ``gone``) and of the
    parts of ``new`` that are not ``old``'s (to ``came``): ``Counter(gone) - Counter(came)`` is
    what ``new`` lost. Statements in a body are not counted (they are compared on their own)."""
    if old is new:
        return
    t = type(old)
    if t is not type(new) or t is _Comment:
        _comments(old, False, gone)
        _comments(new, False, came)
        return
    for name in _fields(t):
        a, b = getattr(old, name), getattr(new, name)
        if a is b:
            continue
        ta = type(a)
        if (ta is list or ta is tuple) and type(b) in (list, tuple) and len(a) == len(b):
            for x, y in zip(a, b):
                _pair(x, y, gone, came)
        elif ta is list or ta is tuple or type(b) in (list, tuple):
            for x in (a if ta in (list, tuple) else (a,)):
                _own(x, gone)
            for y in (b if type(b) in (list, tuple) else (b,)):
                _own(y, came)
        else:
            _pair(a, b, gone, came)


def _pair(a, b, gone: list, came: list) -> None:
    """Compare child ``a`` of the old node with child ``b`` of the new one (see :func:`_delta`)."""
    if a is b:
        return
    ta, tb = type(a), type(b)
    if ta is tb and _is_node(ta) and not _is_statement(ta):
        _delta(a, b, gone, came)
    else:
        _own(a, gone)
        _own(b, came)


def _own(x, found: list) -> None:
    """The comments of child ``x`` (nothing for a statement of a body, or a value that is no node)."""
    t = type(x)
    if _is_node(t) and not _is_statement(t):
        _comments(x, False, found)


def split_comment_tail(code: str) -> tuple[str, str]:
    """Split ``code`` before the comment lines that end it, when libcst would lose them.

    libcst's parser drops indented comment lines after the last statement of a file
    (``x = 1\\n    # tail\\n`` round-trips to ``x = 1\\n``). Nothing converts in such a tail, so
    the converter converts the head and puts the tail back as it was.

    Args:
        code: Python source.

    Returns:
        ``(head, tail)`` with ``head + tail == code``; ``tail`` is empty unless the file ends
        with comment (and blank) lines of which one is indented.

    Example:
        >>> split_comment_tail("x = 1\\n    # tail\\n")
        ('x = 1\\n', '    # tail\\n')
    """
    last = code.rstrip()
    if not last[max(last.rfind("\n"), last.rfind("\r")) + 1:].lstrip().startswith("#"):
        return code, ""  # the last line that is not blank is code (most files): no tail
    lines = io.StringIO(code, newline="").readlines()
    i = len(lines)
    while i > 0 and (not lines[i - 1].strip() or lines[i - 1].lstrip().startswith("#")):
        i -= 1
    if not any(line[:1] in (" ", "\t", "\f") and line.strip() for line in lines[i:]):
        return code, ""
    head, tail = "".join(lines[:i]), "".join(lines[i:])
    if _continued(head) or _last_token_row(code) > i:
        return code, ""  # the "comments" continue a line or sit inside a string: no tail
    return head, tail


def _continued(head: str) -> bool:
    """Whether the last line of ``head`` ends with a backslash that continues it (one at the end
    of a comment does not)."""
    last = head.rstrip("\r\n")
    if not last.endswith("\\"):
        return False
    rows = len(io.StringIO(last, newline="").readlines())
    try:
        for tok in tokenize.generate_tokens(io.StringIO(last, newline="").readline):
            if tok.type == tokenize.COMMENT and tok.end[0] == rows and tok.string.endswith("\\"):
                return False
    except (tokenize.TokenError, SyntaxError):
        pass  # the backslash continues the line into the tail
    return True


def _last_token_row(code: str) -> int:
    """The line of the last token that is not a comment or a line break (a huge number when
    ``code`` does not tokenize)."""
    last = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(code, newline="").readline):
            if tok.type not in _LAYOUT_TOKENS:
                last = tok.end[0]
    except (tokenize.TokenError, SyntaxError):
        return 1 << 30
    return last


_LAYOUT_TOKENS = (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                  tokenize.ENDMARKER)
