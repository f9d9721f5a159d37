"""The hierarchical tier's likelihood and its gradient as one compiled kernel.

The likelihood of :mod:`judgestats.models.hierarchical` is, for every judge ``j`` and
split ``s`` with items, the beta-binomial

    log B(n + a, r + b) - log B(a, b),   a = conc[j, s] mu[j, s],  b = conc[j, s] (1 - mu[j, s])

(``n`` items took the split's child, ``r`` a later child), the concentration
``conc[j, s]`` being the split's times the judge's factor in the split's benchmark
(``log_conc[s] + judge_conc[j, benchmark(s)]`` on the log scale), where ``mu[j, s]`` is the
split's probability under the judge's mean pattern distribution: the benchmark mean's
leaf probabilities ``p`` tilted by the judge's traits,
``q[k] ~ p[k] exp(scores[k] @ trait[j, cell(k)])``, summed under the split's child
and under its later children (:meth:`~judgestats.models.layout.Layout.split_logits`
is the same computation for arrays). The split's probability is the ratio of the
two masses, ``mu = child / (child + later)``, so no logarithm or log-sigmoid is
taken on the way.

Written as a PyTensor graph (:func:`graph_log_likelihood`, kept for reference), the
same computation is about a hundred small operations, each a loop over the (judge,
leaf) or (judge, split) grid with gathers and scatter-adds between them, and NUTS
spent most of its time in them. :func:`tree_loglik` (the Op of
:func:`tree_loglik_op`) does it in one pass over the leaves and one over the (judge,
split) pairs, and returns the gradient with the value: reverse mode by hand, the
pairs' terms back to the masses, the masses back to the leaves. A count of at most
:data:`SMALL_COUNT` enters as the logarithm of a product of rising factors, a larger
one through log-gamma and digamma (:func:`_log_gamma_digamma`, which share their
work). ``benchmarks/bench_gradient.py`` times the kernel against the graph;
``tests/models/test_kernels.py`` checks its value against
:func:`scipy.stats.betabinom` and its gradient against PyTensor's gradient of the
graph and against central differences.
"""

from __future__ import annotations

import functools
import hashlib
import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numba
import numpy as np

from judgestats.models.layout import TINY

if TYPE_CHECKING:
    from judgestats.models.layout import Layout

__all__ = [
    "SMALL_COUNT",
    "graph_log_likelihood",
    "tree_inputs",
    "tree_log_likelihood",
    "tree_loglik",
    "tree_loglik_op",
]

#: Counts up to this enter as the logarithm of a product of rising factors; larger
#: ones as a difference of log-gamma functions.
SMALL_COUNT = 8


_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)

#: Stirling's series of log Gamma(y), in odd powers of 1 / y from the first, and the
#: asymptotic series of digamma(y), in even powers from the second (B_2n / 2n).
_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_DIGAMMA = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


@numba.njit(cache=True, inline="always")
def _polynomial(coefficients: tuple[float, ...], x: float) -> float:
    """``sum(c[i] * x**i)`` by Horner's rule."""
    out = 0.0
    for i in range(len(coefficients) - 1, -1, -1):
        out = out * x + coefficients[i]
    return out


@numba.njit(cache=True, inline="always")
def _log_gamma_digamma(x: float) -> tuple[float, float]:
    """``log Gamma(x)`` and ``digamma(x)`` for ``x > 0``, sharing their work.

    The recurrence takes ``x`` to ``y >= 10`` (one product and its derivative),
    then both asymptotic series in ``1 / y`` (Stirling's to ``y^-13``, the Cephes
    digamma's to ``y^-14``), whose truncation error there is below 1e-16.
    """
    # product = prod(x + i), slope its derivative: sum 1 / (x + i) = slope / product
    shift, product, slope = 0.0, 1.0, 0.0
    while x + shift < 10.0:
        slope = slope * (x + shift) + product
        product *= x + shift
        shift += 1.0
    y = x + shift
    log_y, r = math.log(y), 1.0 / y
    r2 = r * r
    log_gamma = (y - 0.5) * log_y - y + _HALF_LOG_2PI + r * _polynomial(_STIRLING, r2)
    digamma = log_y - 0.5 * r - r2 * _polynomial(_DIGAMMA, r2)
    if shift > 0.0:
        log_gamma -= math.log(product)
        digamma -= slope / product
    return log_gamma, digamma


