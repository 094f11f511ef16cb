"""Untrusted tokenizer files (issue 24, item 5): a pull request can name its own tokenizer file
(--tokenizer, or `tokenizer = ...` in its ftlint.toml). Every malformed one is a single line
`ftlint: error: --tokenizer PATH: ...` with exit 2: never a panic of tiktoken's, a traceback or an
"internal error"; a FIFO or /dev/zero neither hangs the run nor fills the memory; and a real
tokenizer file still counts exactly as the family it was made from.

Every file here is a real file, built in the test or taken from a reference package (the shipped
qwen2 ranks through transformers' TikTokenConverter; mistral_common's own tekken.json), and
every run is the real CLI in a child process."""

from __future__ import annotations

import base64
import functools
import gzip
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from untrusted import run_limited

from conftest import Result, run_process

Build = Callable[[Path], Path]
TIKTOKEN_PANIC = ("Traceback", "panicked", "internal error", "PanicException")


def chat(*texts: str) -> bytes:
    """Chat records whose texts hold letters, digits, spaces and bytes past ASCII."""
    return b"".join(json.dumps({"messages": [{"role": "user", "content": t}, {"role": "assistant", "content": "ok, 42."}]}).encode()
                    + b"\n" for t in texts)


def data_file(tmp_path: Path, *texts: str) -> Path:
    path = tmp_path / "data.jsonl"
    path.write_bytes(chat(*(texts or ("hello bob, ça va? 123 日本語 🙂",))))
    return path


def assert_refused(r: Result, fragment: str) -> None:
    """Exit 2 and one line on standard error, naming the file and what is wrong."""
    lines = r.stderr.splitlines()
    assert r.exit_code == 2, r.stderr[-2000:]
    assert len(lines) == 1 and lines[0].startswith("ftlint: error: --tokenizer "), r.stderr[-2000:]
    assert fragment in lines[0], lines[0]
    assert not any(word in r.stderr for word in TIKTOKEN_PANIC)


# --- the inventory: Tekken files ------------------------------------------------------------

def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


BYTES: list[dict[str, Any]] = [{"rank": i, "token_bytes": b64(bytes([i])), "token_str": None} for i in range(256)]
CONFIG = {"pattern": ".", "default_vocab_size": 1256, "default_num_special_tokens": 1000}


def entry(i: int, **changes: object) -> list:
    """The 256 single bytes, with entry i changed."""
    return [{**e, **changes} if e["rank"] == i else e for e in BYTES]


def tekken(vocab: list | None = None, **config: object) -> dict:
    return {"vocab": BYTES if vocab is None else vocab, "config": {**CONFIG, **config}}


def more(extra: object) -> dict:
    """The 256 bytes and one more entry (and room for it in the vocabulary size)."""
    return tekken([*BYTES, extra], default_vocab_size=1257)


# --- Hugging Face tokenizer.json ------------------------------------------------------------

@functools.cache
def byte_chars() -> dict[int, str]:
    """GPT-2's byte-to-character table, as transformers' converter has it (not ftlint's copy)."""
    from transformers.convert_slow_tokenizer import bytes_to_unicode

    return bytes_to_unicode()


