"""Reading: a path's bytes as physical lines, whatever holds them.

  base.py          the block size, the line limit, InputError, the lines judged without parsing
  source.py        opening a path: stdin, gzip and zstd (compressed.py), a container by its bytes
  lines.py         the JSONL stream: lines one by one (read_raw) or in blocks (read_runs, LineBlock;
                   each_line: the blocks' lines one by one)
  window.py        byte ranges of a file read apart (the Ray engine)
  tables.py        Parquet and Arrow rows as JSON lines; save_to_disk.py: a datasets folder of them
  json_array.py    a JSON array's elements as lines

A reader yields a line's bytes, to be parsed where it is judged (ftlint/parse.py), or a `Line`
whose fact needs no parsing. It names no code: rules/file.py words every fact.
"""

from ..parse import DEFAULT_MAX_DEPTH, Line
from .base import DEFAULT_MAX_LINE_BYTES, READ_BLOCK, InputError
from .lines import LineBlock, each_line, first_rows, read_lines, read_raw, read_runs
from .source import display_name, open_binary
from .window import line_start, read_window, splittable, window_lines

__all__ = ["DEFAULT_MAX_DEPTH", "DEFAULT_MAX_LINE_BYTES", "READ_BLOCK", "InputError", "Line", "LineBlock", "display_name", "each_line", "first_rows",
           "line_start", "open_binary", "read_lines", "read_raw", "read_runs", "read_window", "splittable", "window_lines"]
