"""Architecture knowledge, in one place: where value vectors and output projections live
(found by structure, ``sites.py``), how fused projections pack them (``layouts.py``), the
per-layer masks a config declares (``windows.py``), and the families refused outright
(``families.py``). Methods never ask what model they run on."""

from .families import ATTENTION_ONLY, SEQ2SEQ, SEQ2SEQ_NOT_READ, refusal
from .geometry import HeadGeometry
from .layouts import candidates
from .projections import output_slices
from .sites import Site, find_sites
from .windows import LayerPattern, layer_patterns

__all__ = [
    "ATTENTION_ONLY",
    "SEQ2SEQ",
    "SEQ2SEQ_NOT_READ",
    "HeadGeometry",
    "LayerPattern",
    "Site",
    "candidates",
    "find_sites",
    "layer_patterns",
    "output_slices",
    "refusal",
]
