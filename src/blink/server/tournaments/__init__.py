"""Tournaments on the server: the tournaments the server hosts, their match rooms, their
deadlines and their fenced stores. One object holds them all, the hub's
:class:`~blink.server.tournaments.manager.Manager`, built up over the package's layers (each
module imports only those below it: import-linter's ``server-tournaments-layers``):

- :mod:`~blink.server.tournaments.manager`: :class:`Manager
  <blink.server.tournaments.manager.Manager>` and :func:`attach
  <blink.server.tournaments.manager.attach>` (its hooks on the hub): a match room's game end,
  and on a cluster the organising of the tournaments whose lease the node holds;
- :mod:`~blink.server.tournaments.absences`: the no-show deadline of match rooms and the draw
  at the close of check-in, on the hub's sweeps;
- :mod:`~blink.server.tournaments.matches`: the match rooms (:class:`MatchRooms
  <blink.server.tournaments.matches.MatchRooms>`): their finished games entered, rooms closed
  and opened;
- :mod:`~blink.server.tournaments.store`: the tournaments in memory and in the database
  (:class:`Store <blink.server.tournaments.store.Store>`): read back, listed, dropped when
  idle, stored after each change;
- :mod:`~blink.server.tournaments.records`: the table ``tournaments`` and a tournament's row;
- :mod:`~blink.server.tournaments.fences`: a tournament's stores fenced by its match rooms'
  leases and its own lease on a cluster;
- :mod:`~blink.server.tournaments.entry`: a tournament as the server keeps it
  (:class:`Entry <blink.server.tournaments.entry.Entry>`) and as the endpoints show it.

The endpoints are :mod:`blink.server.routes.tournaments`. See docs/protocol.md,
"Tournaments and profiles", and docs/cluster.md, "Tournaments".
"""
