"""Tournaments on the server: the tournaments the server hosts, their match rooms, their
deadlines and their fenced stores.

- :mod:`~blink.server.tournaments.manager`: every tournament of one server, kept in memory and
  stored after each change, its match rooms and, on a cluster, its organiser;
- :mod:`~blink.server.tournaments.absences`: the no-show deadline of match rooms and the draw
  at the close of check-in, on the hub's sweeps;
- :mod:`~blink.server.tournaments.fences`: a tournament's stores fenced by its match rooms'
  leases and its own lease on a cluster.

The endpoints are :mod:`blink.server.routes.tournaments`. See docs/protocol.md,
"Tournaments and profiles", and docs/cluster.md, "Tournaments".
"""
