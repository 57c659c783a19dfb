"""Run the model once and record everything the methods need, verified.

model + text → one forward pass with hooks → a ``Capture`` of CPU tensors for the
valid (unpadded) tokens. The model is borrowed and handed back unchanged. Before the
record is returned, ``verify.py`` checks that the attention weights are the ones the
model used: the masks against the zeros it returned, the eager pass against the model's
own implementation, and each layer's A·V against what its output projection received.
"""

from __future__ import annotations

import contextlib
import threading
from collections import OrderedDict
from collections.abc import Callable, Collection, Iterable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from typing import Any

import torch

from . import head_store, verify
from .errors import UnsupportedModelError
from .head_store import HeadStore, Read
from .inputs import Encoded, check_model, check_order, check_text, encode, resolve_tokenizer, unwrap
from .model_state import borrowed_for_capture, uses_eager, uses_implementation
from .models import ATTENTION_ONLY, HeadGeometry, Site, candidates, find_sites, layer_patterns, output_slices
from .payload import RowTops
from .sdpa_reader import ReadEnough, Reads, SdpaReader, checked_rows


class _Filled:
    """A ``Capture`` field that a pending ``_WholeValues`` fills on its first read."""

    def __set_name__(self, owner, name: str) -> None:
        self._name = "_" + name

    def __get__(self, record, owner=None):
        if record is None:
            return self
        pending = record.__dict__.get("whole_values")
        if pending is not None:
            pending.fill(record)
        return record.__dict__.get(self._name)

    def __set__(self, record, value) -> None:
        record.__dict__[self._name] = None if isinstance(value, _Filled) else value


class _WholeValues:
    """Makes a capture's value vectors and output-projection slices whole on first read, once (``make(record)``):
    a long input's are hundreds of megabytes in float32 (Llama-3.2-1B at 4,096 tokens: 0.4 GB, seconds to form),
    and the first picture needs none. Until then the capture keeps what the value projections consumed."""

    def __init__(self, make: Callable[[Capture], None]):
        self._make, self._lock = make, threading.Lock()

    def fill(self, record: Capture) -> None:
        with self._lock:
            if record.__dict__.get("whole_values") is self:
                self._make(record)  # raises, and stays pending, when the model changed since
                record.whole_values = None