@numba.njit(cache=True, inline="always")
def _rising(x: float, k: int) -> tuple[float, float]:
    """``log Gamma(x + k) - log Gamma(x)`` and its derivative in ``x``, integer ``k >= 0``."""
    if k == 0:
        return 0.0, 0.0
    if k <= SMALL_COUNT:
        product, slope = x, 1.0  # prod(x + i) and its derivative
        for i in range(1, k):
            slope = slope * (x + i) + product
            product *= x + i
        return math.log(product), slope / product
    upper, d_upper = _log_gamma_digamma(x + k)
    lower, d_lower = _log_gamma_digamma(x)
    return upper - lower, d_upper - d_lower


@numba.njit(cache=True)
def tree_loglik(
    log_p: np.ndarray,
    trait: np.ndarray,
    log_conc: np.ndarray,
    judge_conc: np.ndarray,
    scores: np.ndarray,
    leaf_offset: np.ndarray,
    path_ptr: np.ndarray,
    path_entry: np.ndarray,
    split_entry: np.ndarray,
    split_benchmark: np.ndarray,
    later_ptr: np.ndarray,
    later_entry: np.ndarray,
    n_entries: np.ndarray,
    pair_judge: np.ndarray,
    pair_split: np.ndarray,
    succ: np.ndarray,
    rest: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return the Dirichlet tree's log-likelihood and its gradient.

    Parameters
    ----------
    log_p : ndarray, shape (leaf,)
        Log probability of every leaf under its cell's benchmark mean.
    trait : ndarray, shape (judge, cell, trait)
    log_conc : ndarray, shape (split,)
        Log concentration of every split.
    judge_conc : ndarray, shape (judge, benchmark)
        Added to the log concentration of every split of the benchmark for the judge.
    scores : ndarray, shape (leaf, trait)
        Standardised trait features of the leaves.
    leaf_offset : ndarray of int, shape (cell + 1,)
        The leaves of cell ``c`` are ``leaf_offset[c]:leaf_offset[c + 1]``.
    path_ptr, path_entry : ndarray of int
        The entries on every leaf's path, in CSR form.
    split_entry : ndarray of int, shape (split,)
        The entry (child) each split isolates.
    split_benchmark : ndarray of int, shape (split,)
        The benchmark of each split.
    later_ptr, later_entry : ndarray of int
        The entries after every split's child in its node, in CSR form.
    n_entries : ndarray of int, shape ()
        Entries of all cells.
    pair_judge, pair_split : ndarray of int, shape (pair,)
        The (judge, split) pairs with items.
    succ, rest : ndarray of int, shape (pair,)
        Items of the pair through the split's child and through a later child.

    Returns
    -------
    log_lik : ndarray, shape ()
    d_log_p, d_trait, d_log_conc, d_judge_conc : ndarray
        Its gradient, shaped as ``log_p``, ``trait``, ``log_conc`` and ``judge_conc``.
    """
    n_judges, n_cells, n_traits = trait.shape
    entries = n_entries[()]
    weight = np.empty((n_judges, log_p.shape[0]))  # exp(tilted log q - cell max)
    mass = np.zeros((n_judges, entries))
    for j in range(n_judges):
        for c in range(n_cells):
            lo, hi = leaf_offset[c], leaf_offset[c + 1]
            u = trait[j, c]
            top = -np.inf
            for k in range(lo, hi):
                v = log_p[k]
                for t in range(n_traits):
                    v += u[t] * scores[k, t]
                weight[j, k] = v
                top = max(top, v)
            for k in range(lo, hi):
                w = math.exp(weight[j, k] - top)
                weight[j, k] = w
                for i in range(path_ptr[k], path_ptr[k + 1]):
                    mass[j, path_entry[i]] += w
    log_lik = 0.0
    d_mass = np.zeros((n_judges, entries))
    d_log_conc = np.zeros(log_conc.shape[0])
    d_judge_conc = np.zeros(judge_conc.shape)
    for p in range(pair_judge.shape[0]):
        j, s = pair_judge[p], pair_split[p]
        child = mass[j, split_entry[s]]
        later = 0.0
        for i in range(later_ptr[s], later_ptr[s + 1]):
            later += mass[j, later_entry[i]]
        child_free, later_free = child >= TINY, later >= TINY
        child, later = max(child, TINY), max(later, TINY)
        whole = child + later
        bench = split_benchmark[s]
        conc = math.exp(log_conc[s] + judge_conc[j, bench])
        a, b = conc * (child / whole), conc * (later / whole)
        va, da = _rising(a, succ[p])
        vb, db = _rising(b, rest[p])
        vn, dn = _rising(conc, succ[p] + rest[p])
        log_lik += va + vb - vn
        d_conc = da * a + db * b - dn * conc
        d_log_conc[s] += d_conc
        d_judge_conc[j, bench] += d_conc
        # a and b move with the masses only through mu = child / whole
        common = conc * (da - db) / whole
        if child_free:
            d_mass[j, split_entry[s]] += common * (later / whole)
        if later_free:
            d_later = -common * (child / whole)
            for i in range(later_ptr[s], later_ptr[s + 1]):
                d_mass[j, later_entry[i]] += d_later
    d_log_p = np.zeros(log_p.shape[0])
    d_trait = np.zeros(trait.shape)
    for j in range(n_judges):
        for c in range(n_cells):
            for k in range(leaf_offset[c], leaf_offset[c + 1]):
                g = 0.0
                for i in range(path_ptr[k], path_ptr[k + 1]):
                    g += d_mass[j, path_entry[i]]
                g *= weight[j, k]  # the cell max cancels in every ratio: no gradient
                d_log_p[k] += g
                for t in range(n_traits):
                    d_trait[j, c, t] += g * scores[k, t]
    return np.array(log_lik), d_log_p, d_trait, d_log_conc, d_judge_conc


def _op_class() -> type:
    """Define the PyTensor Op (PyTensor imported only when a model is built)."""
    import pytensor.tensor as pt
    from pytensor.gradient import DisconnectedType, disconnected_type, grad_not_implemented
    from pytensor.graph.basic import Apply
    from pytensor.graph.op import Op
    from pytensor.link.numba.dispatch.basic import register_funcify_and_cache_key

    class TreeLogLikelihood(Op):
        """Log-likelihood of the hierarchical tier, with its gradient as extra outputs.

        Inputs: ``log_p``, ``trait``, ``log_conc``, ``judge_conc`` (differentiable),
        ``scores`` (data) and the tree's and counts' integer arrays, in
        :func:`tree_loglik`'s order. Outputs: the log-likelihood, then its gradient
        with respect to the first four inputs, which :meth:`pullback` scales; there
        are no second derivatives.
        """

        __props__ = ()

        def make_node(self, *inputs: Any) -> Apply:
            tensors = [pt.as_tensor_variable(x) for x in inputs]
            outputs = [pt.dscalar(), *(x.type() for x in tensors[:4])]
            return Apply(self, tensors, outputs)

        def perform(self, node: Apply, inputs: Sequence[Any], outputs: list) -> None:
            for out, value in zip(outputs, tree_loglik(*inputs), strict=True):
                out[0] = value

        def infer_shape(self, node: Apply, shapes: list) -> list:
            return [(), *shapes[:4]]

        def connection_pattern(self, node: Apply) -> list[list[bool]]:
            return [[i < 5] * 5 for i in range(len(node.inputs))]

        def pullback(
            self, inputs: Sequence[Any], outputs: Sequence[Any], cotangents: Sequence[Any]
        ) -> list:
            if not all(isinstance(g.type, DisconnectedType) for g in cotangents[1:]):
                raise NotImplementedError("the gradient outputs have no gradient")
            g = cotangents[0]
            return [
                g * outputs[1],
                g * outputs[2],
                g * outputs[3],
                g * outputs[4],
                grad_not_implemented(self, 4, inputs[4], "scores are data"),
                *[disconnected_type() for _ in inputs[5:]],
            ]

    @register_funcify_and_cache_key(TreeLogLikelihood)
    def _numba_tree_loglik(op: Any, node: Any, **kwargs: Any) -> tuple[Any, str]:
        # PyTensor caches compiled graphs on disk by this key: it must change with
        # the kernel's code, or an edited kernel would run its stale compiled form
        return tree_loglik, _cache_key()

    return TreeLogLikelihood


@functools.cache
def _cache_key() -> str:
    """Key of the compiled kernel in PyTensor's cache: this module's source and TINY."""
    source = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return f"judgestats.TreeLogLikelihood:{TINY!r}:{source}"


@functools.cache
def tree_loglik_op() -> Any:
    """Return the PyTensor Op of :func:`tree_loglik` (one instance per process)."""
    return _op_class()()


def tree_inputs(lay: Layout, data: dict) -> list:
    """Return the inputs of :func:`tree_loglik` after the three parameters, in order.

    Parameters
    ----------
    lay : Layout
        The pattern trees, flattened.
    data : dict of str to array or TensorVariable
        ``scores``, ``pair_judge``, ``pair_split``, ``succ`` and ``rest``
        (:func:`~judgestats.models.hierarchical.count_data`).

    Returns
    -------
    list
        ``scores``, the trees' integer arrays, then the counts.
    """

    def ints(x: Any) -> np.ndarray:
        return np.ascontiguousarray(x, dtype=np.int64)

    path, later = lay.leaf_path, lay.later_csr  # canonical CSR: sorted, no zeros
    structure = [
        ints(np.r_[lay.leaf_offset, len(lay.leaf_cell)]),
        ints(path.indptr),
        ints(path.indices),
        ints(lay.split_entry),
        ints(lay.split_benchmark),
        ints(later.indptr),
        ints(later.indices),
        np.array(len(lay.entry_split), dtype=np.int64),
    ]
    counts = [data[name] for name in ("pair_judge", "pair_split", "succ", "rest")]
    return [data["scores"], *structure, *counts]


def tree_log_likelihood(
    lay: Layout, log_p: Any, trait: Any, log_conc: Any, judge_conc: Any, data: dict
) -> Any:
    """Return the hierarchical tier's log-likelihood as a PyTensor scalar.

    Parameters
    ----------
    lay : Layout
        The pattern trees, flattened.
    log_p : TensorVariable, shape (leaf,)
        Leaf log probabilities under the benchmark means.
    trait : TensorVariable, shape (judge, cell, trait)
    log_conc : TensorVariable, shape (split,)
    judge_conc : TensorVariable, shape (judge, benchmark)
        Each judge's log concentration offset in each benchmark.
    data : dict of str to TensorVariable
        See :func:`tree_inputs`.

    Returns
    -------
    TensorVariable, shape ()
    """
    return tree_loglik_op()(log_p, trait, log_conc, judge_conc, *tree_inputs(lay, data))[0]


def graph_log_likelihood(
    lay: Layout, log_p: Any, trait: Any, log_conc: Any, judge_conc: Any, data: dict
) -> Any:
    """:func:`tree_log_likelihood` written as a PyTensor graph, for reference.

    The split log-odds of :meth:`~judgestats.models.layout.Layout.tilted_logits`,
    then one beta-binomial term per (judge, split) pair in log-gamma functions, all
    differentiated by PyTensor: the form the kernel replaced, kept as the oracle of
    ``tests/models/test_kernels.py`` and the baseline of
    ``benchmarks/bench_gradient.py``. Same parameters and result.
    """
    import pytensor.tensor as pt

    from judgestats.models.layout import apply_pt

    jj, ss = data["pair_judge"], data["pair_split"]
    logit = lay.tilted_logits(log_p, trait, data["scores"], apply=apply_pt)[jj, ss]
    conc = log_conc[ss] + judge_conc[jj, pt.as_tensor_variable(lay.split_benchmark)[ss]]
    a = pt.exp(conc - pt.softplus(-logit))
    b = pt.exp(conc - pt.softplus(logit))
    k, r = data["succ"], data["rest"]
    return pt.sum(
        pt.gammaln(a + k)
        - pt.gammaln(a)
        + pt.gammaln(b + r)
        - pt.gammaln(b)
        - pt.gammaln(a + b + k + r)
        + pt.gammaln(a + b)
    )
