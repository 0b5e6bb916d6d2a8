"""The playground page's guided experiments (issue 39): what each answer says, held to the model.

The answers' numbers are tokens of record ``guided``, which runs the model on exactly each
experiment's settings; here the sentences around them are checked on the same inputs, by
other routes (the textbook loops, Fractions). That the playground, opened with each
experiment's link, shows those numbers is a browser test (tests/browser/test_playground_reading.py).
"""

from __future__ import annotations

import io
import math
from fractions import Fraction

import numpy as np

from figures.guided import Guided, GuidedParams
from fpsum.formats import get_format
from fpsum.inputs import make_inputs
from fpsum.methods import total
from fpsum.reading import read_numbers
from fpsum.textbook import add, kahan, naive, sub

EXPERIMENTS = {e.key: e for e in GuidedParams().experiments}


def inputs(e: Guided) -> list[float]:
    fmt = get_format(e.format)
    if e.x:
        return [float(v) for v in read_numbers(io.StringIO("\n".join(e.x)), "test", fmt)]
    return [float(v) for v in make_inputs(e.kind, e.n, fmt, e.seed)]


def test_each_link_holds_the_experiment_the_answer_is_computed_on() -> None:
    for e in EXPERIMENTS.values():
        query = e.query()
        assert f"format={e.format}" in query and f"methods={','.join(e.methods)}" in query, query
        assert (f"x={','.join(e.x)}" in query) if e.x else (f"inputs={e.kind}&n={e.n}&seed={e.seed}" in query)


def test_bf16_stalls_at_its_stall_point_where_no_input_is_half_a_gap() -> None:
    e = EXPERIMENTS["bf16_stall"]
    fmt = get_format(e.format)
    values = inputs(e)
    assert all(0 <= v <= 1 for v in values) and 1.0 in values  # a draw just below 1 rounds up to it
    running = naive(values, fmt)
    assert running[-1] == fmt.stall_point
    assert fmt.ulp(fmt.stall_point) / 2 == 1  # no input is more than half a gap
    assert add(fmt.stall_point, 1.0, fmt) == fmt.stall_point  # the tie goes to the old total
    assert get_format("bf16").precision < get_format("fp16").precision


def test_ones_tie_back_to_the_stall_point_and_kahan_keeps_the_lost_one() -> None:
    e = EXPERIMENTS["fp16_ones"]
    fmt = get_format(e.format)
    values = inputs(e)
    stall = fmt.stall_point
    assert values == [1.0] * e.n
    assert naive(values, fmt)[-1] == stall and fmt.ulp(stall) == 2  # 2,048 + 1 is a tie: to even, 2,048
    assert kahan(values, fmt)[-1] == e.n
    # Kahan's compensation just after the stall point: -1 after one step, 0 after the next.
    s = c = 0.0
    after = []
    for k, x in enumerate(values, start=1):
        y = sub(x, c, fmt)
        t = add(s, y, fmt)
        c = sub(sub(t, s, fmt), y, fmt)
        s = t
        if k in (int(stall) + 1, int(stall) + 2):
            after.append(c)
    assert after == [-1.0, 0.0]


def test_the_overflowing_sum_overflows_at_its_first_step_and_the_wide_one_is_exact() -> None:
    e = EXPERIMENTS["fp16_overflow"]
    fmt = get_format(e.format)
    values = inputs(e)
    running = naive(values, fmt)
    assert math.isinf(running[1]) and all(math.isinf(v) for v in running[1:])
    exact = sum((Fraction(v) for v in values), Fraction(0))
    assert float(total("wide", np.array(values).astype(fmt.dtype), fmt)) == exact
    partial = [sum((Fraction(v) for v in values[:k]), Fraction(0)) for k in range(1, len(values) + 1)]
    assert max(abs(p) for p in partial) < get_format("fp32").max_finite / 1e30