@dataclass
class Capture:
    """What one forward pass recorded. ``L`` layers, ``H`` query heads, ``n`` tokens.

    Tensors live on the CPU in float32 (float64 when the model is float64); a half-precision model's hidden states
    in its own dtype (``hidden_dtype``: exact, half the bytes of a float32 copy).
    """

    tokens: list[str]  # display text per token, length n
    token_ids: torch.Tensor  # (n,) long
    special: torch.Tensor  # (n,) bool: special tokens such as [CLS] or <s>
    heads: HeadStore  # (L, H, n, n) read a layer at a time: row = query (receiver), column = key (source)
    masks: torch.Tensor  # (L, n, n) bool: keys each query may see (causal, sliding window)
    causal: bool
    hidden_states: torch.Tensor | None  # (L + 1, n, d): embeddings, then each layer's output (kept_hidden_states)
    model_name: str
    model_type: str
    model_dtype: torch.dtype = torch.float32  # the dtype the model computed in
    values_dtype: torch.dtype = torch.float32  # the precision of ``values`` (sets effective attention's rank tolerance)
    value_layout: str | None = None  # how value vectors were read ("separate", "blocked", ...), None if not
    values_unavailable: str = ""  # why value vectors are missing, for error messages
    geometry: HeadGeometry | None = None
    # A long input's are made on first read (``_WholeValues``), verified before on the checked rows. ``values``
    # (L, H_kv, n, d_h) value vectors incl. bias; ``out_weights`` (L, H, d_h, d) the W_O slice per head;
    # ``out_bias`` (L, d). (The descriptor default is a ``_Filled``, which mypy cannot see through.)
    values: torch.Tensor | None = field(default=_Filled(), repr=False)  # type: ignore[assignment]
    out_weights: torch.Tensor | None = field(default=_Filled(), repr=False)  # type: ignore[assignment]
    out_bias: torch.Tensor | None = field(default=_Filled(), repr=False)  # type: ignore[assignment]
    whole_values: _WholeValues | None = field(default=None, repr=False, compare=False)  # what makes them, until then
    model_inputs: dict | None = None  # the tokenizer's tensors, (1, n) each, on the CPU
    grid: tuple[int, int] | None = None  # images: (rows, cols) of the patch tokens that follow the prefix tokens
    patch_size: tuple[int, int] | None = None  # images: (height, width) of a patch in pixels of pixel_values
    pixel_stats: tuple | None = None  # images: (mean, std) per channel that normalised pixel_values; None: unknown
    # The model's output of the recorded pass (its own, when its sdpa calls were read; else the eager pass), without
    # attentions, hidden states and key cache (``_trim``), on the model's device: handed once to the gradient runner
    # (``_plain_context``), which keeps it while it is small (``gradients.OUTPUTS_KEPT_BYTES``).
    outputs: Any = field(default=None, repr=False)
    # Where the weights were read: "sdpa calls" (the model's own pass, sdpa_reader.py) or "eager pass".
    weights_from: str = "eager pass"

    @property
    def eager(self) -> bool:
        """Whether the weights came from an eager pass: passes that must agree with them (the context-mixing
        structure, value zeroing's replays) run in the same implementation, eager or the model's own."""
        return self.weights_from == "eager pass"

    @property
    def attentions(self) -> torch.Tensor:
        """``(L, H, n, n)`` every layer's heads in one tensor (a long input's are read again: ``heads`` reads a
        layer at a time)."""
        return self.heads.full()

    @property
    def n_layers(self) -> int:
        return self.heads.shape[0]

    @property
    def n_heads(self) -> int:
        return self.heads.shape[1]

    @property
    def n_tokens(self) -> int:
        return self.heads.shape[-1]

    @property
    def has_values(self) -> bool:
        """Whether value vectors were read (``values``), without making a long input's whole (``_WholeValues``)."""
        return self.whole_values is not None or self.__dict__.get("_values") is not None

    def require_values(self) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(values, out_weights, out_bias)``, or an error saying why they are missing."""
        if self.values is None:
            raise UnsupportedModelError(
                f"This method needs value vectors and output-projection weights, and attn_widget could not read "
                f"them for {self.model_type!r}: {self.values_unavailable} Attention-only methods (raw, rollout, "
                "flow) still work."
            )
        assert self.out_weights is not None and self.out_bias is not None  # read with the values
        return self.values, self.out_weights, self.out_bias


@dataclass
class _Calls:
    """What the hooks saw, one entry per call, in call order (= layer order)."""

    values: list[tuple[Site, torch.Tensor, torch.Tensor]] = field(default_factory=list)  # (site, input, output (n, w))
    outputs: list[tuple[Site, torch.Tensor, torch.Tensor]] = field(default_factory=list)  # (site, input, output)
    # n -> the rows of the output projections' inputs and outputs kept (increasing); None: all. A pass read from sdpa
    # calls checks them on a few rows only, and a long input's are 16 MB a layer each (Llama-3.2-1B, 4,096 tokens).
    output_rows: Callable[[int], torch.Tensor] | None = None

    def output_at(self, rows: torch.Tensor, n: int) -> torch.Tensor:
        """Where rows ``rows`` of an ``n``-token input are among the output projections' rows kept."""
        return rows if self.output_rows is None else torch.searchsorted(self.output_rows(n), rows)

    @contextlib.contextmanager
    def hooked(self, sites: list[Site]) -> Iterator[None]:
        """The sites' value and output projections hooked for the block, removed after it even on error."""
        handles = []
        try:
            for site in sites:
                handles.append(site.value.register_forward_hook(self._keep_value(site)))
                handles.append(site.output.register_forward_hook(self._keep_output(site)))
            yield
        finally:
            for handle in handles:
                handle.remove()

    def _keep_value(self, site: Site):
        def hook(_module, inputs, output):
            self.values.append((site, inputs[0][0].detach(), _first(output)[0].detach()))

        return hook

    def _keep_output(self, site: Site):
        def hook(_module, inputs, output):
            x, y = inputs[0][0].detach(), _first(output)[0].detach()
            if self.output_rows is not None:
                rows = self.output_rows(x.shape[0]).to(x.device)
                x, y = x[rows], y[rows]
            self.outputs.append((site, x, y))

        return hook


