"""Context-mixing maps per layer and their composition through the layers (docs/methods.md §7).

``Mixing(analysis)`` works on anything with ``.capture``, ``.model`` and ``.tokenizer`` (an
``Analysis``). Every map is ``(L, n, n)`` float64, non-negative, rows summing to 1 (row i =
receiving token, column j = contributing token); layer l is index l − 1. The maps themselves are
registered by their method files (``registry.register_mixing``); this part owns what they share:
the verified block structure (one extra forward pass, ``models/blocks.py``, made on first use),
the transformed vectors f^h(x_j), and the cache.

A method the model's structure does not support is unavailable, with one sentence saying why
(``unavailable(name)``); asking for its map raises ``UnsupportedModelError`` with that sentence.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections.abc import Callable
from typing import Any

import torch
from torch import nn

from ..errors import UnsupportedModelError
from ..methods import registry
from ..methods.alti_logit import LogitDecomposition, alti_logit, attention_logits
from ..methods.chain import cumulative_products
from ..methods.decomposition import transformed_vectors
from ..methods.flow import layer_numbers
from ..methods.normalize import row_normalize
from ..methods.rollout import rollout as attention_rollout
from ..models.blocks import POST_LN, Structure, discover
from . import value_zeroing

# Whether a mixing method applies is checked on this many first tokens of a longer text (``Mixing.unavailable``).
PROBE_TOKENS = 32

# What the probes of long texts answered, per model, while it stays as it was (``_model_state``): facts about the
# model, so that the next widget on it asks no pass of its own for its menu (1.5 s for Llama-3.2-1B on a 2-core CPU).
_PROBED: weakref.WeakKeyDictionary[nn.Module, tuple[tuple, dict]] = weakref.WeakKeyDictionary()
_PROBED_LOCK = threading.Lock()


def _model_state(model: nn.Module, record) -> tuple:
    """What a probe's answers depend on besides the model object: every weight and buffer (its storage and in-place
    version: an optimiser step or ``param.data = ...`` changes it), every forward hook, the attention implementation
    and where the capture read its weights."""
    tensors = tuple((t.data_ptr(), t._version) for t in itertools.chain(model.parameters(), model.buffers()))
    hooks = tuple((*module._forward_hooks, *module._forward_pre_hooks) for module in model.modules())
    implementation = getattr(getattr(model, "config", None), "_attn_implementation", None)
    return record.weights_from, implementation, tensors, hooks


class Mixing:
    """Context-mixing maps of one capture, computed on first use and cached."""

    def __init__(self, analysis):
        self.capture = analysis.capture
        self.model, self.tokenizer = analysis.model, analysis.tokenizer
        self._analysis = analysis
        self._structure: Structure | None = None
        self._transformed: dict[int, torch.Tensor] = {}
        self._cache: dict[tuple, Any] = {}  # maps, rollouts, logit decompositions
        self._layers: dict[str, dict[int, torch.Tensor]] = {}  # maps computed layer by layer
        self._checked: dict[str, str] = {}  # the methods' own checks, made once

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(method.id for method in registry.mixing_methods())

    @property
    def layers(self) -> range:
        return range(self.capture.n_layers)

    # Public API ------------------------------------------------------------------
    def unavailable(self, name: str) -> str:
        """ "" when method ``name`` works for this model, else one sentence saying why not.

        On a long text the structure and the methods' own checks are made on its first ``PROBE_TOKENS`` tokens
        (``_probe``): they are facts about the model, and asking must not cost forward passes over the whole
        text before the widget's first picture. The map itself still verifies what it uses at full length."""
        method = self._method(name)
        probed = self._probed(("unavailable", name))
        if probed is not None:
            return probed
        reason = self._needs_values() if method.needs == "values" else self._needs_structure()
        if not reason and method.check is not None:
            if name not in self._checked:
                self._checked[name] = method.check(self)
            reason = self._checked[name]
        if not reason:
            return ""
        subject = type(self.model).__name__ if self.model is not None else self.capture.model_type
        return f"{method.label} is unavailable for {subject}: {reason.rstrip('.')}."

    def map(self, name: str) -> torch.Tensor:
        """``(L, n, n)`` float64 per-layer mixing map, row-stochastic and non-negative."""
        self._require(name)
        key = ("map", name)
        if key not in self._cache:
            method = self._method(name)
            if method.layer_maps is None:
                self._cache[key] = method.maps(self).to(torch.float64)
            else:
                self._cache[key] = self.map_layers(name, None, None)
        return self._cache[key]

    def map_layers(self, name: str, layers=None, progress=None) -> torch.Tensor:
        """``(len(layers), n, n)`` of a map computed layer by layer (layer numbers 1..L, default all);
        finished layers are kept, also when a later one is cancelled."""
        self._require(name)
        done = self._layers.setdefault(name, {})
        wanted = layer_numbers(layers, self.capture.n_layers)
        missing = [layer for layer in wanted if layer not in done]
        if missing:
            compute = self._method(name).layer_maps
            total = len(missing)
            for count, layer in enumerate(missing):

                def report(part: float, whole: float, count: int = count) -> None:
                    if progress is not None:
                        progress(count + part / whole, total)

                assert compute is not None  # map() only sends layer-by-layer methods here
                done[layer] = compute(self, [layer - 1], report)[0].to(torch.float64)
        return torch.stack([done[layer] for layer in wanted])

    def map_layers_done(self, name: str) -> list[int]:
        """Layer numbers of ``name`` already computed (cheap to ask)."""
        return sorted(self._layers.get(name, {}))

    def rollout_layers(self, name: str, layers=None, progress=None) -> torch.Tensor:
        """``(len(layers), n, n)`` rollout to the given layers, computing every map below them."""
        wanted = layer_numbers(layers, self.capture.n_layers)
        self.map_layers(name, range(1, max(wanted) + 1), progress)
        return self._compose(name, self.map_layers(name, range(1, max(wanted) + 1)))[[layer - 1 for layer in wanted]]

    def rollout_layers_done(self, name: str) -> list[int]:
        """The layers the rollout can show: those whose maps, and every map below, are computed."""
        done = set(self.map_layers_done(name))
        prefix = 0
        while prefix + 1 in done:
            prefix += 1
        return list(range(1, prefix + 1))

    def rollout(self, name: str) -> torch.Tensor:
        """``(L, n, n)`` float64 composition through the layers: R[l] = M̂_{l+1} @ R[l-1], with
        M̂ = 0.5·M + 0.5·I for maps without the residual ("norm") and M̂ = M for the others."""
        key = ("rollout", name)
        if key not in self._cache:
            self._cache[key] = self._compose(name, self.map(name))
        return self._cache[key]

    def _compose(self, name: str, maps: torch.Tensor) -> torch.Tensor:
        """The rollout of ``maps`` ``(k, n, n)`` (layers 1..k) in the method's style."""
        if self._method(name).rollout == "identity":
            return attention_rollout(maps, 0.5)
        return cumulative_products(row_normalize(maps))

    def zero_rows(self, name: str) -> torch.Tensor:
        """``(L, n)`` bool: rows of ``map(name)`` that are all zero (reported, never hidden). ALTI gives
        one where the output bias outweighs every token (c_ij = 0 for all j); rows after it in the
        rollout then lose that token's share."""
        return self.map(name).sum(-1) == 0

    def alti_logit(self, target=None) -> torch.Tensor:
        """``(n,)`` float64 ALTI-Logit (Ferrando et al. 2023): every input token's signed contribution
        to the target logit, through attention, tracked down with the ALTI rollout. See
        ``logit_decomposition`` for the terms that make up the rest of the logit."""
        return self.logit_decomposition(target).tokens

    def logit_decomposition(self, target=None) -> LogitDecomposition:
        """The target logit split into input tokens and the rest (``methods.alti_logit``).

        target: a ``targets.Target`` or anything ``Analysis.target`` accepts (None: the model's own
        next-token prediction). It must be linear in the logits of one position t (a token's logit,
        or the difference of two: ``targets.token(..., versus=...)``); log-probabilities are not.
        """
        resolved = self._analysis.target(target)
        direction, position = self._logit_direction(resolved)
        key = ("alti_logit", resolved.key)
        if key not in self._cache:
            self._cache[key] = self._decompose(resolved, direction, position)
        return self._cache[key]

    def value_zeroing(self, layers: list[int], progress) -> torch.Tensor:
        """``(len(layers), n, n)`` value zeroing of the given 1-based layers: the model's blocks re-run
        (``parts/value_zeroing.py``; the method is declared in ``methods/value_zeroing.py``)."""
        return value_zeroing.layer_maps(self, layers, progress)

    def value_zeroing_unavailable(self) -> str:
        """ "" when every block re-runs faithfully with token values zeroed, else one sentence saying why not."""
        return value_zeroing.unavailable(self)

    def shared(self, key: str, compute: Callable[[], Any]) -> Any:
        """What a method computes once per analysis and reuses (recorded blocks, ...), kept here."""
        if ("shared", key) not in self._cache:
            self._cache[("shared", key)] = compute()
        return self._cache[("shared", key)]

    def structure(self) -> Structure:
        """The verified block structure (one forward pass, made once)."""
        if self._structure is None:
            assert self.model is not None  # the methods that need it say so first (_needs_structure)
            self._structure = discover(self.model, self.capture)
        return self._structure

    def block_kinds(self) -> list[str]:
        """The kind of each layer's block (``models.blocks``: post-LN, pre-LN, ...), [] when unverified; read from
        a long text's first tokens (``_probe``), so that a note about it costs no pass over the whole text."""
        probed = self._probed(("block kinds",))
        if probed is not None:
            return list(probed)
        layers = self.structure().layers
        return [layer.kind for layer in layers] if layers else []

    def transformed(self, layer: int, through=None) -> torch.Tensor:
        """``(H, n, d)`` float64 f^h(x_j) of layer index ``layer`` (0-based), cached.

        through: a linear map of the model's width ``(..., d) -> (..., d)`` acting on each vector
        alone (e.g. ``LinearNorm.unscaled``): ``through(f^h(x_j))`` instead, computed as
        v_j W' with W' = through(W_O^h) row by row, at the cost of f itself (not cached)."""
        values, weights, _ = self.capture.require_values()
        group = self.capture.geometry.kv_group()
        if through is not None:
            return transformed_vectors(values[layer], through(weights[layer].to(torch.float64)), group)
        if layer not in self._transformed:
            self._transformed[layer] = transformed_vectors(values[layer], weights[layer], group)
        return self._transformed[layer]

    # Internals ---------------------------------------------------------------------
    def _probed(self, question: tuple) -> Any:
        """The answer to ``question`` (``_answers``) on this text's first tokens, or None where the text is not
        probed; every question is answered at once, once per model while it stays as it was (``_PROBED``), and the
        probe let go (its capture holds the output projections: 134 MB for Llama-3.2-1B in bfloat16)."""
        if not self._probes():
            return None
        assert self.model is not None  # _probes() says so
        state = _model_state(self.model, self.capture)
        with _PROBED_LOCK:
            kept = _PROBED.get(self.model)
            if kept is not None and kept[0] == state and question in kept[1]:  # (a method registered since: not)
                return kept[1][question]
        answers = self._probe()._answers()
        with _PROBED_LOCK:
            _PROBED[self.model] = (state, answers)
        return answers[question]

    def _answers(self) -> dict[tuple, Any]:
        """What ``_probed`` asks of a probe: whether each mixing method applies, whether ALTI-Logit does, and the
        layers' block kinds."""
        answers: dict[tuple, Any] = {("unavailable", name): self.unavailable(name) for name in self.names}
        answers[("logit",)] = self.logit_unavailable()
        answers[("block kinds",)] = self.block_kinds()
        return answers

    def _probes(self) -> bool:
        """Whether this text's applicability checks run on its first tokens: not on a short text, an image, without
        a model or value vectors (nothing to probe), or on inputs that are not one row of tokens."""
        record = self.capture
        inputs = record.model_inputs or {}
        if self.model is None or record.n_tokens <= PROBE_TOKENS or record.grid is not None or self._needs_values():
            return False
        return bool(inputs) and all(v.dim() == 2 and v.shape == (1, record.n_tokens) for v in inputs.values())

    def _probe(self) -> Mixing:
        """The mixing part of this text's first ``PROBE_TOKENS`` tokens through the same model (one short
        capture); only where ``_probes()``."""
        from ..capture import capture_encoded  # capture imports nothing of the parts; this keeps it so
        from ..inputs import Encoded

        record = self.capture
        inputs = record.model_inputs or {}
        assert self.model is not None
        device = next(self.model.parameters()).device
        head = slice(0, PROBE_TOKENS)
        encoded = Encoded(
            {key: value[:, head].to(device) for key, value in inputs.items()},
            record.token_ids[head],
            record.tokens[head],
            record.special[head],
        )
        short = type(self._analysis)(capture_encoded(self.model, encoded), self.model, self.tokenizer)
        return short.mixing_part

    def _method(self, name: str) -> registry.MixingMethod:
        if name not in self.names:
            raise ValueError(f"Unknown mixing method {name!r}; known: {', '.join(self.names)}.")
        return registry.mixing_method(name)

    def _needs_values(self) -> str:
        record = self.capture
        if not record.has_values:
            return (
                "it needs value vectors and output-projection weights, and attn_widget could not read them "
                f"for {record.model_type!r}: {record.values_unavailable}"
            )
        return ""

    def _needs_structure(self) -> str:
        reason = self._needs_values()
        if reason:
            return reason
        if self.model is None:
            return (
                "it needs the model, to run it once more and record its norms; "
                "build the analysis with analyze(model, text)"
            )
        structure = self.structure()
        if structure.layers is None:
            return f"attn_widget could not verify where the residual stream and the layer norms run: {structure.reason}"
        return ""

    def _require(self, name: str) -> None:
        reason = self.unavailable(name)
        if reason:
            raise UnsupportedModelError(reason)

    def logit_unavailable(self) -> str:
        """ "" when ALTI-Logit can explain this model's logits, else one sentence saying why not (on a long text,
        checked on its first tokens, as ``unavailable``)."""
        probed = self._probed(("logit",))
        if probed is not None:
            return probed
        reason = self._needs_structure()
        if reason:
            return reason
        structure = self.structure()
        if any(layer.kind == POST_LN for layer in structure.layers or ()):
            return (
                "it decomposes the residual stream of pre-LN models, and this model normalises the stream "
                "inside its blocks (post-LN)"
            )
        if not structure.chained:
            return "its blocks do not pass the residual stream from one to the next unchanged"
        if structure.head is None:
            return structure.head_reason
        return ""

    def _logit_direction(self, target) -> tuple[torch.Tensor, int]:
        """The target as d·logits[t]: ``(V,)`` float64 d and the position t, or an error why not."""
        reason = self.logit_unavailable()
        if reason:
            raise UnsupportedModelError(
                f"ALTI-Logit is unavailable for {type(self.model).__name__}: {reason.rstrip('.')}."
            )
        head = self.structure().head
        assert head is not None  # logit_unavailable() said ""
        n, vocab = self.capture.n_tokens, head.unembedding.shape[0]
        position = target.position
        not_linear = UnsupportedModelError(
            f"ALTI-Logit explains a target that is a logit (or a difference of logits) at one position; "
            f"{target.description!r} is not. Pass targets.token(...) or targets.next_token(...)."
        )
        if position is None:
            raise not_linear
        generator = torch.Generator().manual_seed(0)
        probes = [torch.randn(1, n, vocab, generator=generator, dtype=torch.float64) for _ in range(2)]
        logits = probes[0].clone().requires_grad_(True)
        try:
            with torch.enable_grad():
                (grad,) = torch.autograd.grad(target.score(_Logits(logits)).sum(), [logits])
        except Exception:  # noqa: BLE001 - a target of something other than logits
            raise not_linear from None
        d = grad[0, position]
        others = grad[0].clone()
        others[position] = 0
        linear = all(
            abs(float(target.score(_Logits(p)).sum()) - float(d @ p[0, position]))
            <= 1e-9 * (1 + float(p[0, position].abs() @ d.abs()))
            for p in probes
        )
        if not linear or bool(others.abs().max() > 0):
            raise not_linear
        return d, position

    def _decompose(self, target, d: torch.Tensor, t: int) -> LogitDecomposition:
        structure = self.structure()
        head, layers, out_biases, embeddings = (
            structure.head,
            structure.layers,
            self.capture.out_bias,
            structure.embeddings,
        )
        assert head is not None and layers is not None and out_biases is not None and embeddings is not None
        u = head.unembedding.T @ d  # (d_model,)
        if head.final_norm is None:
            direction, beta = u, 0.0
        else:
            linear = head.final_norm.linear(head.final_input)
            direction = (linear.map() @ u) / linear.scale[t]  # u' = C(γ ⊙ u) / σ_t
            beta = float(u @ head.final_norm.bias)
        bias = 0.0 if head.bias is None else float(d @ head.bias)
        layer_logits = torch.stack(
            [attention_logits(self.capture.heads[l], self.transformed(l), direction, t) for l in self.layers]
        )
        rollout = self.rollout("alti")
        tracked = torch.stack(
            [layer_logits[0]] + [layer_logits[l] @ rollout[l - 1] for l in range(1, len(self.layers))]
        )
        tokens = alti_logit(layer_logits, rollout)
        out_bias = sum(float(direction @ out_biases[l].to(torch.float64)) for l in self.layers)
        mlp = sum(float(direction @ layer.rest[t]) for layer in layers)
        logit = float(d @ (head.unembedding @ head.output[t])) + bias  # d·(W_U h_t + b_U), h the head's input
        return LogitDecomposition(
            tokens=tokens,
            layers=tracked,
            attention=layer_logits,
            initial=float(direction @ embeddings[t]),
            out_bias=out_bias,
            mlp=mlp,
            final_bias=beta + bias,
            logit=logit,
        )


class _Logits:
    """Stands in for a model's outputs when probing a target: only ``.logits``."""

    def __init__(self, logits: torch.Tensor):
        self.logits = logits

    def __getitem__(self, index):
        if index == 0:
            return self.logits
        raise IndexError(index)
