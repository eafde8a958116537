"""SequentialCell, CellList, CellDict.

Children of SequentialCell / CellList are keyed '0', '1', ... so their parameters are named
`0.weight`, `1.bias`, ... (and `seq.0.weight` once the container is an attribute `seq` of a
parent), as in MindSpore and torch's nn.Sequential. After an insertion or deletion the children
are re-keyed and their parameters renamed, so names always match paths.
"""
from collections import OrderedDict

from ..cell import Cell, check_cell

__all__ = ["SequentialCell", "CellList", "CellDict"]


def _relative_names(cell):
    """Name the cell's parameters by their paths inside it (drop names from an earlier parent),
    so that registering it under a key yields `key.<path>`, as MindSpore renames them."""
    for rel, p in cell.parameters_and_names():
        p.name = rel
    return cell


def _container_prefix(cells):
    """The prefix this container's parameters carry (e.g. 'net.layers.' once attached),
    recovered from an existing child's parameter names as MindSpore does."""
    for key, cell in cells.items():
        for rel, p in cell.parameters_and_names():
            tail = f"{key}.{rel}"
            if p.name.endswith(tail):
                return p.name[:-len(tail)]
            return ""
    return ""


class _IndexedCells(Cell):
    """Shared machinery of SequentialCell and CellList: an ordered list of children."""

    def _valid_index(self, index):
        n = len(self._cells)
        if isinstance(index, bool) or not isinstance(index, int):
            raise TypeError(f"For '{type(self).__name__}', the type of index must be int or slice, "
                            f"but got {type(index).__name__}.")
        if not -n <= index < n:
            raise IndexError(f"For '{type(self).__name__}', the index must be in range [{-n}, "
                             f"{n}), but got {index}.")
        return index % n

    def _reset(self, cells):
        """Re-key `cells` as '0'..'n-1' and name their parameters after their new paths."""
        prefix = _container_prefix(self._cells) if self._cells else self._pending_prefix()
        new = OrderedDict()
        for i, cell in enumerate(cells):
            key = str(i)
            if self._auto_prefix:
                for rel, p in cell.parameters_and_names():
                    p.name = f"{prefix}{key}.{rel}"
            cell.__dict__["_cell_name"] = key
            new[key] = cell
        self.__dict__["_cells"] = new

    def _pending_prefix(self):
        return self.__dict__.get("_empty_prefix", "")

    def update_parameters_name(self, prefix="", recurse=True):
        # remember the prefix of an empty container so cells appended later get it
        self.__dict__["_empty_prefix"] = prefix + self._pending_prefix()
        super().update_parameters_name(prefix, recurse)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return type(self)(list(self._cells.values())[index])
        return list(self._cells.values())[self._valid_index(index)]

    def __setitem__(self, index, cell):
        check_cell(type(self).__name__, "cell", cell)
        cells = list(self._cells.values())
        cells[self._valid_index(index)] = cell
        self._reset(cells)

    def __delitem__(self, index):
        cells = list(self._cells.values())
        if isinstance(index, slice):
            del cells[index]
        else:
            del cells[self._valid_index(index)]
        self._reset(cells)

    def append(self, cell):
        """Add `cell` at the end."""
        check_cell(type(self).__name__, "cell", cell)
        self._reset(list(self._cells.values()) + [cell])
        return self

    def extend(self, cells):
        """Add every cell of an iterable at the end."""
        cells = list(cells)
        for c in cells:
            check_cell(type(self).__name__, "cell", c)
        self._reset(list(self._cells.values()) + cells)
        return self

    def insert(self, index, cell):
        """Insert `cell` before position `index`."""
        check_cell(type(self).__name__, "cell", cell)
        cells = list(self._cells.values())
        n = len(cells)
        if not -n <= index <= n:
            raise IndexError(f"For '{type(self).__name__}', the index must be in range [{-n}, {n}], "
                             f"but got {index}.")
        cells.insert(index, cell)
        self._reset(cells)

    def __iadd__(self, cells):
        return self.extend(cells)