_HALF = (torch.float16, torch.bfloat16)
LAYOUT_CHECK_QUERIES = 128  # rows that tell value and output-projection layouts apart (verify.spread_rows)


def _projection_in_float32(module, consumed: torch.Tensor, projected: torch.Tensor) -> torch.Tensor:
    """The projection's output recomputed from its (half-precision) input with float32 weights, as
    docs/methods.md §5.2 item 6 prefers: the rank tolerance is then float32's, not bf16's 7.8e-3 times the
    length, which would drop real directions. Modules other than Linear and Conv1D keep their output."""
    weight, bias = module.weight.detach().float(), getattr(module, "bias", None)
    bias = None if bias is None else bias.detach().float()
    if isinstance(module, torch.nn.Linear):
        return torch.nn.functional.linear(consumed.float(), weight, bias)
    if type(module).__name__ == "Conv1D":
        out = consumed.float() @ weight
        return out if bias is None else out + bias
    return projected


def work_dtype(model_dtype: torch.dtype) -> torch.dtype:
    """The dtype a capture computes and keeps its tensors in: float64 for a float64 model, else float32."""
    return torch.float64 if model_dtype == torch.float64 else torch.float32


def hidden_dtype(model_dtype: torch.dtype) -> torch.dtype:
    """The dtype a capture keeps hidden states in: the model's when it is half precision (they are exact there),
    else ``work_dtype``."""
    return model_dtype if model_dtype in _HALF else work_dtype(model_dtype)


# Hidden states are kept for the user (Capture.hidden_states) while they are small: attn_widget's methods read their
# own, hooked in their pass, and a long input's are gigabytes (Llama-3.2-1B shape at 4,096 tokens: 0.5 GB in float32).
KEPT_HIDDEN_BYTES = 64 << 20


def kept_hidden_states(hidden, model_dtype: torch.dtype) -> torch.Tensor | None:
    """The model's hidden states (L + 1 tensors ``(1, n, d)``) as kept: ``(L + 1, n, d)`` on the CPU in
    ``hidden_dtype``, or None when there are none or they take more than ``KEPT_HIDDEN_BYTES``."""
    dtype = hidden_dtype(model_dtype)
    if not hidden or len(hidden) * hidden[0].numel() * dtype.itemsize > KEPT_HIDDEN_BYTES:
        return None
    return torch.stack([h[0] for h in hidden]).to("cpu", dtype)


def _first(output) -> torch.Tensor:
    return output[0] if isinstance(output, (tuple, list)) else output


def capture(model, text: str, tokenizer=None, layers: Collection[int] | None = None) -> Capture:
    """Tokenize ``text`` and run ``model`` once, recording attentions, values and hidden states (``layers``: as for
    ``capture_encoded``)."""
    check_order(model, text, "capture")
    model = unwrap(model)
    check_model(model)
    text = check_text(text)
    tokenizer = resolve_tokenizer(model, tokenizer)
    return capture_encoded(model, encode(model, text, tokenizer), layers)


