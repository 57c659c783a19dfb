"""Errors users see, each saying what to do."""


class UnsupportedModelError(ValueError):
    """A method needs architecture knowledge (value vectors, output projection) this model family lacks."""
