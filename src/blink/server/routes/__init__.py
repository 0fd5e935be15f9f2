"""The server's REST endpoints, one module (and one ``APIRouter``) per resource.

- :mod:`~blink.server.routes.meta`: health, the options rooms can be made of, the deck;
- :mod:`~blink.server.routes.rooms`: creating, listing, joining rooms (and quick games);
- :mod:`~blink.server.routes.games`: finished games and their records;
- :mod:`~blink.server.routes.profiles`: profiles and the leaderboard;
- :mod:`~blink.server.routes.accounts`: accounts, their sessions and data;
- :mod:`~blink.server.routes.tournaments`: tournaments;
- :mod:`~blink.server.routes.web`: the browser client's pages and files;
- :mod:`~blink.server.routes.pages`: the client's pages with the top bar they share put in.

Endpoints reach the server's state through :mod:`~blink.server.routes.deps` (FastAPI
dependencies reading ``request.app.state``). The replay endpoints are
:mod:`blink.server.replays`; the game's WebSocket is :mod:`blink.server.session`.
"""