def capture_encoded(model, encoded: Encoded, layers: Collection[int] | None = None) -> Capture:
    """Run ``model`` once on already prepared inputs (text or image), recording and verifying.

    layers: 0-based layers whose attention the pass reads when it reads the model's sdpa calls and the input is
    long (``head_store.READ_AT_ONCE_BYTES``); the others are read when first asked for. None: every layer."""
    model_dtype = next(model.parameters()).dtype
    dtype = work_dtype(model_dtype)
    name = getattr(model, "name_or_path", "") or type(model).__name__
    sites = find_sites(model)
    recorded = recorded_pass(model, encoded.model_inputs, sites, read_sdpa=True, read_layers=layers)
    outputs, calls = recorded.outputs, recorded.calls

    heads = recorded.heads or HeadStore.of(_stack_attentions(outputs, model, dtype))
    n_layers, n = heads.shape[0], heads.shape[-1]
    if layers is not None and not all(0 <= layer < n_layers for layer in layers):
        raise ValueError(f"layers must be layer numbers 1..{n_layers}; got {sorted(layer + 1 for layer in layers)}.")
    # What each query may see: the masks the sdpa calls received, or the weights an eager pass returned.
    seen_keys = recorded.allowed.values() if recorded.allowed is not None else heads.maximum
    causal = _causal(sites, model.config, seen_keys)
    patterns = layer_patterns(model.config, n_layers)
    masks = _layer_masks(patterns, n, causal)
    kind = "causal" if causal else "bidirectional"
    describe = lambda layer: f"{kind}, {patterns[layer]}"  # noqa: E731
    if recorded.allowed is not None:  # the masks the model passed to its sdpa calls
        verify.check_allowed(recorded.allowed, masks, describe)
        read = _reads_again(model, encoded.model_inputs, n_layers, model_dtype, masks)
        heads.attach(read, lambda: borrowed_for_capture(model, "reading attention heads", eager=False))
    else:  # the weights an eager pass returned
        verify.check_masks(heads, masks, model_dtype, describe)

    hidden_states = kept_hidden_states(getattr(outputs, "hidden_states", None), model_dtype)
    _trim(outputs)  # the model's tuple of hidden states let go here, not held to the end of the capture
    record = Capture(
        tokens=encoded.tokens,
        token_ids=encoded.token_ids,
        special=encoded.special,
        heads=heads,
        masks=masks,
        causal=causal,
        hidden_states=hidden_states,
        model_name=name,
        model_type=str(getattr(model.config, "model_type", "unknown")),
        model_dtype=model_dtype,
        model_inputs={key: value.cpu() for key, value in encoded.model_inputs.items()},
        outputs=outputs,
        weights_from=recorded.weights_from,
    )
    _add_value_data(record, model, calls, dtype, recorded.seen)
    return record


@dataclass
class Recorded:
    """What ``recorded_pass`` ran: the outputs (with ``attentions``, L tensors ``(1, H, n, n)``, from an eager pass),
    the hooked projections' calls and where the weights came from. Read from sdpa calls, ``heads`` holds them
    (on the CPU), ``allowed`` the keys each layer's mask let each query see, ``(n, n)`` bool, and ``seen`` each
    call's values and output on the reader's checked rows."""

    outputs: Any
    calls: _Calls
    weights_from: str
    heads: HeadStore | None = None
    allowed: dict[int, torch.Tensor] | None = None
    seen: dict[int, tuple[torch.Tensor, torch.Tensor]] | None = None


