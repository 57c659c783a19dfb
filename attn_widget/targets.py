"""What a gradient method explains: one scalar computed from the model's outputs.

Pass one of these as ``target=`` (docs/methods.md §6.1); logits are the default because
probabilities saturate. Every target also names the position ``t`` whose attention rows are
compared with the attribution (the [CLS] row of a classifier, the [MASK] position, the
position that predicts the next token).

    predicted()                        the model's own prediction (class, masked or next token)
    class_logit(label)                 a sequence classifier's logit for a class (int or name)
    token("dog", versus="cat")         a token's logit at the [MASK] (masked LM) or as the next
                                       token after ``position`` (causal LM); contrastive with versus
    next_token(position, "actual")     causal LM: the token that really follows (teacher forcing)
    similarity("Another sentence.")    sentence-embedding encoders: cosine similarity of the
                                       mean-pooled, L2-normalised embeddings
    sentence_embedding()               encoders without a head (the widget's default there): the
                                       mean-pooled embedding along its own direction, held fixed
    function(fn, position=0)           any scalar function of the outputs
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch

from . import checks


@dataclass(frozen=True)
class Target:
    """A resolved target. ``score(outputs)`` returns one scalar per batch item ``(batch,)``.

    position: the row t whose attention-derived scores are compared with the attribution,
    or None when the target pools every position (a mean-pooled sentence embedding): then
    the mean of all rows is compared.
    """

    score: Callable[[Any], torch.Tensor]
    position: int | None
    description: str
    identity: object = None  # tells apart targets with the same description (the user's function)

    @property
    def key(self) -> tuple:
        """What results for this target are cached under."""
        return (self.description, self.identity)


@dataclass(frozen=True)
class Context:
    """What resolving a target may look at: the model, its tokenizer and one plain forward pass."""

    model: Any  # a transformers model
    tokenizer: Any
    token_ids: torch.Tensor  # (n,)
    causal: bool
    outputs: Any  # outputs of the model on the text (no gradients)


class TargetSpec:
    """Something that resolves to a ``Target`` for one text and model."""

    def resolve(self, context: Context) -> Target:  # pragma: no cover - interface
        raise NotImplementedError


def _logits(outputs, what: str) -> torch.Tensor:
    logits = getattr(outputs, "logits", None)
    if logits is None:
        raise ValueError(
            f"{what} needs a model with an output head (logits); this one returns hidden states only. "
            "Load a ...ForSequenceClassification / ...ForMaskedLM / ...ForCausalLM model, or pass "
            "target=attn_widget.targets.function(fn) or targets.similarity(other_text)."
        )
    return logits


def _token_id(tokenizer, token: str | int) -> int:
    if isinstance(token, int):
        return token
    ids = tokenizer(token, add_special_tokens=False)["input_ids"]
    if len(ids) != 1:
        pieces = tokenizer.convert_ids_to_tokens(ids)
        raise ValueError(
            f"{token!r} is {len(ids)} tokens for this tokenizer ({pieces}); a target must be one token. "
            "Pass one of the pieces, or its id."
        )
    return ids[0]


def _mask_position(context: Context) -> int | None:
    mask_id = getattr(context.tokenizer, "mask_token_id", None)
    if mask_id is None:
        return None
    found = (context.token_ids == mask_id).nonzero().flatten()
    return int(found[0]) if len(found) else None


def _position(value, swapped: str | None = None) -> int | None:
    """A target's ``position`` as given: None or a token index (an int; negative counts from the end), checked
    when the target is made (``_row`` checks it against the text). swapped: the call with its arguments in order,
    said when ``value`` looks like the other argument."""
    if value is None:
        return None
    with contextlib.suppress(TypeError):
        return checks.integer(value, "position")
    if swapped is not None:
        raise TypeError(f"The arguments look swapped: pass {swapped}.")
    raise TypeError(f"position must be a token index (an int) or None; got {value!r}.")


def _row(position: int, n: int) -> int:
    """``position`` as a row 0..n-1 of the text (negative: from the end)."""
    if not -n <= position < n:
        raise ValueError(f"position {position} is outside the text ({n} tokens).")
    return position % n


def _token(value, name: str) -> str | int:
    """A token string or a token id, as ``token`` and ``versus`` take them."""
    if isinstance(value, str) or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    raise TypeError(f"{name} must be a token string or a token id (an int); got {value!r}.")


class predicted(TargetSpec):  # noqa: N801 - reads as a function at the call site
    """The model's own prediction: the top class, the top token at the first [MASK], or the
    top next token after the last position of a causal LM."""

    def resolve(self, context: Context) -> Target:
        logits = _logits(context.outputs, "target=predicted()")
        if logits.dim() == 2:
            return class_logit(int(logits[0].argmax())).resolve(context)
        if context.causal:
            return next_token().resolve(context)
        position = _mask_position(context)
        if position is None:
            raise ValueError(
                "This masked language model's text has no mask token, so there is no prediction to explain. "
                f"Put {getattr(context.tokenizer, 'mask_token', '[MASK]')} in the text, or pass target=token(...)."
            )
        return token(int(logits[0, position].argmax()), position=position).resolve(context)


class class_logit(TargetSpec):  # noqa: N801
    """A sequence classifier's logit for one class (index or label name)."""

    def __init__(self, label: int | str):
        if isinstance(label, bool) or not isinstance(label, (int, str)):
            raise TypeError(f"label must be a class index (an int) or a class name (a string); got {label!r}.")
        self.label = label

    def resolve(self, context: Context) -> Target:
        logits = _logits(context.outputs, "class_logit")
        if logits.dim() != 2:
            raise ValueError("class_logit needs a sequence classifier (logits of shape (batch, classes)).")
        label = self.label
        if isinstance(label, str):
            label2id = getattr(context.model.config, "label2id", {}) or {}
            if label not in label2id:
                raise ValueError(f"Unknown class {label!r}; the model's classes are {list(label2id)}.")
            label = label2id[label]
        if not 0 <= label < logits.shape[-1]:
            raise ValueError(f"class {label} does not exist; the model has {logits.shape[-1]} classes.")
        name = (getattr(context.model.config, "id2label", {}) or {}).get(label, str(label))
        return Target(lambda outputs: outputs.logits[:, label], 0, f"logit of class {name!r}")


