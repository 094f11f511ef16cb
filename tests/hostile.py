"""The hostile inputs of issue 7, as bytes, with the exact findings ftlint must give (line, code).
tests/untrusted/test_hostile.py checks each one; fixtures/hostile/ holds the same bytes as a corpus."""

from __future__ import annotations

import gzip
import json

OK = json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}).encode()
_OKS = [OK] * 3


def _lines(*parts: bytes, end: bytes = b"\n") -> bytes:
    return b"".join(p + end for p in parts)


def _gz_truncated() -> bytes:
    packed = gzip.compress(_lines(*([OK] * 3000)), mtime=0)
    return packed[: len(packed) // 2]


HOSTILE: dict[str, tuple[bytes, list[tuple[int, str]]]] = {
    # name: (file bytes, findings as (line, code)); dataset-wide codes (FT4xx) are left out
    "invalid_utf8.jsonl": (_lines(OK, b'{"messages": "caf\xe9"}', OK), [(2, "FT003")]),
    "utf8_bom.jsonl": (b"\xef\xbb\xbf" + _lines(OK, OK), [(1, "FT004")]),
    "utf16.jsonl": (_lines(OK, OK).decode().encode("utf-16"), [(1, "FT008")]),
    "utf16_no_bom.jsonl": (_lines(OK).decode().encode("utf-16-le"), [(1, "FT008")]),
    "nul_bytes.jsonl": (_lines(OK, OK[:10] + b"\x00" + OK[10:]), [(2, "FT010")]),
    "cr_only.jsonl": (_lines(OK, OK, OK, end=b"\r"), [(1, "FT011")]),
    "blank_lines.jsonl": (_lines(OK, b"", b"  \t ", OK), [(2, "FT005"), (3, "FT005")]),
    "no_final_newline.jsonl": (OK + b"\n" + OK, []),
    "cut_mid_json.jsonl": (_lines(OK) + OK[: len(OK) // 2], [(2, "FT001")]),
    "pretty_printed.jsonl": (json.dumps(json.loads(OK), indent=2).encode() + b"\n",
                             [(1, "FT012"), (2, "FT012"), (3, "FT012"), (4, "FT012"), (5, "FT012"), (6, "FT012"),
                              (7, "FT012"), (8, "FT012"), (9, "FT012"), (10, "FT012"), (11, "FT012"), (12, "FT012")]),
    "top_level_array.jsonl": (b"[" + b", ".join(_OKS) + b"]\n", [(1, "FT002")]),
    "non_object_lines.jsonl": (_lines(OK, b'"text"', b"42", b"true", b"null"), [(2, "FT002"), (3, "FT002"), (4, "FT002"), (5, "FT002")]),
    "nan_infinity.jsonl": (_lines(b'{"messages": NaN}', b'{"messages": Infinity}', b'{"messages": -Infinity}'),
                           [(1, "FT001"), (2, "FT001"), (3, "FT001")]),
    "duplicate_keys.jsonl": (_lines(OK, b'{"messages": [{"role": "user", "content": "a", "content": "b"}, {"role": "assistant", "content": "c"}]}'),
                             [(2, "FT013")]),
    # a writer that puts spaces around colons, and a colon inside a string
    "duplicate_keys_spaced.jsonl": (_lines(b'{"messages" : [{"role" : "user", "content" : "note: a"}, '
                                           b'{"role" : "assistant", "content" : "b", "content" : "c"}]}', OK),
                                    [(1, "FT013")]),
    "lone_surrogate.jsonl": (_lines(OK, b'{"messages": [{"role": "user", "content": "\\ud800"}]}'), [(2, "FT001")]),
    "huge_number.jsonl": (_lines(OK, b'{"messages": 1e400}'), [(2, "FT001")]),
    "deep_nesting.jsonl": (_lines(OK, b'{"messages": ' + b"[" * 300 + b"]" * 300 + b"}", b"[" * 5000 + b"]" * 5000), [(2, "FT014"), (3, "FT014")]),
    "truncated.jsonl.gz": (_gz_truncated(), [(None, "FT009")]),
    "empty.jsonl": (b"", [(0, "FT006")]),
}

# inputs too large to keep as files: made by the test
HUGE_LINE_BYTES = 300 * 1024 * 1024