def recorded_pass(
    model,
    inputs: dict,
    sites: list[Site],
    purpose: str = "attention capture",
    read_sdpa: bool = False,
    read_layers: Collection[int] | None = None,
    **options,
) -> Recorded:
    """One forward pass on ``inputs`` recording the attention weights and hidden states, the sites' projections
    hooked.

    read_sdpa: a model on sdpa attention has its weights read from its own sdpa calls in its one pass
    (``sdpa_reader.py``; "sdpa calls"). Otherwise, or when the reader gives up, an eager pass returns them
    ("eager pass"); when the model was loaded with another implementation, its own output is computed first
    (the reader's pass, or one more) and the eager pass must reproduce it."""
    model_dtype = next(model.parameters()).dtype
    # One borrow around both passes: the implementation is read as the user left it, never in another's switch.
    with borrowed_for_capture(model, purpose, eager=False):
        plain = None
        if not uses_eager(model):
            if read_sdpa and uses_implementation(model, "sdpa"):
                read = _read_sdpa(model, inputs, sites, model_dtype, read_layers, **options)
                if read.heads is not None:
                    return read
                plain = read.outputs[0]
            else:
                plain = _run(model, inputs, **options)[0]
        calls = _Calls()
        with borrowed_for_capture(model, purpose), calls.hooked(sites):
            outputs = _run(model, inputs, output_attentions=True, output_hidden_states=True, **options)
    if plain is not None:
        verify.check_same_output(outputs[0], plain, model_dtype, type(model).__name__)
    return Recorded(outputs, calls, "eager pass")


def _read_sdpa(
    model, inputs: dict, sites: list[Site], model_dtype: torch.dtype, wanted: Collection[int] | None, **options
) -> Recorded:
    """The model's own pass with its sdpa calls read (the ``wanted`` layers only, when long); ``heads`` None when the
    reader gave up or did not see one call per layer (then ``calls`` is incomplete too)."""
    dtype = work_dtype(model_dtype)
    # One call per layer: the config says how many (ALBERT calls its one shared attention module that often).
    layers = int(getattr(model.config, "num_hidden_layers", 0) or 0) or len(sites)
    wanted = None if wanted is None else [layer for layer in wanted if 0 <= layer < layers] or None
    # The wanted layers' heads are kept within the budget; those beyond it are read again when shown (head_store.py).
    budget, at_once, means = head_store.KEPT_HEADS_BYTES, head_store.READ_AT_ONCE_BYTES, head_store.KEPT_MEANS_BYTES
    sink = Reads(layers, dtype, wanted, budget=budget, at_once=at_once, means=means)
    reader = SdpaReader(dtype, model_dtype, layers, sink)
    calls = _Calls(output_rows=_output_rows)
    with calls.hooked(sites), reader:
        outputs = _run(model, inputs, output_hidden_states=True, **options)
    hidden = getattr(outputs, "hidden_states", None)
    if reader.refusal or reader.calls != layers or (hidden and len(hidden) - 1 != layers):
        return Recorded(outputs, calls, "sdpa calls")  # without heads: not read
    assert reader.shape is not None and sink.mean is not None
    tolerance = verify.reproduction_tolerance(model_dtype)
    heads = HeadStore(
        reader.shape[0], sink.mean, sink.maximum, sink.reduced, sink.kept, sink.stack, tolerance, sink.tops
    )
    return Recorded(outputs, calls, "sdpa calls", heads, reader.allowed, reader.seen)


def _layer_masks(patterns: list, n: int, causal: bool) -> torch.Tensor:
    """``(L, n, n)`` bool: each layer's admissible keys; layers of one pattern (most models: all) share one mask's
    memory (a long input's is 16 MB at 4,096 tokens)."""
    if all(pattern == patterns[0] for pattern in patterns):
        return patterns[0].mask(n, causal).expand(len(patterns), n, n)
    return torch.stack([pattern.mask(n, causal) for pattern in patterns])


def _output_rows(n: int) -> torch.Tensor:
    """The output projections' rows a pass read from sdpa calls checks (``_add_value_data``): the reader's checked
    rows and the layout check's."""
    return torch.cat([checked_rows(n), verify.spread_rows(n, LAYOUT_CHECK_QUERIES)]).unique()


