"""The figure builders: one module per figure (or set of numbers), run at build time by scripts/gen_figures.py."""