def hf(vocab: object = None, merges: object = ("a b",), **top: object) -> dict:
    """A byte-level BPE tokenizer.json: the 256 bytes and "ab", merged from "a" and "b"."""
    chars = byte_chars()
    base = {chars[b]: b for b in range(256)} | {"ab": 256}
    model = {"type": "BPE", "vocab": base if vocab is None else vocab, "merges": list(merges) if isinstance(merges, tuple) else merges}
    doc: dict[str, object] = {"version": "1.0", "added_tokens": [], "normalizer": None,
           "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True}, "model": model}
    return {**doc, **top}


def hf_vocab(**changes: object) -> dict:
    chars = byte_chars()
    return {chars[b]: b for b in range(256)} | {"ab": 256} | changes


def hf_without(byte: int) -> dict:
    return {k: v for k, v in hf_vocab().items() if v != byte}


def split(regex: str) -> dict:
    return {"type": "Split", "pattern": {"Regex": regex}, "behavior": "Isolated", "invert": False}


def byte_split(regex: str) -> dict:
    """A split regex as byte-level tokenizer.json files have it (Llama 3, Qwen): the form tiktoken runs."""
    return {"type": "Sequence", "pretokenizers": [split(regex), {"type": "ByteLevel", "add_prefix_space": False,
                                                                 "trim_offsets": True, "use_regex": False}]}


# --- the inventory ----------------------------------------------------------------------------

def as_file(name: str, content: bytes | str | list | Callable[[], object]) -> Build:
    """A file of these bytes, this text, or this value as JSON (made when the test runs)."""
    def build(tmp_path: Path) -> Path:
        value = content() if callable(content) else content
        path = tmp_path / name
        path.write_bytes(value if isinstance(value, bytes) else value.encode() if isinstance(value, str) else json.dumps(value).encode())
        return path
    return build


def folder_without_tokenizer(tmp_path: Path) -> Path:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "config.json").write_text("{}")
    return tmp_path / "model"


def folder_with_a_bad_tokenizer(tmp_path: Path) -> Path:
    (tmp_path / "model").mkdir()
    (tmp_path / "model" / "tokenizer.json").write_text(json.dumps(hf(hf_without(0x62), merges=[])))
    return tmp_path / "model"


def openai_rank_file(tmp_path: Path) -> Path:
    import gzip

    from ftlint import tokens

    path = tmp_path / "cl100k_base.tiktoken"
    path.write_bytes(gzip.decompress((Path(tokens.__file__).parent.parent / "tokenizers" / "cl100k_base.tiktoken.gz").read_bytes()))
    return path


