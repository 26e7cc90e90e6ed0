"""The colour scale of the embedding cells: the 98th percentile of the shown values, as numpy
computes it (computed without np.percentile, whose first call imports numpy.ma)."""

from __future__ import annotations

import numpy as np
import pytest

from explainer.frames.embeddings import percentile


@pytest.mark.parametrize("n", [1, 2, 3, 10, 288, 1001])
def test_percentile_matches_numpy(n):
    values = np.abs(np.random.default_rng(n).standard_normal(n))
    for q in (0, 50, 98, 100):
        assert percentile(values, q) == float(np.percentile(values, q))