def _reads_again(model, inputs: dict, layers: int, model_dtype: torch.dtype, masks: torch.Tensor) -> Read:
    """How a store reads heads again: the model's own pass with its sdpa calls read for the wanted layers only,
    stopped after the last of them; each layer's mask must be the one the first pass verified."""
    dtype = work_dtype(model_dtype)

    def read(
        wanted: list[int],
        take,
        progress,
        mean: torch.Tensor,
        maximum: torch.Tensor | RowTops,
        again: Callable[[int, torch.Tensor], bool],
        cut: bool,
        whole: Collection[int],
    ) -> None:
        def checked(layer: int, heads: torch.Tensor | RowTops | None) -> None:
            if not torch.equal(reader.allowed[layer], masks[layer]):
                raise UnsupportedModelError(
                    f"Layer {layer + 1}'s mask, read again, is not the first pass's: the model or its inputs changed "
                    "since it was analysed. Analyse the text again (attn_widget.analyze)."
                )
            take(layer, heads)

        sink = Reads(
            layers,
            dtype,
            wanted,
            take=checked,
            mean=mean,
            maximum=maximum,
            again=again,
            stop=True,
            cut=cut,
            whole=whole,
            progress=progress,
        )
        reader = SdpaReader(dtype, model_dtype, layers, sink)
        with borrowed_for_capture(model, "reading attention heads again", eager=False), reader, suppress(ReadEnough):
            _run(model, inputs)
        if reader.refusal:
            raise UnsupportedModelError(f"The attention heads could not be read again ({reader.refusal}).")

    return read


def _run(model, inputs: dict, **options):
    with torch.no_grad():
        return model(**inputs, **options)


def _let_go(outputs, name: str) -> None:
    """Remove ``outputs.<name>`` as if the model had not returned it. A ``ModelOutput`` is also an ``OrderedDict``:
    setting the attribute to None leaves the dict's entry, and its tensors, alive (every layer's attention, or hidden
    states: gigabytes at long inputs); its own ``__delitem__`` refuses, so the dict's is called."""
    if isinstance(outputs, OrderedDict) and name in outputs:
        OrderedDict.__delitem__(outputs, name)
    setattr(outputs, name, None)


def _trim(outputs) -> None:
    """The outputs as the capture keeps them: without hidden states (stacked into the record), attention weights (an
    eager pass's cross attentions) and the key and value cache (no pass continues this one; 0.3 GB for a
    Llama-3.2-1B shape at 4,096 tokens in float32)."""
    from transformers.cache_utils import Cache

    for name, value in list(outputs.items()) if isinstance(outputs, OrderedDict) else ():
        if name.endswith(("hidden_states", "attentions")) or name == "past_key_values" or isinstance(value, Cache):
            _let_go(outputs, name)


def _stack_attentions(outputs, model, dtype: torch.dtype) -> torch.Tensor:
    """``outputs.attentions`` (L tensors ``(1, H, n, n)``) → ``(L, H, n, n)`` on the CPU."""
    name = type(model).__name__
    attentions = getattr(outputs, "attentions", None)
    if not attentions or any(a is None for a in attentions):
        raise UnsupportedModelError(
            f"{name} returned no attention weights even with eager attention: it has no softmax attention "
            "attn_widget can read (state-space and linear-attention models have none)."
        )
    hidden = getattr(outputs, "hidden_states", None)
    if hidden and len(hidden) - 1 != len(attentions):
        raise UnsupportedModelError(
            f"{name} returned attention weights for {len(attentions)} of its {len(hidden) - 1} layers; the others "
            "mix tokens without attention (state-space or convolution layers), so no attention graph describes it."
        )
    shapes = {tuple(a.shape[1:]) for a in attentions}
    n = attentions[0].shape[-2]
    if len(shapes) != 1 or attentions[0].shape[-1] != n:
        raise UnsupportedModelError(
            f"{name} returned attention weights of shapes {sorted(shapes)}, not one (heads, n, n) matrix per layer "
            "over the same tokens."
        )
    # Layer by layer into one tensor, each layer's own let go once copied: a long input's attention is gigabytes,
    # and holding the model's tuple and a stacked copy at once would double it.
    layers = list(attentions)
    _let_go(outputs, "attentions")
    stacked = torch.empty(len(layers), *layers[0].shape[1:], dtype=dtype)
    for index in range(len(layers)):
        stacked[index] = layers[index][0]
        layers[index] = None
    return stacked