INVENTORY: dict[str, tuple[Build, str]] = {
    # the file: one token, and tiktoken panicked on the first byte that is not "a"
    "tekken-one-token": (as_file("tekken.json", lambda: {"vocab": [{"rank": 0, "token_bytes": "YQ=="}], "config": {}, "pattern": "."}),
                         "no token for the byte 0x00 (nor for 254 more)"),
    "tekken-bad-regex": (as_file("tekken.json", lambda: tekken(pattern="(")), "tiktoken cannot build it (Parsing error"),
    "tekken-empty-vocabulary": (as_file("tekken.json", lambda: tekken([], default_num_special_tokens=0)), "$.vocab is empty"),
    "tekken-rank-not-an-integer": (as_file("tekken.json", lambda: tekken(entry(5, rank="x"))), '$.vocab[5].rank is "x"'),
    "tekken-rank-float": (as_file("tekken.json", lambda: tekken(entry(5, rank=5.0))), "$.vocab[5].rank is 5.0"),
    "tekken-rank-negative": (as_file("tekken.json", lambda: tekken(entry(3, rank=-1))), "$.vocab[3].rank is -1"),
    "tekken-rank-duplicate": (as_file("tekken.json", lambda: tekken(entry(3, rank=2))), "$.vocab[3].rank is 2"),
    "tekken-rank-huge": (as_file("tekken.json", lambda: tekken(entry(3, rank=2**40))), "$.vocab[3].rank is 1099511627776"),
    "tekken-ranks-not-contiguous": (as_file("tekken.json", lambda: tekken([{**e, "rank": 2 * e["rank"]} for e in BYTES])),
                                    "$.vocab[1].rank is 2; a Tekken vocabulary ranks its entries 0, 1, 2"),
    "tekken-bytes-not-base64": (as_file("tekken.json", lambda: more({"rank": 256, "token_bytes": "%%%"})),
                                '$.vocab[256].token_bytes is "%%%"'),
    "tekken-bytes-not-a-string": (as_file("tekken.json", lambda: more({"rank": 256, "token_bytes": 5})), "$.vocab[256].token_bytes is 5"),
    "tekken-entry-not-an-object": (as_file("tekken.json", lambda: more("abc")), "$.vocab[256] is a string"),
    "tekken-token-twice": (as_file("tekken.json", lambda: more({"rank": 256, "token_bytes": b64(b"a")})),
                           "$.vocab[256].token_bytes repeats $.vocab[97].token_bytes"),
    "tekken-missing-byte": (as_file("tekken.json", lambda: tekken(entry(0x62, token_bytes=b64(b"xy")))), "no token for the byte 0x62"),
    "tekken-specials-not-a-number": (as_file("tekken.json", lambda: tekken(default_num_special_tokens="x")),
                                     '$.config.default_num_special_tokens is "x"'),
    "tekken-specials-negative": (as_file("tekken.json", lambda: tekken(default_num_special_tokens=-5)),
                                 "$.config.default_num_special_tokens is -5"),
    "tekken-specials-past-the-vocabulary": (as_file("tekken.json", lambda: tekken(default_num_special_tokens=5000)),
                                            "is -3,744 tokens, and $.vocab has 256"),
    "tekken-size-null": (as_file("tekken.json", lambda: tekken(default_vocab_size=None)), "$.config.default_vocab_size is null"),
    "tekken-pattern-not-a-string": (as_file("tekken.json", lambda: tekken(pattern=5)), "$.config.pattern is 5"),
    "tekken-nan-rank": (as_file("tekken.json", '{"vocab": [{"rank": NaN, "token_bytes": "AA=="}], "config": {"pattern": "."}}'),
                        "$.vocab[0].rank is NaN"),
    # tokenizer.json
    "hf-vocab-a-list": (as_file("tokenizer.json", lambda: hf([["a", 0.0]])), "$.model.vocab is a list"),
    "hf-unigram-without-unk": (as_file("tokenizer.json", lambda: {**hf(), "model": {"type": "Unigram", "vocab": [["a", 0.0]]}}),
                               "the tokenizers library failed on a text (Encountered an unknown token"),
    "hf-merge-of-three": (as_file("tokenizer.json", lambda: hf(merges=[["a", "b", "c"]])), '$.model.merges[0] is ["a", "b", "c"]'),
    "hf-merge-without-a-space": (as_file("tokenizer.json", lambda: hf(merges=["ab"])), '$.model.merges[0] is "ab"'),
    "hf-merge-of-numbers": (as_file("tokenizer.json", lambda: hf(merges=[[1, 2]])), "$.model.merges[0] is [1, 2]"),
    "hf-merge-unknown-token": (as_file("tokenizer.json", lambda: hf(merges=["a \u4e00"])), '"\u4e00" is not in $.model.vocab'),
    "hf-merges-an-object": (as_file("tokenizer.json", lambda: hf(merges={"a": "b"})), "$.model.merges is an object"),
    "hf-id-not-an-integer": (as_file("tokenizer.json", lambda: hf(hf_vocab(ab="x"))), '$.model.vocab.ab is "x"'),
    "hf-id-float": (as_file("tokenizer.json", lambda: hf(hf_vocab(ab=256.5))), "$.model.vocab.ab is 256.5"),
    "hf-id-negative": (as_file("tokenizer.json", lambda: hf(hf_vocab(ab=-1))), "$.model.vocab.ab is -1"),
    "hf-id-huge": (as_file("tokenizer.json", lambda: hf(hf_vocab(ab=2**40))), "$.model.vocab.ab is 1099511627776"),
    "hf-id-duplicate": (as_file("tokenizer.json", lambda: hf(hf_vocab(ab=5), merges=[])), "have the same rank, 5"),
    "hf-missing-byte": (as_file("tokenizer.json", lambda: hf(hf_without(0x62), merges=[])), "no token for the byte 0x62"),
    "hf-empty-token": (as_file("tokenizer.json", lambda: hf(hf_vocab(**{"": 257}))), "an empty token"),
    "hf-pre-tokenizer-sequence-not-a-list": (as_file("tokenizer.json", lambda: hf(pre_tokenizer={"type": "Sequence", "pretokenizers": 5})),
                                             "$.pre_tokenizer.pretokenizers is a number"),
    "hf-pre-tokenizer-bad-regex": (as_file("tokenizer.json", lambda: hf(pre_tokenizer=byte_split("("))), "tiktoken cannot build it"),
    "hf-pattern-matches-empty-text": (as_file("tokenizer.json", lambda: hf(pre_tokenizer=byte_split("a*"))), "matches empty text"),
    "hf-pattern-too-long": (as_file("tokenizer.json", lambda: hf(pre_tokenizer=byte_split("a|" * 5000 + "."))), "10,001 characters"),
    # files tiktoken does not run, which the tokenizers library reads (tokens/library.py): what it refuses
    "hf-library-bad-regex": (as_file("tokenizer.json", lambda: hf(pre_tokenizer=split("("))),
                             "the tokenizers library cannot load it (Oniguruma error"),
    "hf-library-pattern-too-long": (as_file("tokenizer.json", lambda: hf(pre_tokenizer=split("a|" * 5000 + "."))),
                                    "a regex of its normaliser or pre-tokenizer has 10,001 characters"),
    "hf-library-normaliser-bad-regex": (as_file("tokenizer.json", lambda: hf(normalizer={"type": "Replace", "pattern": {"Regex": "("},
                                                                                      "content": "x"})),
                                        "the tokenizers library cannot load it"),
    "hf-added-tokens-a-number": (as_file("tokenizer.json", lambda: hf(added_tokens=5)), "$.added_tokens is a number"),
    "hf-added-tokens-an-object": (as_file("tokenizer.json", lambda: hf(added_tokens={"a": 1})), "$.added_tokens is an object"),
    "hf-normalizer-sequence-not-a-list": (as_file("tokenizer.json", lambda: hf(normalizer={"type": "Sequence", "normalizers": 5})),
                                          "$.normalizer.normalizers is a number"),
    "hf-model-a-string": (as_file("tokenizer.json", lambda: {"model": "BPE"}), "neither a Hugging Face tokenizer.json"),
    # any file
    "empty-file": (as_file("tokenizer.json", b""), "an empty file"),
    "binary-garbage": (as_file("tokenizer.bin", bytes(range(256)) * 64), "not a tokenizer file"),
    "json-a-list": (as_file("tokenizer.json", [1, 2]), "a JSON list, not an object"),
    "json-a-number": (as_file("tokenizer.json", "5"), "not a tokenizer file"),
    "json-invalid": (as_file("tokenizer.json", '{"model": '), "not valid JSON"),
    "json-not-utf8": (as_file("tokenizer.json", b'{"model": "\xff"}'), "not valid JSON"),
    "json-deeply-nested": (as_file("tokenizer.json", "[" * 100_000 + "]" * 100_000), "nests too deeply"),
    "json-deeply-nested-object": (as_file("tokenizer.json", '{"model":' * 5_000 + "1" + "}" * 5_000), "nests too deeply"),
    "rank-file-odd-fields": (as_file("tokenizer.model", "YQ== 0\nYg==\n"), "is none ftlint knows"),
    "rank-file-bad-base64": (as_file("tokenizer.model", "%%% 0\n"), "not a tokenizer file"),
    "rank-file-rank-not-an-integer": (as_file("tokenizer.model", "YQ== x\n"), "not a tokenizer file"),
    "rank-file-of-an-openai-encoding": (openai_rank_file, "the rank file of cl100k_base; give --tokenizer cl100k_base"),
    "folder-without-a-tokenizer": (folder_without_tokenizer, "no tokenizer.json, tekken.json or tokenizer.model in that folder"),
    "folder-with-a-bad-tokenizer": (folder_with_a_bad_tokenizer, "model/tokenizer.json: its vocabulary has no token for the byte 0x62"),
    "no-such-file": (lambda tmp_path: tmp_path / "nowhere.json", "no such file"),
}


