"""torch's containers where MindSpore's mean something else: ``nn.Sequential`` filled after it is
built, ``nn.ModuleList`` holding None, ``nn.ModuleDict`` holding containers, ``nn.ParameterList``
that grows. The converter writes MindSpore's own container where it means the same
(``nn.SequentialCell([...])``) and these only where it does not.
"""
from .backend import ms, nn
from .signature import TorchSignature


class TorchSequential(nn.SequentialCell, metaclass=TorchSignature):
    """torch.nn.Sequential over nn.SequentialCell: built from cells or an OrderedDict, or filled
    later by add_module/append or attribute assignment; runs every child in insertion order, as
    torch's Sequential runs its _modules (SequentialCell runs only its cell_list)."""

    _torch_base = nn.SequentialCell

    def __init__(self, *args):
        super().__init__()
        items = args[0].items() if len(args) == 1 and isinstance(args[0], dict) else enumerate(args)
        for name, cell in items:
            self.insert_child_to_cell(str(name), cell)

    def insert_child_to_cell(self, child_name, child_cell):
        if child_cell is not None and self._auto_prefix:
            child_cell.update_parameters_name(child_name + ".")
        super().insert_child_to_cell(child_name, child_cell)

    def add_module(self, name, module):
        self.insert_child_to_cell(name, module)

    def append(self, cell):
        self.insert_child_to_cell(str(len(self)), cell)
        return self

    def _children(self):
        return [cell for cell in self._cells.values() if cell is not None]

    def __len__(self):
        return len(self._children())

    def __iter__(self):
        return iter(self._children())

    def __getitem__(self, index):
        if isinstance(index, slice):
            return TorchSequential(dict(list(self._cells.items())[index]))
        return self._children()[index]

    def construct(self, input_data):
        for cell in self._children():
            input_data = cell(input_data)
        return input_data


class TorchModuleList(nn.CellList, metaclass=TorchSignature):
    """torch.nn.ModuleList over nn.CellList: entries may be None (torch keeps them, with their
    index; only the cells are registered, under their index), and extend takes any iterable."""

    _torch_base = nn.CellList

    def __init__(self, modules=None):
        super().__init__()
        self.__dict__["_torch_items"] = []
        if modules is not None:
            self.extend(modules)

    def _torch_register(self, index, cell):
        if cell is not None:
            if self._auto_prefix:
                cell.update_parameters_name(str(index) + ".")
            self.insert_child_to_cell(str(index), cell)

    def append(self, cell):
        self._torch_items.append(cell)
        self._torch_register(len(self._torch_items) - 1, cell)
        return self

    def extend(self, cells):
        for cell in cells:
            self.append(cell)
        return self

    def __setitem__(self, index, cell):
        index = range(len(self._torch_items))[index]
        self._cells.pop(str(index), None)
        self._torch_items[index] = cell
        self._torch_register(index, cell)
        # torch's entry keeps its place (its _modules held the None): children stay in index order
        ordered = sorted(self._cells.items(), key=lambda item: int(item[0]))
        self._cells.clear()
        self._cells.update(ordered)

    def __len__(self):
        return len(self._torch_items)

    def __iter__(self):
        return iter(list(self._torch_items))

    def __getitem__(self, index):
        if isinstance(index, slice):
            return TorchModuleList(self._torch_items[index])
        return self._torch_items[index]


class TorchModuleDict(nn.CellDict, metaclass=TorchSignature):
    """torch.nn.ModuleDict over nn.CellDict whose values may also be containers (a ModuleList, a
    Sequential, another ModuleDict), which MindSpore 2.10's CellDict refuses; parameters are
    named ``key.<path>``, as CellDict names them."""

    _torch_base = nn.CellDict

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __setitem__(self, key, cell):
        if not isinstance(key, str) or not key or "." in key:
            raise KeyError(f"For 'ModuleDict', the key must be a non-empty str without '.', but got {key!r}.")
        if not isinstance(cell, nn.Cell):
            raise TypeError(f"For 'ModuleDict', the type of cell should be Cell, but got {type(cell).__name__}.")
        if self._auto_prefix:
            cell.update_parameters_name(key + ".")
        self.insert_child_to_cell(key, cell)


class TorchParameterList(nn.Cell):
    """torch.nn.ParameterList that grows by append/extend (MindSpore's ParameterTuple is
    immutable): each Parameter is registered on this Cell under its index, the name torch gives
    it ("0", "1", ...); iteration and indexing give the Parameters in order."""

    def __init__(self, values=None):
        super().__init__()
        self.__dict__["_torch_params"] = []
        self.extend(values or ())

    def append(self, value):
        if value is not None:  # (torch keeps a None in its place, registered as nothing)
            if not isinstance(value, ms.Parameter):
                value = ms.Parameter(value, name=str(len(self._torch_params)))
            self.insert_param_to_cell(str(len(self._torch_params)), value)
        self._torch_params.append(value)
        return self

    def extend(self, values):
        for value in values:
            self.append(value)
        return self

    def __len__(self):
        return len(self._torch_params)

    def __iter__(self):
        return iter(list(self._torch_params))

    def __getitem__(self, index):
        return self._torch_params[index]