class SequentialCell(_IndexedCells):
    """Run child cells in order, feeding each output to the next (torch's nn.Sequential).

    Accepts a list of cells, an OrderedDict name -> cell (the names are kept), or cells as
    positional arguments. Parameters are named `0.weight`, `1.bias`, ... (or `<name>.weight`
    with an OrderedDict).

    Example:
        >>> net = nn.SequentialCell([nn.Dense(3, 4), nn.ReLU()])
        >>> [p.name for p in net.trainable_params()]
        ['0.weight', '0.bias']
    """

    def __init__(self, *args):
        super().__init__()
        self.__dict__["cell_list"] = []
        if len(args) == 1 and isinstance(args[0], (dict, OrderedDict)):
            for key, cell in args[0].items():
                check_cell("SequentialCell", "cell", cell)
                self.insert_child_to_cell(key, _relative_names(cell))
            self.__dict__["cell_list"] = list(self._cells.values())
            return
        if len(args) == 1 and isinstance(args[0], list):
            cells = args[0]
        elif len(args) == 1 and isinstance(args[0], tuple):
            cells = list(args[0])
        else:
            cells = list(args)
        for c in cells:
            check_cell("SequentialCell", "cell", c)
        self._reset(cells)

    def _reset(self, cells):
        # `cell_list` is what construct runs, as in MindSpore: the container's own methods
        # (append, insert, extend, item assignment) update it; insert_child_to_cell registers a
        # cell (its parameters are listed) without adding it to the execution order — checked on
        # MindSpore 2.10, where that is also true inside a SequentialCell subclass's __init__.
        self._reset_cells(cells)
        self.__dict__["cell_list"] = list(self._cells.values())

    def _reset_cells(self, cells):
        if not any(not k.isdigit() for k in self._cells):
            return super()._reset(cells)
        # built from an OrderedDict: cells keep their names, new cells are keyed by position
        prefix = _container_prefix(self._cells)
        old = {id(c): k for k, c in self._cells.items()}
        new = OrderedDict()
        for i, cell in enumerate(cells):
            key = old.get(id(cell))
            if key is None or key in new:
                key = str(i)
                if self._auto_prefix:
                    for rel, p in cell.parameters_and_names():
                        p.name = f"{prefix}{key}.{rel}"
                cell.__dict__["_cell_name"] = key
            new[key] = cell
        self.__dict__["_cells"] = new
        return None

    def __getitem__(self, index):
        if isinstance(index, slice):
            return SequentialCell(list(self._cells.values())[index])
        return super().__getitem__(index)

    def construct(self, input_data):
        for cell in self.cell_list:
            input_data = cell(input_data)
        return input_data


class CellList(_IndexedCells):
    """A list of cells whose parameters are registered (torch's nn.ModuleList); not callable.

    Example:
        >>> layers = nn.CellList([nn.Dense(3, 3) for _ in range(2)])
        >>> layers.append(nn.ReLU())
    """

    def __init__(self, *args, **kwargs):
        auto_prefix = kwargs.pop("auto_prefix", True)
        super().__init__(auto_prefix=auto_prefix)
        cells = args[0] if args else None
        if cells is not None:
            self.extend(cells)

    def extend(self, cells):
        """Add every cell of an iterable at the end; a CellDict is refused here (append takes
        one), as MindSpore 2.10's CellList refuses it when built or extended."""
        cells = list(cells)
        for c in cells:
            if isinstance(c, CellDict):
                raise TypeError(f"For '{type(self).__name__}', the type of cell can not be CellDict, "
                                f"but got {type(c).__name__}.")
        return super().extend(cells)

    def construct(self, *inputs):
        raise NotImplementedError("For 'CellList', the container is not callable: iterate over "
                                  "its cells in the parent's construct.")


class CellDict(Cell):
    """An ordered mapping name -> cell whose parameters are registered as `<name>.weight`
    (torch's nn.ModuleDict); not callable.

    Example:
        >>> d = nn.CellDict({'conv': nn.Dense(2, 2), 'act': nn.ReLU()})
        >>> d['act']
    """

    def __init__(self, *args, **kwargs):
        auto_prefix = kwargs.pop("auto_prefix", True)
        super().__init__(auto_prefix=auto_prefix)
        if args:
            self.update(args[0])

    def _check_key(self, key):
        if not isinstance(key, str):
            raise TypeError(f"For 'CellDict', the type of key must be str, but got "
                            f"{type(key).__name__}.")
        if not key or "." in key:
            raise KeyError(f"For 'CellDict', the key must be a non-empty str without '.', but got "
                           f"{key!r}.")
        if key in type(self).__dict__ or key in Cell.__dict__:
            raise KeyError(f"For 'CellDict', the key {key!r} conflicts with an attribute of "
                           f"CellDict.")

    def __getitem__(self, key):
        if key not in self._cells:
            raise KeyError(f"For 'CellDict', the key {key!r} does not exist.")
        return self._cells[key]

    def __setitem__(self, key, cell):
        self._check_key(key)
        check_cell("CellDict", "cell", cell)
        if isinstance(cell, (CellDict, _IndexedCells)):  # MindSpore 2.10 refuses them too
            raise TypeError(f"For 'CellDict', the type of cell can not be CellDict, CellList or "
                            f"SequentialCell, but got {type(cell).__name__}.")
        self.insert_child_to_cell(key, _relative_names(cell))

    def __delitem__(self, key):
        del self._cells[key]
        self.__dict__.pop(key, None)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.keys()))

    def __contains__(self, key):
        return key in self._cells

    def clear(self):
        for key in list(self._cells):
            del self[key]

    def pop(self, key):
        cell = self[key]
        del self[key]
        return cell

    def keys(self):
        return self._cells.keys()

    def values(self):
        return self._cells.values()

    def items(self):
        return self._cells.items()

    def update(self, cells):
        """Add (name, cell) pairs from a mapping or an iterable of pairs."""
        items = cells.items() if hasattr(cells, "items") else cells
        for pair in items:
            if not isinstance(pair, (tuple, list)) or len(pair) != 2:
                raise TypeError(f"For 'CellDict', each element of the iterable must be a (key, "
                                f"cell) pair, but got {pair!r}.")
            self[pair[0]] = pair[1]

    def construct(self, *inputs):
        raise NotImplementedError("For 'CellDict', the container is not callable.")
