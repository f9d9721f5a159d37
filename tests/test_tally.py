"""The tally's distinct verdict patterns (oracle: NumPy's sort of rows)."""

import numpy as np
import pytest

from judgestats.tally import unique_patterns


@pytest.mark.parametrize("cells", [1, 6, 27, 28])  # 28 cells: longer than one key holds
def test_unique_patterns_are_numpys_unique_rows(cells):
    rng = np.random.default_rng(cells)
    rows = rng.integers(-1, 4, size=(5000, cells)).astype(np.int8)
    rows[::7] = rows[3]  # repeated rows
    patterns, inverse = unique_patterns(rows)
    expected, expected_inverse = np.unique(rows, axis=0, return_inverse=True)
    np.testing.assert_array_equal(patterns, expected)
    np.testing.assert_array_equal(inverse, expected_inverse.ravel())
    np.testing.assert_array_equal(patterns[inverse], rows)
