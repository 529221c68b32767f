"""The confidence rules, in exact hundredths.

Confidence is an int of hundredths (50 means 0.50) so that 0.45 + 0.05 + 0.05 + 0.05 is 0.60
exactly. Every rule below is the seed's (docs/memories.md, "Confidence"):

* new memories start at 0.50, whatever the caller asks for;
* an actual recall injection is worth 0.05, a reinforce or merge 0.10;
* per memory and local day the total gain is the highest tier that happened that day, so a
  memory recalled (0.05) and then reinforced gets only the 0.05 difference; the creation day
  counts as fully awarded;
* the cap is 1.00; at the cap the first effective award of a day still refreshes last_seen;
* daily decay takes 0.05 from a memory idle for decay_days and resets its last_seen; at 0.40
  or below a memory is deprecated: no longer injected, recalled, compared or decayed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import IntEnum

INITIAL = 50
CAP = 100
DECAY_STEP = 5
DEPRECATED_AT_OR_BELOW = 40
DAY_MS = 86_400_000


class Tier(IntEnum):
    """What an award is worth; also the day's ceiling once it has happened."""

    RECALL = 5
    REINFORCE = 10


@dataclass(frozen=True)
class Standing:
    confidence: int
    last_seen_ms: int
    award_day: str | None
    award_pts: int
    deprecated: bool


@dataclass(frozen=True)
class Award:
    standing: Standing
    gained: int
    effective: bool


def new_standing(now_ms: int, today: str) -> Standing:
    # The creation day counts as already awarded in full: a memory cannot gain on the day
    # it was written, however often it is recalled or restated.
    return Standing(INITIAL, now_ms, today, int(Tier.REINFORCE), False)


def points_due(standing: Standing, tier: Tier, today: str) -> int:
    """How much of the tier is still open today (before the 1.00 cap)."""
    already = standing.award_pts if standing.award_day == today else 0
    return max(0, int(tier) - already)


def apply_award(standing: Standing, tier: Tier, now_ms: int, today: str) -> Award:
    due = points_due(standing, tier, today)
    if due == 0:
        return Award(standing, 0, False)
    gained = min(due, max(0, CAP - standing.confidence))
    confidence = standing.confidence + gained
    updated = Standing(
        confidence=confidence,
        last_seen_ms=now_ms,
        award_day=today,
        award_pts=int(tier),
        deprecated=standing.deprecated and confidence <= DEPRECATED_AT_OR_BELOW,
    )
    return Award(updated, gained, True)


def is_due_for_decay(standing: Standing, now_ms: int, decay_days: int) -> bool:
    if standing.deprecated:
        return False
    return now_ms - standing.last_seen_ms >= decay_days * DAY_MS


def apply_decay(standing: Standing, now_ms: int) -> Standing:
    """One decay step, never several: idle periods are not caught up."""
    confidence = max(0, min(standing.confidence, CAP) - DECAY_STEP)
    return replace(
        standing,
        confidence=confidence,
        last_seen_ms=now_ms,
        deprecated=confidence <= DEPRECATED_AT_OR_BELOW,
    )


def clamp_legacy(confidence: int) -> int:
    return max(0, min(confidence, CAP))


def to_hundredths(value: float | int | str) -> int:
    """Parse a decimal confidence (legacy files, user input) into hundredths, rounding half up."""
    from decimal import ROUND_HALF_UP, Decimal

    return int((Decimal(str(value)) * 100).quantize(Decimal(1), rounding=ROUND_HALF_UP))


def as_decimal_text(hundredths: int) -> str:
    """0.5, 0.55, 1 — as the seed prints it."""
    whole, frac = divmod(abs(hundredths), 100)
    sign = "-" if hundredths < 0 else ""
    if frac == 0:
        return f"{sign}{whole}"
    return f"{sign}{whole}.{frac:02d}".rstrip("0")


def as_float(hundredths: int) -> float:
    # n/100 is the closest double to the decimal, so json shows 0.6, never 0.6000000000000001.
    return hundredths / 100
