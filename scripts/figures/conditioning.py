"""Relative error against the condition number: where each method stops helping, and the bounds kappa x constant.

Sums of ``n`` terms with a chosen condition number (``fpsum.conditioned.conditioned_sums``),
summed by naive, pairwise, Kahan, Neumaier, Sum2, SumK and the correctly
rounded sum, one panel per format; the median error in bins of the achieved
kappa, and each method's worst-case bound as a dotted line.

Numbers of record ``conditioning``: ``n``, ``folds`` (K), ``trials`` (sums per
target), ``rows`` (sums per format), and per format (``fp64``, ``fp16``, and
``bf16``, which is computed but not drawn): ``u_inv``, ``u_inv2`` and
``u_invk`` (1/u, 1/u², 1/u^K, written like ``8 × 10³¹``), ``reached`` (the
largest kappa of the format's sums), ``same`` (how many sums Neumaier
and Sum2 gave different bits for: ``0``), ``kahan_gain`` (the median, over
the bins below 1/u, of the naive median error over Kahan's), ``correct_max``
(the largest error of the correctly rounded sum, in units of u), ``exact_from``
(the median kappa of the first bin where that sum's median error is 0, or
``never``), ``quantum`` (the smallest subnormal, ``2⁻²⁴``: every sum of values of
the format is a multiple of it) and ``exact_below`` (``2⁻¹³``: every such
multiple below it is a value of the format), and per
method ``lost`` (the median kappa of the first bin whose median error reaches
100 %, or ``never``) and ``floor`` (the median error of the best-conditioned
bin, in units of u).  ``example`` holds a four-term sum and the ``fpsum``
command that repeats it: ``kappa`` and each method's result; ``twice`` the
FP32 sum 2²⁴ + 1 + 2⁻⁴⁰ rounded through float64 (``fsum``, ``twice``) and
once (``once``), with its ``command``.  ``kappa_max`` is the largest target
of the sweep.  ``span`` holds FP16's range in bits against SumK's folds
(:func:`figures.conditioning_numbers.span_numbers`); ``search`` the seeded
search for FP16 sums with kappa in ``search_band``
(:func:`figures.conditioning_numbers.search_numbers`): how many were drawn and kept,
the share SumK with K folds loses every digit of and returns 0 for, how many
K + 1 folds get exact, and ``example``, the first sum where K folds return
0 and K + 1 the exact sum, with the command that repeats it.

Modules, one concern each: :mod:`figures.conditioning_sums` (the sums, their
errors and medians per bin of kappa, the bounds, the search),
:mod:`figures.conditioning_plot` (the figure drawn) and
:mod:`figures.conditioning_numbers` (the numbers above); this one declares
the record and builds its files.
"""

from __future__ import annotations

import csv
import io

from fpsum.names import METHOD_LABELS

from .conditioning_numbers import headline
from .conditioning_plot import SIZES, draw
from .conditioning_sums import METHODS, ConditioningParams, Panel, bounds, compute, lost_at, search
from .contract import FigureFiles
from .html import static_fragment
from .mpl_render import render
from .record import Built, Record
from .text import scientific


def records() -> list[Record]:
    """The one conditioning figure."""
    return [Record("conditioning", ConditioningParams(), build)]


def csv_bytes(panels: dict[str, Panel], params: ConditioningParams) -> bytes:
    """Per drawn format, method and bin of kappa: the sums in it, their median kappa and median relative error."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["format", "method", "n", "kappa_median", "sums", "median_relative_error", "bound"])
    for name in params.formats:
        panel = panels[name]
        bound = bounds(panel.fmt, params.n, params.folds, panel.centres)
        for method in METHODS:
            line = bound["sumtwo" if method == "neumaier" else method] if method != "kahan" else None
            for j, centre in enumerate(panel.centres.tolist()):
                writer.writerow([name, method, params.n, repr(centre), int(panel.counts[j]),
                                 repr(float(panel.medians[method][j])),
                                 "" if line is None else repr(float(line[j]))])
    return out.getvalue().encode()


def build(figure_id: str, params: ConditioningParams) -> Built:
    """The figure, its CSV and fragment, and the quoted numbers."""
    panels = compute(params)
    files = render(lambda palette, layout: draw(panels, params, palette, layout), figure_id, SIZES)
    files[FigureFiles.of(figure_id).csv] = csv_bytes(panels, params)
    drawn = [panels[name] for name in params.formats]
    labels = " and ".join(p.fmt.label for p in drawn)
    said = []
    for panel in drawn:
        lost = {m: lost_at(panel, m) for m in ("naive", "kahan", "sumtwo", "sumk")}
        parts = [f"{METHOD_LABELS[m]} from κ ≈ {scientific(v)}" for m, v in lost.items() if v is not None]
        said.append(f"in {panel.fmt.label} the median error reaches 100 % for " + ", ".join(parts)
                    + ("" if lost["sumk"] is not None else ", never for SumK"))
    alt = (f"Two log-log panels, {labels}, of the median relative error of sums of {params.n} terms against "
           "their condition number κ, for naive, pairwise, Kahan, Neumaier, Sum2, SumK and correctly rounded "
           "summation, with each method's worst-case bound dotted. The errors of naive, pairwise and Kahan grow "
           "in proportion to κ, those of Neumaier and Sum2 (the same line) like κ times u squared, SumK's like "
           "κ times u cubed, while the correctly rounded sum stays below u: " + "; ".join(said) + ".")
    caption = (f"Relative error of sums of {params.n} terms in {labels} against their condition number "
               "κ = Σ|xᵢ| / |Σxᵢ|: the median error in bins of half a decade of κ.")
    more = (f"Sums drawn for a chosen κ after Ogita, Rump and Oishi (2005), {params.trials} per target, binned "
            f"by the κ they achieved. SumK with K = {params.folds}. Neumaier and Sum2 give the same bits, so "
            "their lines coincide. "
            "Dotted, in each method's colour: its worst-case bound, κ times a constant (Neumaier's is "
            "Sum2's; Kahan's, (2u + O(nu²))κ, has no line); dashed: 100 %, where a line ends (no correct "
            "digit). A marker on the grey strip at the bottom: the median sum of that bin was exact (error 0).")
    files |= static_fragment(figure_id, SIZES, alt, caption, more)
    return Built(files=files, numbers=headline(panels, params, search(params)))