def _causal(sites: list[Site], config, seen_keys: Iterable[torch.Tensor]) -> bool:
    """Observed (no weight anywhere above the diagonal), or declared by the attention modules
    (``is_causal``) or the config (``is_decoder``). A model that declares a causal mask but does
    not apply one is caught by ``verify.check_masks`` (``check_allowed``); one that applies a mask it does not
    declare (CLIP's text encoder) is taken at its word of what it did."""
    declared = any(site.declared_causal for site in sites) or bool(getattr(config, "is_decoder", False))
    if declared:
        return declared
    # Observed, a layer at a time ((n, n): the keys its mask let each query see, or its head max; weights are >= 0),
    # stopping at the first layer that looks ahead.
    return all(layer.shape[-1] < 2 or not layer.triu(diagonal=1).any() for layer in seen_keys)


class _Unavailable(Exception):
    """Why a capture has no value vectors (``Capture.values_unavailable``)."""


def _add_value_data(
    record: Capture,
    model,
    calls: _Calls,
    dtype: torch.dtype,
    seen: dict[int, tuple[torch.Tensor, torch.Tensor]] | None = None,
) -> None:
    """Value vectors and output slices per layer, each layer verified against what the model computed: the
    values against what the layer's sdpa call received (``seen``, its values and output on the reader's checked
    rows) when the weights were read from sdpa calls, else A·V against what the output projection received.

    A long input's (more tokens than the reader checks) are verified now on the checked rows and made whole when
    first read (``_WholeValues``), verified again then: the model may have changed in between."""
    if record.model_type in ATTENTION_ONLY:
        record.values_unavailable = ATTENTION_ONLY[record.model_type] + "."
        return
    n_layers = record.n_layers
    if not calls.values or len(calls.values) != n_layers or len(calls.outputs) != n_layers:
        record.values_unavailable = (
            f"its value and output projections were not found ({len(calls.values)} value projection calls for "
            f"{n_layers} layers). Please report the model type."
        )
        return
    n = record.heads.shape[-2]  # queries (a cross-attention's are the decoder's tokens)
    checked_here = checked_rows(n)
    part = checked_here if seen is not None and n > len(checked_here) else None
    if part is not None:  # what making them whole needs: what each value projection consumed (half) or returned
        half = record.model_dtype in _HALF
        calls = _Calls(
            [(site, x if half else x[:0], y) for site, x, y in calls.values], calls.outputs, calls.output_rows
        )
    try:
        checked = [_layer_values(record, model, layer, calls, seen, part) for layer in range(n_layers)]
    except _Unavailable as reason:
        record.values_unavailable = str(reason)
        return
    record.value_layout = "/".join(sorted({layout for layout, _, _ in checked}))
    values, (weights, _) = checked[0][1], checked[0][2]
    record.values_dtype = values.dtype if values.dtype in (torch.float32, torch.float64) else record.model_dtype
    record.geometry = HeadGeometry(record.n_heads, values.shape[0], values.shape[-1], weights.shape[-1])
    if part is None:
        _set_values(record, checked, dtype)
        return

    def make(record: Capture) -> None:
        try:
            whole = [_layer_values(record, model, layer, calls, seen) for layer in range(n_layers)]
        except _Unavailable as reason:
            raise UnsupportedModelError(f"The value vectors could not be read again: {reason}") from None
        _set_values(record, whole, dtype)

    record.whole_values = _WholeValues(make)