@pytest.mark.parametrize("case", sorted(INVENTORY))
def test_a_malformed_tokenizer_file_is_one_line_and_exit_2(case: str, tmp_path: Path) -> None:
    build, fragment = INVENTORY[case]
    assert_refused(run_process("check", str(data_file(tmp_path)), "--tokenizer", str(build(tmp_path))), fragment)


# estimate loads the tokenizer where check does (resolve_run, before any worker): the cases
# that made tiktoken panic or ended in "internal error", once more
PANICKED = ["tekken-one-token", "tekken-rank-duplicate", "hf-id-duplicate", "hf-missing-byte", "hf-pattern-matches-empty-text",
            "tekken-bad-regex", "hf-merge-of-three", "json-deeply-nested-object", "tekken-specials-not-a-number"]


@pytest.mark.parametrize("case", PANICKED)
def test_estimate_refuses_it_the_same_way(case: str, tmp_path: Path) -> None:
    build, fragment = INVENTORY[case]
    assert_refused(run_process("estimate", str(data_file(tmp_path)), "--tokenizer", str(build(tmp_path))), fragment)


# sound files that tiktoken cannot count exactly: the tokenizers library counts them, as the trainer does
LIBRARY: dict[str, Build] = {
    "merges-out-of-rank-order": as_file("tokenizer.json", lambda: hf(hf_vocab(**{"ab": 300, "bc": 257}), merges=["a b", "b c"])),
    "a-sentencepiece-token": as_file("tokenizer.json", lambda: hf(hf_vocab(**{"\u2581the": 257}))),
    "no-pre-tokenizer": as_file("tokenizer.json", lambda: hf(pre_tokenizer=None)),
    "a-split-without-byte-level": as_file("tokenizer.json", lambda: hf(pre_tokenizer=split("a*"))),
    "a-token-no-merge-makes": as_file("tokenizer.json", lambda: hf(merges=[])),
}


