"""Bot accounts: programs that play as their own profile, owned by a person's account.

A logged-in account makes a bot (``POST /api/bots``): a profile of its own, named by the same
rules as people's, and a token shown once. The token is the bot's profile's secret (kept only
as its SHA-256), so everything a profile's secret does the token does: it takes a seat as the
bot (``profile_secret``, or ``Authorization: Bearer`` on the REST routes and the WebSocket
handshake), and the bot's games are rated as its profile's. Every token ever given is kept
(hashed) in ``bot_tokens``, so a seat taken with a token rotated away or revoked is still known
as the bot's, and refused.

- :mod:`~blink.server.bot_accounts.store`: the tables (migration ``0013_bots``) and queries;
- :mod:`~blink.server.bot_accounts.service`: making, listing, rotating and revoking, the
  bearer check, marking a room's bot-account seats.

The endpoints are :mod:`blink.server.routes.bots`; see docs/bot-api.md.
"""
