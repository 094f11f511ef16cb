"""What TRL's SFTTrainer does past max_length (trl/trainer/sft_trainer.py _prepare_dataset): an
unpacked row is cut keeping its start (truncation_mode="keep_start"), then a row left with no
trained token is dropped ("Dropping fully masked examples", from TRL 1.9); a row packed by the
wrapped packer (or split by bfd_split) is cut nowhere: its tokens continue into the next packed row."""

from __future__ import annotations

from ..cut import Cut, Pairs, keep_start


class DropUntrained(Cut):
    name = "truncate-drop-untrained"
    words = "cut keeping the start; a row left with no trained token dropped"

    def kept(self, pairs: Pairs, cut: int) -> tuple[int, int] | None:
        kept = keep_start(pairs, cut)
        return kept if kept[1] else None


class Wrapped(Cut):
    name = "wrapped"
    words = "packed end to end across rows: nothing cut"

    def past(self, tokens: int, cut: int) -> bool:
        return False

    def kept(self, pairs: Pairs, cut: int) -> tuple[int, int] | None:
        return sum(u + t for u, t in pairs), sum(t for _, t in pairs)


DROP_UNTRAINED = DropUntrained()
WRAPPED = Wrapped()