class token(TargetSpec):  # noqa: N801
    """A token's logit: at the [MASK] (masked LM) or as the next token after ``position`` (causal LM).

    versus: a second token; the target becomes the difference of the two logits.
    log_prob: use log-probabilities instead of logits.
    """

    def __init__(self, token: str | int, position: int | None = None, versus: str | int | None = None, log_prob=False):
        looks_swapped = isinstance(token, int) and isinstance(position, str)
        self.position = _position(position, f"token({position!r}, position={token!r})" if looks_swapped else None)
        self.token = _token(token, "token")
        self.versus = None if versus is None else _token(versus, "versus")
        self.log_prob = log_prob

    def resolve(self, context: Context) -> Target:
        logits = _logits(context.outputs, "token(...)")
        if logits.dim() != 3:
            raise ValueError(
                "token(...) needs a language model (logits per position); use class_logit for classifiers."
            )
        n = len(context.token_ids)
        position = self.position
        if position is None:
            position = n - 1 if context.causal else _mask_position(context)
            if position is None:
                raise ValueError("No mask token in the text: pass token(..., position=i).")
        position = _row(position, n)
        wanted = _token_id(context.tokenizer, self.token)
        other = None if self.versus is None else _token_id(context.tokenizer, self.versus)
        log_prob = self.log_prob

        def score(outputs) -> torch.Tensor:
            row = outputs.logits[:, position]
            if log_prob:
                row = row.log_softmax(-1)
            value = row[:, wanted]
            return value if other is None else value - row[:, other]

        names = [context.tokenizer.decode([i]) for i in ([wanted] if other is None else [wanted, other])]
        what = "log-probability" if log_prob else "logit"
        where = f"as the token after position {position}" if context.causal else f"at position {position}"
        return Target(score, position, f"{what} of {' − '.join(map(repr, names))} {where}")


class next_token(TargetSpec):  # noqa: N801
    """Causal LM: the next-token logit at ``position`` (default: the last) for the predicted
    token, or ``"actual"`` for the token that really follows (teacher forcing)."""

    def __init__(self, position: int | None = None, which: str = "predicted"):
        looks_swapped = isinstance(position, str) and position in ("predicted", "actual")
        self.position = _position(position, f"next_token({which!r}, {position!r})" if looks_swapped else None)
        if which not in ("predicted", "actual"):
            raise ValueError(f'which must be "predicted" or "actual"; got {which!r}.')
        self.which = which

    def resolve(self, context: Context) -> Target:
        if not context.causal:
            raise ValueError("next_token is for causal language models; use token(...) at a mask or class_logit.")
        n = len(context.token_ids)
        position = n - 1 if self.position is None else _row(self.position, n)
        if self.which == "actual":
            if position >= n - 1:
                raise ValueError("The last position has no actual next token in the text; pick an earlier position.")
            wanted = int(context.token_ids[position + 1])
        else:
            wanted = int(_logits(context.outputs, "next_token")[0, position].argmax())
        return token(wanted, position=position).resolve(context)