@pytest.mark.parametrize("case", sorted(LIBRARY))
def test_a_sound_file_tiktoken_cannot_run_counts_as_the_tokenizers_library_counts_it(case: str, tmp_path: Path) -> None:
    from tokenizers import Tokenizer

    from ftlint.tokenizing import TokenizerPath
    from ftlint.tokens import TokenCounter, library_of

    path = LIBRARY[case](tmp_path)
    texts = ["hello bob, ça va? 123 日本語 🙂", "abc bcd ab", "the \u2581the", "aaa b"]
    r = run_process("check", str(data_file(tmp_path, *texts)), "--tokenizer", str(path), "--ignore", "FT4")
    assert r.exit_code == 0, r.stderr[-2000:]
    counter, reference = TokenCounter(TokenizerPath(str(path))), Tokenizer.from_file(str(path))
    assert library_of(TokenizerPath(str(path))) is not None
    for text in texts:
        assert counter.count(text) == len(reference.encode(text, add_special_tokens=False).ids)


def test_a_tokenizer_path_that_cannot_be_opened_is_one_line(tmp_path: Path) -> None:
    """A path through a file (not a folder) cannot be opened, whoever runs ftlint (root reads a
    file of mode 0, so permissions cannot make one unreadable here): one line, the OS's reason."""
    path = as_file("tokenizer.json", hf)(tmp_path) / "inner.json"
    assert_refused(run_process("check", str(data_file(tmp_path)), "--tokenizer", str(path)), "cannot read it: Not a directory")


# --- what is not a regular file: bounded, never blocking ----------------------------------------

