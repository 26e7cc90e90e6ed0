"""The sampler's stated limits, in a module without numpy.

The command line states every option's range in its help (commands/ranges.py); importing them
from the sampler made `explainer --help` load numpy for two numbers.
"""

from __future__ import annotations

MAX_TEMPERATURE = 10.0
MAX_NEW_TOKENS_LIMIT = 4096
