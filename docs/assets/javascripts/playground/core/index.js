/**
 * The playground's arithmetic: a port of the model `fpsum`, bit for bit.
 *
 * Every function here gives the doubles `fpsum` gives (the tests in
 * tests/model/test_playground_arith.py compare them bit for bit).  Values of
 * every format are held in doubles (Float64Array for many).  Mistakes in
 * what the reader asked for throw `InputError` (one line naming the bad
 * token, format, method or option); nothing else is thrown on purpose.
 *
 * What the page (playground/ui) uses:
 *
 * - `FORMATS`: one entry per format of fpsum (name as fpsum spells it,
 *   label, precision, emax, maxFinite, unitRoundoff), `INPUT_KINDS`,
 *   `drawInputs(kind, n, seed, format, options?)`, `parseNumbers(text,
 *   format)`, `runMethod(method, values, format, {block, srSeed, running})`
 *   giving `{total, running}`, `exactTotal`, the errors, `stallStep`, the
 *   traces and `formatShortest`, the shortest decimal that round-trips.
 *
 * - `FORMATS` entries also carry bits, emin, overflow ("inf" | "nan" | "saturate"), signedZero,
 *   smallestNormal, smallestSubnormal; `getFormat(name)` looks one up.
 *   Also exported: `roundToFormat(x, format)`, `addRounded(a, b, format)`,
 *   `ulp`, `nextUp`, `nextDown` (format objects, not names).
 * - `METHODS` are the seven of the playground, as fpsum spells them:
 *   naive, wide, kahan, neumaier, pairwise, blocked, stochastic (fpsum's
 *   sumtwo, sumk and correct are not ported); `DEFAULT_BLOCK` is fpsum's 128.
 *   runMethod's values must be values of the format (drawInputs and
 *   parseNumbers give such); they are not checked.
 * - `drawInputs` also takes the kind `CONSTANT` ("constant", not an fpsum
 *   kind): n copies of `options.c` (default 1) rounded to the format, which
 *   `fpsum sum` gives on the same numbers; n is at most `MAX_DRAWN` (2**24).
 *   `inputsMatchFpsum("exp")` is false: Math.exp is not numpy's exp (see
 *   inputs.js for how rarely the stored values differ: never seen up to
 *   FP32, one FP64 draw in nine).
 * - `exactTotal(values)` returns `{value, numerator, scale}`: the exact sum is
 *   numerator / 2**scale (bigints; null for a sum with NaN or inf, whose
 *   `value` is then NaN or +-inf as fpsum reports it).  `relativeError` and
 *   `absoluteError(result, exact)` take that object, as fpsum's `rel_error`
 *   and `abs_error`; `ulpError(result, exact, format)` is the absolute error
 *   in units of the format's gap at the exact sum (fpsum sum does not report
 *   it; the formula is in exact.js).
 * - `traceStep(method, values, format, k, options?)` and `firstLostStep(method,
 *   values, format, options?)` ignore their options (the four traced
 *   methods have none).
 *   A step also has `step`, `value` (the input x itself; `input` is what is
 *   added, for kahan y = x - c), `swallowed` (a nonzero input left the total
 *   unchanged: all of it lost, which is what firstLostStep looks for) and for
 *   neumaier `corrected` (fl(s + c)); `exactSum` is the exact decimal.
 *   `isLost(total, input, format)` returns the same object for one addition
 *   (total and input are rounded to the format first).
 * - `formatShortest(-0)` is "-0" (String(-0) is "0").
 */
export { InputError } from "./errors.js";
export { FORMATS, getFormat } from "./formats.js";
export { roundToFormat, addRounded, ulp, nextUp, nextDown } from "./rounding.js";
export { METHODS, DEFAULT_BLOCK, runMethod } from "./methods.js";
export { INPUT_KINDS, CONSTANT, MAX_DRAWN, inputsMatchFpsum, drawInputs } from "./inputs.js";
export { parseNumbers, MAX_NUMBERS } from "./parse.js";
export { exactTotal, relativeError, absoluteError, ulpError, stallStep } from "./exact.js";
export { traceStep, firstLostStep, isLost } from "./trace.js";
export { formatShortest } from "./show.js";
