"""The exact distribution of per-record token counts (how many records have each count): counts
add, so the distribution of merged shards is that of one run over them, and quantiles, clipped sums
and the over-limit count for any limit are exact. The engine keeps one per analysis
(engine/result.py); a trainer's preparation makes one of the records it trains (plan/prepared.py)."""

from __future__ import annotations


class Lengths:
    """The exact distribution of per-record token counts: records per distinct count."""

    __slots__ = ("counts",)

    def __init__(self, counts: dict[int, int] | None = None) -> None:
        self.counts: dict[int, int] = counts if counts is not None else {}

    def add(self, tokens: int) -> None:
        counts = self.counts
        counts[tokens] = counts.get(tokens, 0) + 1

    def merge(self, other: Lengths | dict[int, int]) -> None:
        counts = self.counts
        for tokens, n in (other.counts if isinstance(other, Lengths) else other).items():
            counts[tokens] = counts.get(tokens, 0) + n

    @property
    def records(self) -> int:
        return sum(self.counts.values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Lengths) and self.counts == other.counts

    __hash__ = None  # type: ignore[assignment]

    def sorted(self) -> list[tuple[int, int]]:
        return sorted(self.counts.items())

    def total(self, cap: int | None = None) -> int:
        """Tokens summed, each record's at most `cap` (None: uncut)."""
        if cap is None:
            return sum(t * n for t, n in self.counts.items())
        return sum(min(t, cap) * n for t, n in self.counts.items())

    def over(self, limit: int) -> int:
        """Records of more than `limit` tokens."""
        return sum(n for t, n in self.counts.items() if t > limit)

    def quantile(self, q: float) -> int:
        """The nearest record's count (no interpolation): the record at position
        floor(q * (n - 1) + 0.5) in sorted order, as polars' "nearest" quantile."""
        n = self.records
        if not n:
            raise ValueError("no records")
        target = int(q * (n - 1) + 0.5)
        seen = 0
        for tokens, k in self.sorted():
            seen += k
            if seen > target:
                return tokens
        raise AssertionError("unreachable")

    def stats(self) -> dict[str, float]:
        """min, p50, p90, max and mean (1 decimal) of the records' token counts; {} for none."""
        n = self.records
        if not n:
            return {}
        return {"min": min(self.counts), "p50": self.quantile(0.5), "p90": self.quantile(0.9), "max": max(self.counts),
                "mean": round(self.total() / n, 1)}

    def in_range(self, low: int, high: int) -> int:
        """Records of at least `low` and fewer than `high` tokens."""
        return sum(n for t, n in self.counts.items() if low <= t < high)


__all__ = ["Lengths"]
