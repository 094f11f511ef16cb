"""What TRL's SFTTrainer does past max_length (trl/trainer/sft_trainer.py _prepare_dataset): an
unpacked row is cut keeping its start (truncation_mode="keep_start"), then a row left with no
trained token is dropped ("Dropping fully masked examples", from TRL 1.9); a row packed by the
wrapped packer (or split by bfd_split) is cut nowhere: its tokens continue into the next packed row."""

from __future__ import annotations

from ..cut import Cut, Pairs, Uncut, keep_start


class DropUntrained(Cut):
    name = "truncate-drop-untrained"
    words = "cut keeping the start; a row left with no trained token dropped"

    def kept_pairs(self, pairs: Pairs, cut: int) -> list[tuple[int, int]] | None:
        kept = keep_start(pairs, cut)
        return kept if any(t for _, t in kept) else None


class Wrapped(Uncut):
    name = "wrapped"
    words = "packed end to end across rows: nothing cut"


DROP_UNTRAINED = DropUntrained()
WRAPPED = Wrapped()