def _set_values(record: Capture, layers: list, dtype: torch.dtype) -> None:
    """The capture's value vectors and output slices from each layer's ``(layout, values, (W_O, b_O))``. A
    half-precision model's W_O is kept in its dtype (``hidden_dtype``): exact, and half the bytes and time of a
    float32 copy (268 MB for Llama-3.2-1B); the methods read it in float64."""
    record.values = torch.stack([values for _, values, _ in layers]).to("cpu", dtype)
    slices = [weights for _, _, (weights, _) in layers]
    record.out_weights = _stack_as_stored(slices).to("cpu", hidden_dtype(record.model_dtype))
    record.out_bias = torch.stack([bias for _, _, (_, bias) in layers]).to("cpu", dtype)


def _stack_as_stored(views: list[torch.Tensor]) -> torch.Tensor:
    """``torch.stack(views)`` for views that lay out their memory alike (an ``nn.Linear`` weight's W_O slices, its
    transpose): stacked in that memory order, a plain copy where a contiguous stack would transpose each one (22 ms a
    layer for Llama-3.2-1B's), and returned with the views' shape and their memory order."""
    first = views[0]
    strides = first.stride()
    order = sorted(range(first.dim()), key=lambda dim: -strides[dim])  # the dims, outermost in memory first
    stacked = torch.stack([view.permute(order) for view in views])
    return stacked.permute(0, *(order.index(dim) + 1 for dim in range(first.dim())))


def _layer_values(
    record: Capture,
    model,
    layer: int,
    calls: _Calls,
    seen: dict[int, tuple[torch.Tensor, torch.Tensor]] | None,
    part: torch.Tensor | None = None,
) -> tuple[str, torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
    """Layer ``layer``'s value layout, value vectors ``(H_kv, n, d_h)`` and output slices ``(W_O (H, d_h, d),
    b_O (d,))``, verified (``_add_value_data``); ``part``: the values of these query rows only (the reader's
    checked rows: the check alone). Raises ``_Unavailable`` with the reason a model has no value vectors."""
    (site, consumed, projected), (_, context, output) = calls.values[layer], calls.outputs[layer]
    n_heads, n = record.n_heads, record.heads.shape[-2]
    if part is not None:
        consumed = consumed[part.to(consumed.device)] if len(consumed) else consumed
        projected = projected[part.to(projected.device)]
    if record.model_dtype in _HALF:  # values recomputed in float32 from what the projection consumed
        projected = _projection_in_float32(site.value, consumed, projected)
    head_dim, rest = divmod(context.shape[-1], n_heads)
    slices = None if rest else output_slices(site.output, n_heads, head_dim)
    if slices is None:
        raise _Unavailable(f"its output projection ({type(site.output).__name__}) does not split into {n_heads} heads.")
    found = list(candidates(projected, site.fused, n_heads, head_dim))
    if not found:
        raise _Unavailable(
            f"its value projection's width ({projected.shape[-1]}) does not split into heads of width {head_dim} "
            "in any layout attn_widget knows."
        )
    if site.value_bias is not None:
        found = [(name, v + site.value_bias.reshape(-1, 1, head_dim)) for name, v in found]
    if seen is None:
        layout, picked = verify.pick_values(found, record.heads[layer], context, record.model_dtype)
    else:
        rows = checked_rows(n)
        received = context[calls.output_at(rows, n)]
        at = rows if part is None else torch.arange(len(rows))  # the checked rows among the values formed
        layout, picked = verify.pick_seen_values(found, *seen[layer], at, received, record.model_dtype)
    if layout is None:
        raise UnsupportedModelError(
            f"The attention weights {type(model).__name__} returned for layer {layer + 1} do not reproduce what "
            f"its attention output received (relative error {picked:.2g}), so they are not the weights it used. "
            "Please report this model type."
        )
    rows = calls.output_at(verify.spread_rows(n, LAYOUT_CHECK_QUERIES), n)  # a wrong slicing is wrong in every row
    error = verify.output_error(context[rows], *slices, output[rows])
    if error > verify.reproduction_tolerance(record.model_dtype):
        raise _Unavailable(f"its output projection's weights do not reproduce its output ({error:.2g}).")
    return layout, picked, slices
