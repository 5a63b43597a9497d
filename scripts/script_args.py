"""What the scripts of scripts/ share: an argparse parser whose bad flag exits 1, as s2c and
s2sim do (argparse's own code is 2, which the tools keep for an internal error)."""

import argparse
import sys


class Parser(argparse.ArgumentParser):
    """argparse.ArgumentParser, but a bad flag prints the usage and exits 1."""

    def error(self, message):
        self.print_usage(sys.stderr)
        sys.exit(f"{self.prog}: error: {message}")
