"""attn_widget: see how information flows through transformer models.

>>> from attn_widget import AttentionWidget
>>> AttentionWidget(model, "The cat sat on the mat.")  # in a notebook
"""

from . import methods
from .analysis import Analysis
from .api import analyze
from .errors import UnsupportedModelError
from .versions import show_versions
from .widget import AttentionWidget

__version__ = "0.1.0"

__all__ = ["Analysis", "AttentionWidget", "UnsupportedModelError", "__version__", "analyze", "methods", "show_versions"]
