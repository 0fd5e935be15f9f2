"""The server's REST refusals in the terminal clients' words, by code, as the browser words them
(its ``e_<code>`` sentences, ``web/js/strings-errors.js`` and the tables beside it), for the
terminal clients that call the REST API (``blink bot play``): :func:`server_sentence` says any
refusal of the server, a room's WebSocket's (:data:`blink.tui.render.REFUSALS`) or the REST
API's and the quick play queue's (:data:`API_ERRORS`), in the language spoken now.
"""

from __future__ import annotations

from typing import Final

from blink.tui.i18n import N_, _
from blink.tui.render import REFUSALS, refusal_sentence

__all__ = ["API_ERRORS", "server_sentence"]

API_ERRORS: Final[dict[str, str]] = {
    "already_joined": N_("You are already signed up"),
    "already_queued": N_("This profile is already waiting, on another connection"),
    "bad_bot": N_("That bot is not known"),
    "bad_bot_token": N_("This bot's token is not valid: it was revoked or replaced"),
    "bad_challenge": N_("A bot cannot challenge itself"),
    "bad_code": N_("This recovery code is wrong or has been used"),
    "bad_date": N_("That is not a day of the daily challenge"),
    "bad_email": N_("This is not a mail address (name@example.org)"),
    "bad_filter": N_("Those search options are not valid"),
    "bad_kind": N_("That kind of tournament is not known"),
    "bad_ladder": N_("That ladder does not exist: it is people or bots"),
    "bad_login": N_("The name or the password is wrong"),
    "bad_message": N_("The server did not understand the request"),
    "bad_name": N_("This name cannot be used: choose another"),
    "bad_options": N_("Those options are not valid"),
    "bad_reset_token": N_("This link is unknown, already used or expired: ask for a new one"),
    "bad_seat": N_("There is no such seat"),
    "bot_tournament_setup": N_(
        "A bot tournament is played online, and its bots enter it themselves"
    ),
    "bots_not_admitted": N_("This game's host did not allow bot accounts to join"),
    "bots_only": N_("Only bot accounts enter a bot tournament, each with its token"),
    "bots_unavailable": N_("This server has no bots"),
    "challenge_accepted": N_("This challenge was accepted already"),
    "challenge_cancelled": N_("This challenge was cancelled by its sender"),
    "challenge_declined": N_("This challenge was declined"),
    "challenge_expired": N_("This challenge expired before it was accepted"),
    "check-in-closed": N_("Check-in is closed"),
    "daily_closing": N_(
        "That day's last games are still ending: its deal can be played again ten minutes"
        " after midnight (UTC)"
    ),
    "daily_played": N_(
        "Your profile has had its attempt at today's challenge: come back tomorrow, or "
        "play as a guest"
    ),
    "daily_running": N_("That day's challenge is still on: its games are shown once it is over"),
    "game_not_finished": N_("That game is not over yet"),
    "game_unreadable": N_("That game's record cannot be read"),
    "join_required": N_("The queue did not hear from this client in time: try again"),
    "mail_not_configured": N_(
        "This server sends no mail: log in with one of your recovery codes instead"
    ),
    "name_lookalike": N_("This name looks too much like another player's: choose another"),
    "name_taken": N_("A profile already has this name (or one that looks like it): choose another"),
    "no_client": N_("This server has no browser client"),
    "no_closing_time": N_("A draw at the close needs a number of minutes"),
    "no_free_code": N_("No game code was free: try again"),
    "no_player": N_("Name the players who did not come"),
    "no_such_bot": N_("You have no bot with that name"),
    "no_such_challenge": N_("There is no such challenge"),
    "no_such_claim": N_("This claim link is not valid, or was already used"),
    "no_such_day": N_("There is no challenge for that day"),
    "no_such_game": N_("The match has no such game"),
    "no_such_player": N_("There is no player by that name"),
    "no_such_profile": N_("This profile is not known to the server any more"),
    "no_such_room": N_("There is no game with this code"),
    "no_such_session": N_("That session has already ended"),
    "no_such_tournament": N_("There is no such tournament"),
    "no_table": N_("That game cannot be played in rooms on this server"),
    "no_suggestion": N_("A handicap is suggested for two players only"),
    "not_in_tournament": N_("Your profile does not play in this tournament"),
    "not_logged_in": N_("You are not logged in"),
    "not_online": N_("A tournament with real cards has no online games"),
    "not_organiser": N_("Only the tournament's organiser can do this"),
    "not_your_challenge": N_("This challenge is the other side's to answer"),
    "people_only": N_("A bot account enters bot tournaments only, not this one"),
    "played_online": N_("A game played in a room cannot be taken back"),
    "profile_claimed": N_("This profile belongs to an account already: log in instead"),
    "profile_seated": N_("This profile already has a seat in this game"),
    "rate_limited": N_(
        "Too many rooms or profiles made from this address: wait a minute and try again"
    ),
    "room_closed": N_("This game is closed"),
    "room_failed": N_("The game could not be opened: try again"),
    "room_full": N_("Every seat of this game is taken"),
    "seat_taken": N_("That seat is taken"),
    "shutting_down": N_("The server is restarting: try again in a moment"),
    "storage_unavailable": N_("The server cannot save anything right now: try again in a moment"),
    "too_few_players": N_("A tournament needs at least two players"),
    "too_many_bots": N_("You have as many bots as an account may have"),
    "too_many_challenges": N_(
        "There are too many open challenges: cancel one or wait for an answer"
    ),
    "too_many_logins": N_("Too many login attempts: wait a few minutes and try again"),
    "too_many_resets": N_("Too many password reset requests: wait a few minutes and try again"),
    "too_many_streams": N_("Too many pages are open from this address: close some"),
    "tournament_changed": N_("The tournament changed meanwhile: look again, then try once more"),
    "unknown_game": N_("That game is not known"),
    "weak_password": N_("The password needs at least 8 characters"),
    "wrong_password": N_("The password is wrong"),
}
"""Each code a REST answer or the quick play queue may carry: its sentence (to translate)."""


def server_sentence(code: str, message: str = "", rest: bool = False) -> str:
    """The server's refusal ``code`` in the language spoken now: a REST answer's or the
    queue's (``rest``) from :data:`API_ERRORS` first, a room's from the refusals the terminal
    says (:func:`blink.tui.render.refusal_sentence`) first. A code neither knows shows the
    server's own English ``message`` (the code itself without one)."""
    tables = (API_ERRORS, None) if rest else (None, API_ERRORS)
    for table in tables:
        if table is None:
            if code in REFUSALS:
                return refusal_sentence(code)
        elif code in table:
            return _(table[code])
    if not message:
        return code
    return message[:1].upper() + message[1:]
