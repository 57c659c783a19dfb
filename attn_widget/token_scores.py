"""Token scores beside the graph (docs/methods.md §6, §7.4): the targets to explain, the default one,
and the selected method computed in the background. Mixed into ``AttentionWidget``, whose traits
(``targets``, ``target``, ``attribution``, ``attribution_data``) and job it uses."""

from __future__ import annotations

import contextlib
from typing import Any

from . import payload, targets
from .joint import JointView
from .methods import registry
from .text import display_token


class TokenScores:
    """``set_target`` and the token-score computation."""

    # Provided by AttentionWidget.
    _writing: Any  # the widget's write lock (WidgetTraits.hold_trait_notifications)
    analysis: Any
    targets: list
    target: str
    attribution: str
    attribution_data: dict
    _targets: dict  # id -> the resolved Target (resolved once: a long input's outputs are not kept to do it again)
    _attribution_job: Any
    _setting_facts: Any

    def set_target(self, target, label: str | None = None) -> None:
        """Explain ``target`` (see ``attn_widget.targets``) in the token-score strip, and select it.

        label: what the menu calls it (default: the target's own description)."""
        if label is not None and not isinstance(label, str):
            if isinstance(target, str) and (isinstance(label, (targets.TargetSpec, targets.Target)) or callable(label)):
                raise TypeError(
                    "The arguments look swapped: pass set_target(target, label), the target first and the label "
                    "(a string) second."
                )
            raise TypeError(f"label must be a string (what the menu calls the target); got {label!r}.")
        resolved = self.analysis.target(target)
        row = resolved.position
        if isinstance(row, int) and not isinstance(row, bool) and isinstance(self.analysis, JointView):
            row += self.analysis.ns  # a decoder position; the joint token list starts with the source
        target_id = f"t{len(self._targets)}"
        with self._setting_facts():  # checked there: a position that is no token row is refused before it is kept
            self.targets = [
                *self.targets,
                {"id": target_id, "label": display_token(label or resolved.description), "position": row},
            ]
        self._targets[target_id] = resolved
        self.target = target_id

    def _attribution_entries(self) -> list[registry.AttributionMethod]:
        """The token-score menu: what the registry offers this analysis, or an encoder-decoder's own list."""
        if isinstance(self.analysis, JointView):
            return [registry.attribution_method(method) for method in self.analysis.attributions()]
        return registry.applicable_attributions(self.analysis)

    def _offer_default_target(self) -> None:
        """The model's own prediction; for an encoder without a head (a sentence-embedding model such as
        MiniLM), the sentence embedding along its own direction (targets.sentence_embedding)."""
        if self.analysis.model is None:
            return
        # An encoder-decoder without a head has no sentence embedding to fall back on.
        fallbacks = () if isinstance(self.analysis, JointView) else (targets.sentence_embedding(),)
        for default in (None, *fallbacks):
            with contextlib.suppress(ValueError):  # neither applies: the strip asks for set_target(...)
                self.set_target(default)
                return

    def _attribute(self) -> None:
        """Compute the selected token scores in the background. A new choice replaces the running
        computation (cancelled and waited for); turning token scores off ('') cancels it."""
        self._attribution_job.stop()
        method, target_id = self.attribution, self.target
        if not method or target_id not in self._targets:
            return
        resolved = self._targets[target_id]
        base = {"target": target_id, "method": method}
        entry = registry.attribution_method(method)

        def work(progress):
            options = {"progress": progress} if entry.progress else {}
            scores = self.analysis.attribution(method, resolved, **options)
            warning = entry.warning(self.analysis, resolved)
            done = {**base, "status": "done", "values": payload.encode(scores.reshape(1, 1, -1))}
            with self._writing:
                self.attribution_data = done if warning is None else {**done, "warning": warning}

        def on_progress(done: float, total: float) -> None:
            self.attribution_data = {**base, "status": "running", "done": done, "total": total}

        def on_finish(error: str | None) -> None:
            if error:
                with self._writing:
                    self.attribution_data = {**base, "status": "error", "message": error}

        def on_wait(holder: str) -> None:  # progress so far stays; the next report clears the message
            self.attribution_data = {**self.attribution_data, "message": f"Waiting for the model, in use by {holder}."}

        self.attribution_data = {**base, "status": "running", "done": 0, "total": 1}
        self._attribution_job.start(work, on_progress, on_finish, on_wait)
