"""Remarks that the widget shows in a method's note instead of a Python warning.

``warnings.catch_warnings`` changes process-wide state, which a background thread must not touch; a
context variable is per thread, so the widget's jobs can silence these remarks without silencing anything
else, anywhere else.
"""

from __future__ import annotations

import contextlib
import contextvars
import warnings
from collections.abc import Iterator

_SHOWN_IN_VIEW = contextvars.ContextVar("attn_widget_remarks_shown_in_view", default=False)


@contextlib.contextmanager
def shown_in_view() -> Iterator[None]:
    """In this block (this thread only), ``remark`` says nothing: the view shows it in the method's note."""
    token = _SHOWN_IN_VIEW.set(True)
    try:
        yield
    finally:
        _SHOWN_IN_VIEW.reset(token)


def remark(message: str, stacklevel: int = 1) -> None:
    """A UserWarning, unless the widget shows it in the view (``shown_in_view``); stacklevel as ``warnings.warn``'s,
    counted from the caller."""
    if not _SHOWN_IN_VIEW.get():
        warnings.warn(message, UserWarning, stacklevel=stacklevel + 1)
