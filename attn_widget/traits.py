"""How the widget declares its traits: once each, with what may set them and how they are checked.

A trait's tags say everything the widget derives (no lists kept by hand):
``fact`` (set only by the widget itself), ``view`` (a setting of the view: accepted as initial
state and from the front end), ``front_end`` (a pick the front end may also make: target,
selected), and ``check`` ``(widget, value) -> value`` for checks that need the analysed text
(n_layers, n_heads, ...). Static choices and bounds are the trait's own (``Choice``, ``Count``),
with the same messages as ``checks``.
"""

from __future__ import annotations

from collections.abc import Callable

import traitlets as t

from . import checks


def fact(trait: t.TraitType, help: str, check: Callable | None = None) -> t.TraitType:
    """A fact about the analysed text or what was computed from it: synced, and set by the widget
    itself (at construction, when computing on request, in set_target), never by the user or the
    front end (``AttentionWidget._check_fact``), which also runs ``check`` ``(widget, value) -> value``."""
    trait.help = help if "set_target" in help else help + " Comes from the analysis: read-only."
    return trait.tag(sync=True, fact=True, fact_check=check)


def option(trait: t.TraitType, check: Callable | None = None) -> t.TraitType:
    """A setting of the view: synced, accepted in the initial state and from the front end."""
    return trait.tag(sync=True, view=True, check=check)


def pick(trait: t.TraitType, check: Callable) -> t.TraitType:
    """A choice the front end may make besides the view settings (the target, the pinned token)."""
    return trait.tag(sync=True, front_end=True, check=check)


def tagged(namespace: dict, tag: str) -> tuple[str, ...]:
    """Names of the traits in a class body carrying ``tag``, in declaration order."""
    return tuple(
        name for name, trait in namespace.items() if isinstance(trait, t.TraitType) and trait.metadata.get(tag)
    )


class Choice(t.Enum):
    """One of a fixed set of values, refused with the message of ``checks.choice``."""

    def error(self, obj, value, error=None, info=None):
        try:
            checks.choice(str(self.name), value, list(self.values or ()))
        except ValueError as refused:
            raise t.TraitError(str(refused)) from None
        super().error(obj, value, error, info)


class Count(t.Int):
    """A whole number in [min, max] (either optional), refused with a message like ``checks``'. Not a bool
    (an int in Python: ``top_k = True`` is a mistake, not 1)."""

    def validate(self, obj, value):
        if isinstance(value, bool):
            raise t.TraitError(f"{self.name} must be a whole number; got {value!r}.")
        if isinstance(value, int):
            low, high = self.min, self.max
            if (low is not None and value < low) or (high is not None and value > high):
                limits = (
                    f"between {low} and {high}"
                    if low is not None and high is not None
                    else (f"{low} or more" if low is not None else f"{high} or less")
                )
                raise t.TraitError(f"{self.name} must be {limits}; got {value}.")
        return super().validate(obj, value)


class Number(t.Float):
    """A float (an int is taken as one), never a bool: ``threshold = False`` is a mistake, not 0.0."""

    def validate(self, obj, value):
        if isinstance(value, bool):
            raise t.TraitError(f"{self.name} must be a number; got {value!r}.")
        return super().validate(obj, value)


class FactBytes(t.Bytes):
    """A method's binary envelope: a fact made per widget from the registry (``add_traits``), so
    its check is the trait's own rather than a class-level validator."""

    def validate(self, obj, value):
        obj._refuse_unless_writing(self.name)
        return super().validate(obj, value)


def data_traits(specs) -> dict[str, FactBytes]:
    """The data traits of these methods: ``data_<id>``, and ``data_<id>_rows`` for a per-row quantity."""
    traits = {}
    for method in specs:
        traits[f"data_{method.id}"] = FactBytes(help=f"{method.label}: binary envelope (payload.py).").tag(
            sync=True, fact=True
        )
        if method.row_values is not None:
            traits[f"data_{method.id}_rows"] = FactBytes(help=f"{method.row_label}, per row.").tag(sync=True, fact=True)
    return traits
