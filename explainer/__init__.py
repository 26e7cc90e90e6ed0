"""explainer: watch a small language model think, one token at a time."""

__version__ = "0.1.0"
