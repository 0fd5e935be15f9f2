"""Simulation tools for every game: virtual time, seeds, process pools and statistics.

:mod:`blink.sim.generic` plays any registered game through its definition and referee;
:mod:`blink.sim.seeds` derives per-game seeds from one master seed; :mod:`blink.sim.pool` gives
process pools whose workers die with their parent; :mod:`blink.sim.statistics` has the win-rate
intervals and distributions; :mod:`blink.sim.compiled` loads each game's compiled kernels. Each
game's own simulator (bots, figures, plots) lives in its
package: :mod:`blink.games.classic.sim`, and the Go Blink package's ``sim`` module.
"""
