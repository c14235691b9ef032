"""The option axes of The Smallholder, the five named rulesets, and the spec syntax.

A ruleset is one value on each of four axes (docs/smallholder.md, The option axes); every one of the
5 x 4 x 2 x 3 = 120 combinations is playable. A custom ruleset is written
``groups=...,adjacent=...,territory=...,capture=...``; keys left out keep the values of
a base ruleset (``nibbler`` unless the caller says otherwise).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from itertools import product

from tablebase.games.base import NotationError

GROUPS_OPTIONS = ("must-create-if-one", "must-create-if-one-live", "priority-create-if-one",
                  "priority-create-if-one-live", "priority-create")
ADJACENT_OPTIONS = ("smallest-playable", "smallest-playable-only", "smallest", "smallest-only")
TERRITORY_OPTIONS = ("gap", "hull")
CAPTURE_OPTIONS = ("piecewise", "groupwise", "groupwise-reentry")

_ALLOWED: dict[str, tuple[str, ...]] = {
    "groups": GROUPS_OPTIONS,
    "adjacent": ADJACENT_OPTIONS,
    "territory": TERRITORY_OPTIONS,
    "capture": CAPTURE_OPTIONS,
}


@dataclass(frozen=True)
class Rules:
    """One value per option axis; the defaults are the Nibbler ruleset."""

    groups: str = "must-create-if-one-live"
    adjacent: str = "smallest-playable"
    territory: str = "gap"
    capture: str = "piecewise"

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value not in _ALLOWED[f.name]:
                raise NotationError(f"unknown {f.name} option (allowed: {', '.join(_ALLOWED[f.name])}): {value!r}")

    @property
    def spec(self) -> str:
        """The full custom-ruleset text, e.g. ``groups=...,adjacent=...,territory=...,capture=...``."""
        return ",".join(f"{f.name}={getattr(self, f.name)}" for f in fields(self))

    @property
    def name(self) -> str:
        """The named ruleset these options make, else the spec: one name per option set."""
        for name, rules in RULESETS.items():
            if rules == self:
                return name
        return self.spec

    @property
    def reentry(self) -> bool:
        return self.capture == "groupwise-reentry"


RULESETS: dict[str, Rules] = {
    "gaps-original": Rules("must-create-if-one", "smallest", "gap", "piecewise"),
    "nibbler": Rules("must-create-if-one-live", "smallest-playable", "gap", "piecewise"),
    "offshore-gaps": Rules("priority-create-if-one-live", "smallest-playable", "gap", "piecewise"),
    "stymie": Rules("priority-create-if-one-live", "smallest", "gap", "groupwise-reentry"),
    "hull-setbacks": Rules("must-create-if-one-live", "smallest-playable", "hull", "groupwise"),
}
DEFAULT_RULESET = "nibbler"


def parse_rules(text: str, base: Rules | None = None) -> Rules:
    """A named ruleset, or a ``key=value,...`` spec on top of ``base`` (default nibbler)."""
    token = text.strip()
    if token in RULESETS:
        return RULESETS[token]
    if "=" not in token:
        raise NotationError(f"unknown ruleset (known: {', '.join(RULESETS)}; or a spec "
                            f"groups=...,adjacent=...,territory=...,capture=...): {text!r}")
    changes: dict[str, str] = {}
    for item in token.split(","):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or key not in _ALLOWED:
            raise NotationError(f"unknown rules key {key!r} (allowed: {', '.join(_ALLOWED)}): {text!r}")
        if key in changes:
            raise NotationError(f"rules key {key!r} given twice: {text!r}")
        if value not in _ALLOWED[key]:
            raise NotationError(f"unknown {key} option {value!r} (allowed: {', '.join(_ALLOWED[key])}): {text!r}")
        changes[key] = value
    return replace(base or RULESETS[DEFAULT_RULESET], **changes)


def all_rules() -> list[Rules]:
    """Every option combination (120), in a fixed order."""
    return [Rules(*combo) for combo in product(GROUPS_OPTIONS, ADJACENT_OPTIONS, TERRITORY_OPTIONS, CAPTURE_OPTIONS)]
