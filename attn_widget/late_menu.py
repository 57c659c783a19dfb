"""Menu entries checked after the first picture: methods whose ``applies`` runs the model (the context-mixing
maps and ALTI-Logit, ``applies_runs_model``: passes over the text's first tokens and the blocks' structure,
1.4 s for a Llama-3.2-1B shape on 2 CPU cores whatever the text's length) join ``methods`` and ``attributions``
when a background check finds they apply; the menu's traits are written on the thread that owns the widget
(``owner_thread.py``: in a notebook, the kernel's, between the page's messages). Anything that needs the whole menu
(setting ``method``, ``prepare``, ``to_html``) completes the check first, in its own thread if it has not run yet.
Mixed into ``AttentionWidget``, whose traits (``methods``, ``attributions``) and publishing (``_publish_first``) it
uses."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .jobs import BackgroundJob
from .owner_thread import OwnerThread


class LateMenu:
    """``_complete_menu`` (idempotent; from the background job or whatever needs the menu first): the check in
    the calling thread, the menu's traits on the owning one."""

    # Provided by AttentionWidget.
    analysis: Any
    methods: list
    attributions: list
    log: Any
    hold_sync: Callable
    _setting_facts: Callable
    _publish_first: Callable[[Any, list[str]], None]
    _specs: dict
    _owner: OwnerThread

    def _init_late_menu(self, candidates: list, attributions: list) -> None:
        """candidates: the matrix methods that may be offered, in menu order (those with ``applies_runs_model``
        not checked yet); attributions: the token-score methods likewise."""
        self._menu_order = candidates
        self._attribution_order = attributions
        self._unchecked = [m for m in (*candidates, *attributions) if m.applies_runs_model]
        self._menu_lock = threading.RLock()
        self._found: list | None = None  # what the check found, until the owning thread adds it to the menu
        self._menu_job = BackgroundJob()

    @property
    def _method_ids(self) -> list[str]:
        """Every method the menu offers, the check made first (in this thread if it has not run; called on the
        owning thread, which adds what it found)."""
        self._complete_menu()
        return [m["id"] for m in self.methods]

    def _menu_ids(self, value: str, trait: str = "methods") -> list[str]:
        """The ids ``trait`` lists, as ``_menu``."""
        return [entry["id"] for entry in self._menu(value, trait)]

    def _menu(self, value: str, trait: str = "methods") -> list[dict]:
        """``trait`` ("methods" or "attributions"), the check made first when ``value`` is an id it does not list
        (a value the menu offers, as the front end sends, never waits for the check: it may wait for the model)."""
        unfinished = self._unchecked or self._found is not None
        if value and unfinished and value not in [entry["id"] for entry in getattr(self, trait)]:
            self._complete_menu()
        return getattr(self, trait)

    def _offered_now(self, entries: list) -> list:
        """The entries offered before the check: every one whose ``applies`` was not deferred."""
        return [entry for entry in entries if not entry.applies_runs_model]

    def _check_menu_later(self, then: Callable[[], None]) -> None:
        """Check the deferred entries in the background, then call ``then`` (the work after the first picture)."""
        if not self._unchecked:
            then()
            return

        def on_finish(error: str | None) -> None:
            if error:
                self.log.warning("attn_widget could not check every method for this model: %s", error)
            then()

        self._menu_job.start(lambda _progress: self._complete_menu(), lambda _done, _total: None, on_finish)

    def _complete_menu(self) -> None:
        """Check the deferred entries once; those that apply join the menu on the owning thread (at once when
        called there)."""
        with self._menu_lock:
            if self._unchecked:
                self._found = [entry for entry in self._unchecked if not entry.applies(self.analysis)]
                self._unchecked = []
        self._owner.call(self._add_found)

    def _add_found(self) -> None:
        """Add what the check found to the menu, in menu order, with empty data (on the owning thread; once)."""
        with self._menu_lock:
            found, self._found = self._found, None
        if not found:
            return
        added = [m for m in self._menu_order if m in found]
        self._specs = {m.id: m for m in self._menu_order if m.id in self._specs or m in found}
        metas = {meta["id"]: meta for meta in self.methods}
        shown = {a["id"] for a in self.attributions}
        with self._setting_facts(), self.hold_sync():
            for method in added:
                self._publish_first(method, [])
            self.methods = [metas.get(m.id) or m.meta(self.analysis) for m in self._specs.values()]
            self.attributions = [a.meta() for a in self._attribution_order if a.id in shown or a in found]
