"""The room core: one room of any game, with no I/O.

A room takes messages and time and gives frames (queued on each connection's outbox), storage
records (:mod:`~blink.server.room_writes`) and timers, through its host
(:class:`~blink.server.room.host.RoomHost`). Importing it loads no web framework, database
library or Redis client (import-linter's ``room-core`` contract and
``tests/server/test_room_core_imports.py``); the hub (asyncio), the WebSocket sessions and the
storage writer are drivers around it. Its modules: :mod:`~blink.server.room.room` (the room),
:mod:`~blink.server.room.seats` (seats, a game's live state, connections' outboxes),
:mod:`~blink.server.room.updates` (frames), :mod:`~blink.server.room.races` (racing plays),
:mod:`~blink.server.room.info` (what the room says of itself), :mod:`~blink.server.room.host`
(what it needs of the server), :mod:`~blink.server.room.shape` (the room as the modules around
it read it), :mod:`~blink.server.room.clock` (the referee's timers),
:mod:`~blink.server.room.resume` (a connection's missed updates),
:mod:`~blink.server.room.live_bots` (a game's house bots), :mod:`~blink.server.room.recovery`
(a game taken back from its stored log) and :mod:`~blink.server.room.practice` (pausing a
practice game). Its storage records are a module
beside it, :mod:`blink.server.room_writes`, below the storage driver that turns them into SQL
(:func:`blink.server.jobs.job_of`), as the server's layers require.

Its modules import one another in one direction, even for types: the room imports the others,
which take it as a protocol of what they read of it (:mod:`~blink.server.room.shape`).
"""
