"""absl.app stand-in: run(main) parses the flags of sys.argv and calls main(argv)."""
import sys

from .flags import FLAGS


def run(main, argv=None):
    rest = FLAGS(list(sys.argv if argv is None else argv))
    sys.exit(main(rest))
