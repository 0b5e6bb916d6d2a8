"""The animated "race" figure: running total against inputs added, one line per method, and each one's error below.

Two plots share the x axis: the running totals, and under them each
method's distance from the exact total in ulps on a log scale
(:mod:`.errors`), where the methods that the totals' scale draws as one
line come apart and the exact total is the zero line.

An SVG written by hand (no plotting library draws it), because it animates
with SMIL: a clip rectangle whose width grows reveals the lines of both plots over
:data:`.layout.DURATION_S` seconds, a readout shows the current count and every
total, and the leaders to the final values fade in at the end.  In a
standalone file the readout is a film strip stepped by SMIL, so the file
needs no script; in a page ``race.js`` writes the readout as the clock moves
and adds Pause/Play and Restart buttons.

The lines and the plot's gridwork are drawn once, in ``<defs>``, and shown
by ``<use>`` in two layouts: a wide one (the readout column on the right)
and, inline only, a narrow one for phones (a bigger plot, the readout as a
table below it), which CSS swaps in when the figure is narrow.  Each layout
has an animated and a still part; under ``prefers-reduced-motion: reduce``
and in print CSS shows the still one (the final frame).

Every method's colour, dash pattern, width, marker and label comes from
:mod:`figures.looks`.  The output depends on the race and the id only.

Modules, one concern each:

- :mod:`.errors`: the methods' running errors in ulps and their log scale;
- :mod:`.layout`: sizes, timing, scales, ticks, the readout rows, the two views;
- :mod:`.style`: the series' inline styles and the SVG's style sheet;
- :mod:`.defs`: what ``<defs>`` holds: markers, clip paths, grid, lines, end dots;
- :mod:`.readout`: the legend, the running readout and the final frame;
- :mod:`.labels`: axis and stall labels, the errors' key, the title and description;
- :mod:`.svg`: the layouts put together, the SVG and the page fragment.
"""