def test_a_fifo_or_dev_zero_as_the_tokenizer_is_refused_at_once_in_bounded_memory(tmp_path: Path) -> None:
    """A FIFO nobody writes to would block a reader for ever, and /dev/zero behind a symlink
    never ends: both are refused before a byte is read (trust.read_file)."""
    fifo, zero = tmp_path / "tokenizer.json", tmp_path / "tekken.json"
    os.mkfifo(fifo)
    zero.symlink_to("/dev/zero")
    data = data_file(tmp_path)
    for path, fragment in ((fifo, "a FIFO, not a regular file"), (zero, "a device, not a regular file")):
        code, _, err, peak = run_limited(["check", str(data), "--tokenizer", str(path)], memory_mib=1536, timeout=60)
        assert_refused(Result(code, "", err), fragment)
        assert peak < 300, peak


def test_a_wide_json_bomb_that_outgrows_the_memory_is_one_line(tmp_path: Path) -> None:
    """64 MiB of empty JSON objects (under the default --max-file-bytes) take 1.6 GB once parsed:
    under a 1,536 MiB address-space cap the parse runs out of memory, and that is one line."""
    path = tmp_path / "tokenizer.json"
    with open(path, "wb") as fh:
        fh.write(b'{"model": {"vocab": [')
        for _ in range(64):
            fh.write(b"{}," * ((1 << 20) // 3))
        fh.write(b"{}]}}")
    assert path.stat().st_size < 64 << 20
    code, _, err, peak = run_limited(["check", str(data_file(tmp_path)), "--tokenizer", str(path)], memory_mib=1536, timeout=120)
    assert_refused(Result(code, "", err), "bytes of JSON do not fit in memory once parsed")
    assert peak < 1536, peak


def test_max_file_bytes_bounds_the_tokenizer_file(tmp_path: Path) -> None:
    """The user's --max-file-bytes reaches the tokenizer: a byte under the file's size refuses
    it before it is read."""
    path = as_file("tokenizer.json", hf)(tmp_path)
    size = path.stat().st_size
    data = str(data_file(tmp_path))
    assert_refused(run_process("check", data, "--tokenizer", str(path), "--max-file-bytes", str(size - 1)),
                   f"{size:,} bytes, over the {size - 1:,}-byte limit for it")
    assert run_process("check", data, "--tokenizer", str(path), "--max-file-bytes", str(size), "--ignore", "FT4").exit_code == 0


# --- panics that depend on the text, after the file was accepted ------------------------------

def test_a_pattern_that_backtracks_past_the_limit_on_a_text_is_one_clear_line(tmp_path: Path) -> None:
    """fancy-regex stops a match after 1,000,000 backtracking steps and tiktoken panics on it
    (tiktoken/src/lib.rs unwraps the match). No check of the file can foresee which text does
    that; the panic is caught where tiktoken encodes (in the main process with --jobs 1, in a
    worker with --jobs 2), and the run ends with one line of ftlint's, exit 2. Rust prints its
    own panic message before Python sees the panic: that is all that precedes ftlint's line."""
    path = as_file("tekken.json", lambda: tekken(pattern="((a|a)*)(?!a)x|."))(tmp_path)
    texts = [f"hello {i}" for i in range(3_000)]
    texts[2_500] = "a" * 40 + " b"
    data = data_file(tmp_path, *texts)
    for command, jobs in (("check", "1"), ("check", "2"), ("estimate", "2")):
        r = run_process(command, str(data), "--tokenizer", str(path), "--jobs", jobs)
        ours = [line for line in r.stderr.splitlines() if line.startswith("ftlint:")]
        assert r.exit_code == 2, r.stderr[-2000:]
        assert len(ours) == 1 and r.stderr.rstrip("\n").endswith(ours[0]), r.stderr[-2000:]
        assert ours[0].startswith(f"ftlint: error: --tokenizer {path}: tiktoken failed on a text (") and "BacktrackLimitExceeded" in ours[0]
        assert not any(word in r.stderr for word in ("Traceback", "internal error"))


# --- the Python API -----------------------------------------------------------------------------

def test_the_api_raises_usage_error_for_a_bad_tokenizer(tmp_path: Path) -> None:
    """ftlint.check, estimate and check_records raise the documented UsageError with the CLI's
    line (a panic of tiktoken's, a BaseException, escaped them before)."""
    import ftlint
    from ftlint import api

    data = str(data_file(tmp_path))
    missing_byte = as_file("tokenizer.json", lambda: hf(hf_without(0x62), merges=[]))(tmp_path)
    record = {"messages": [{"role": "user", "content": "abc"}, {"role": "assistant", "content": "ok"}]}
    for call in (lambda: ftlint.check(data, tokenizer=str(missing_byte)), lambda: ftlint.estimate(data, tokenizer=str(missing_byte)),
                 lambda: api.check_records([record], tokenizer=str(missing_byte))):
        with pytest.raises(api.UsageError, match=r"^--tokenizer .*: its vocabulary has no token for the byte 0x62"):
            call()
    with pytest.raises(api.UsageError, match="a path with a NUL byte"):  # os.open's ValueError
        ftlint.check(data, tokenizer="tokenizer\x00.json")


def test_the_api_reads_the_file_again_under_a_lower_limit(tmp_path: Path) -> None:
    """The encoding is cached by path and limit: a file accepted under the default limit is
    refused by a later call whose max_file_bytes it exceeds."""
    import ftlint
    from ftlint import api

    data = str(data_file(tmp_path))
    path = as_file("tokenizer.json", hf)(tmp_path)
    assert ftlint.check(data, tokenizer=str(path), dataset_rules=False).records == 1
    with pytest.raises(api.UsageError, match="over the 100-byte limit"):
        ftlint.check(data, tokenizer=str(path), max_file_bytes=100)


# --- real tokenizer files still count exactly ----------------------------------------------------

def qwen2_tokenizer_json(tmp_path: Path) -> Path:
    """Qwen 2's shipped ranks made into a tokenizer.json by transformers' TikTokenConverter (the
    tokenizers library writes it, not ftlint), with Qwen's NFC normaliser."""
    from tokenizers import normalizers
    from transformers.convert_slow_tokenizer import TikTokenConverter

    from ftlint import tokens

    ranks = tmp_path / "qwen2.tiktoken"
    shipped = Path(tokens.__file__).parent.parent / "tokenizers" / "qwen2.tiktoken.gz"
    ranks.write_bytes(gzip.decompress(shipped.read_bytes()))
    converted = TikTokenConverter(vocab_file=str(ranks), pattern=tokens.QWEN2_PATTERN).converted()
    converted.normalizer = normalizers.NFC()
    path = tmp_path / "Qwen-local" / "tokenizer.json"
    path.parent.mkdir()
    converted.save(str(path))
    return path


def mistral_tekken_json(tmp_path: Path) -> Path:
    """mistral_common's own Tekken v3 file (the one its Tekkenizer loads)."""
    import mistral_common

    return Path(mistral_common.__file__).parent / "data" / "tekken_240718.json"


@pytest.mark.parametrize(("make", "family"), [(qwen2_tokenizer_json, "qwen2"), (mistral_tekken_json, "mistral-tekken")])
def test_a_real_tokenizer_file_counts_as_its_family_and_the_limit_is_exact(make: Build, family: str, tmp_path: Path) -> None:
    """A real tokenizer.json and a real tekken.json pass every check of the file and count what
    the family counts; the same file one byte over --max-file-bytes is refused."""
    path = make(tmp_path)
    texts = ["Hello, world! ça va? naïve café 123 4567", "日本語のテキスト and a mix", "def f(x):\n    return x ** 2\n", "e\u0301 Å 🙏🏽"]
    data = str(data_file(tmp_path, *texts))
    size = str(path.stat().st_size)
    by_file = run_process("estimate", data, "--tokenizer", str(path), "--max-file-bytes", size, "-o", "json")
    by_family = run_process("estimate", data, "--tokenizer", family, "-o", "json")
    assert by_file.exit_code == by_family.exit_code != 2, by_file.stderr + by_family.stderr
    assert json.loads(by_file.stdout)["tokens"] == json.loads(by_family.stdout)["tokens"] > 0
    assert_refused(run_process("estimate", data, "--tokenizer", str(path), "--max-file-bytes", str(int(size) - 1)), "-byte limit for it")


# --- a model's tokenizer from the Hugging Face cache --------------------------------------------

def test_a_bad_tokenizer_in_the_hugging_face_cache_names_the_model(tmp_path: Path) -> None:
    """--model whose tokenizer is not installed (llama-models shadowed by an empty package on
    PYTHONPATH) takes the model's snapshot from the Hugging Face cache; a malformed one there is
    one line that names the model and the file."""
    shadow = tmp_path / "shadow" / "llama_models"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("")
    snapshot = tmp_path / "hub" / "models--meta-llama--Llama-3.1-8B-Instruct" / "snapshots" / "abc123"
    snapshot.mkdir(parents=True)
    (snapshot / "tokenizer.json").write_text(json.dumps(hf(hf_vocab(ab=5), merges=[])))
    path = os.pathsep.join([str(tmp_path / "shadow"), *filter(None, [os.environ.get("PYTHONPATH")])])
    env = {**os.environ, "PYTHONPATH": path, "HF_HUB_CACHE": str(tmp_path / "hub")}
    import subprocess

    p = subprocess.run([sys.executable, "-m", "ftlint", "estimate", str(data_file(tmp_path)), "--model", "meta-llama/Llama-3.1-8B-Instruct"],
                       capture_output=True, env=env, timeout=120)
    err = p.stderr.decode()
    assert p.returncode == 2 and len(err.splitlines()) == 1, err[-2000:]
    assert err.startswith(f"ftlint: error: --model meta-llama/Llama-3.1-8B-Instruct: its tokenizer in the Hugging Face cache, "
                          f"{snapshot}/tokenizer.json: the tokens "), err
    assert not any(word in err for word in TIKTOKEN_PANIC)


def test_files_named_like_the_prefixes_are_the_users_files(tmp_path: Path) -> None:
    """A tokenizer folder literally named "path:model" and a template file named "file:chat.jinja",
    given by those relative names: each is read as the file it is (the counts are the folder's
    tokenizer over the template, as transformers makes them), and the JSON names each once, by its
    absolute path behind its kind's prefix."""
    from test_model_folders import CHATML, _small, reference

    folder = tmp_path / "path:model"
    folder.mkdir()
    _small(folder)
    (tmp_path / "file:chat.jinja").write_text(CHATML)
    record = {"messages": [{"role": "user", "content": "Where is the drone?"}, {"role": "assistant", "content": "Over the field."}]}
    (tmp_path / "d.jsonl").write_text(json.dumps(record) + "\n")
    given = ("--tokenizer", "path:model", "--chat-template", "file:chat.jinja", "-o", "json")
    out = run_process("estimate", "d.jsonl", "--format", "trl-messages", "-e", "1", *given, cwd=tmp_path)
    assert out.exit_code in (0, 1), out.stderr
    e = json.loads(out.stdout)
    assert e["tokenizer"] == e["encoding"] == f"path:{folder}" and e["tokens_exact"] is True
    assert e["tokens"] == reference(folder, record)[1]
    shown = run_process("show", "d.jsonl:1", "--format", "trl-messages", *given, cwd=tmp_path)
    assert shown.exit_code in (0, 1), shown.stderr
    assert json.loads(shown.stdout)["template"] == f"file:{tmp_path / 'file:chat.jinja'}"