class similarity(TargetSpec):  # noqa: N801
    """Cosine similarity between this text's sentence embedding and another text's
    (mean pooling over tokens, then L2 normalisation: all-MiniLM-L6-v2's own objective)."""

    def __init__(self, other_text: str):
        if not isinstance(other_text, str):
            raise TypeError(f"other_text must be a string (the sentence to compare with); got {other_text!r}.")
        self.other_text = other_text

    def resolve(self, context: Context) -> Target:
        tokenizer, model = context.tokenizer, context.model
        encoded = tokenizer(self.other_text, return_tensors="pt")
        device = next(model.parameters()).device
        with torch.no_grad():
            hidden = model(**{k: v.to(device) for k, v in encoded.items()}).last_hidden_state
        other = torch.nn.functional.normalize(hidden.mean(1), dim=-1)  # (1, d)

        def score(outputs) -> torch.Tensor:
            mine = torch.nn.functional.normalize(outputs.last_hidden_state.mean(1), dim=-1)
            return (mine * other.to(mine.dtype)).sum(-1)

        return Target(score, None, f"cosine similarity with {self.other_text!r} (mean over positions)")


class sentence_embedding(TargetSpec):  # noqa: N801
    """Encoders without a head: which tokens make up the sentence embedding (docs/methods.md §6.1).

    y = ⟨ē, ê₀⟩: the mean-pooled last hidden state ē projected on its own direction on this text,
    ê₀ = ē₀/‖ē₀‖, computed once and held fixed (no gradient through it). Its value is ‖ē₀‖. Not the
    cosine similarity with itself: cos(ē, ê₀) is at its maximum 1 on the text, so its gradient is
    exactly zero and gradient methods would show nothing. The projection moves with ē in the same
    direction, and being linear in ē, it splits over positions: y = mean_i ⟨h_i, ê₀⟩.
    """

    def resolve(self, context: Context) -> Target:
        if context.causal:
            raise ValueError(
                "sentence_embedding() is for encoders; a decoder's mean-pooled state is no sentence embedding."
            )
        hidden = getattr(context.outputs, "last_hidden_state", None)
        if hidden is None:
            raise ValueError(
                "sentence_embedding() needs a model that returns last_hidden_state (a base encoder without a head)."
            )
        direction = torch.nn.functional.normalize(hidden.detach().mean(1), dim=-1)  # (1, d), fixed

        def score(outputs) -> torch.Tensor:
            pooled = outputs.last_hidden_state.mean(1)  # (batch, d)
            return (pooled * direction.to(pooled.dtype)).sum(-1)

        return Target(score, None, "the sentence embedding along its own direction (mean over positions)")


class function(TargetSpec):  # noqa: N801
    """Any scalar function of the model outputs: ``fn(outputs) -> (batch,)`` or a scalar for batch 1.

    position: the row to compare attention methods at (None: the mean of all rows).
    """

    def __init__(self, fn: Callable[[Any], torch.Tensor], position: int | None = 0, description: str | None = None):
        if not callable(fn):
            if callable(position):
                raise TypeError(f"The arguments look swapped: pass function(fn, position={fn!r}).")
            raise TypeError(f"fn must be a function of the model outputs, fn(outputs) -> (batch,); got {fn!r}.")
        self.fn, self.position, self.description = fn, _position(position), description

    def resolve(self, context: Context) -> Target:
        fn = self.fn
        position = None if self.position is None else _row(self.position, len(context.token_ids))

        def score(outputs) -> torch.Tensor:
            value = fn(outputs)
            return value.reshape(-1)

        description = self.description or str(getattr(fn, "__name__", "custom function"))
        return Target(score, position, description, fn)


def as_spec(target) -> TargetSpec:
    """Accept a spec, None (the prediction), a callable, or a token string."""
    if target is None:
        return predicted()
    if isinstance(target, TargetSpec):
        return target
    if isinstance(target, str):
        return token(target)
    if callable(target):
        return function(target)
    raise TypeError(
        "target must be None, a token string, a function of the outputs, or one of attn_widget.targets; "
        f"got {target!r}."
    )
