"""``blink serve``'s SMTP options: where password reset mails leave from (docs/deploy.md,
"Mail"). The SMTP password is read from the environment only (``BLINK_SMTP_PASSWORD``), never
from the command line, where other users of the machine could read it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Annotated, Final

import typer

if TYPE_CHECKING:
    from blink.server.settings import MailSettings

__all__ = [
    "SECURITIES",
    "SmtpBaseUrl",
    "SmtpFrom",
    "SmtpHost",
    "SmtpPort",
    "SmtpSecurity",
    "SmtpUser",
    "mail_settings",
]

MAIL = "Mail (password reset)"
SECURITIES: Final = ("starttls", "ssl", "none")
PASSWORD_ENV: Final = "BLINK_SMTP_PASSWORD"

SmtpHost = Annotated[
    str | None,
    typer.Option(
        "--smtp-host",
        envvar="BLINK_SMTP_HOST",
        metavar="HOST",
        rich_help_panel=MAIL,
        help="SMTP server for password reset mails.",
    ),
]
SmtpPort = Annotated[
    int | None,
    typer.Option(
        "--smtp-port",
        min=1,
        max=65535,
        envvar="BLINK_SMTP_PORT",
        metavar="PORT",
        rich_help_panel=MAIL,
        help="Its port (587 starttls, 465 ssl, 25 none).",
    ),
]
SmtpSecurity = Annotated[
    str,
    typer.Option(
        "--smtp-security",
        envvar="BLINK_SMTP_SECURITY",
        metavar="WAY",
        rich_help_panel=MAIL,
        help="starttls, ssl, or none (a local relay only).",
    ),
]
SmtpUser = Annotated[
    str | None,
    typer.Option(
        "--smtp-user",
        envvar="BLINK_SMTP_USER",
        metavar="NAME",
        rich_help_panel=MAIL,
        help=f"SMTP login (password: env {PASSWORD_ENV}).",
    ),
]
SmtpFrom = Annotated[
    str | None,
    typer.Option(
        "--smtp-from",
        envvar="BLINK_SMTP_FROM",
        metavar="ADDRESS",
        rich_help_panel=MAIL,
        help="The mails' From address.",
    ),
]
SmtpBaseUrl = Annotated[
    str | None,
    typer.Option(
        "--public-url",
        envvar="BLINK_PUBLIC_URL",
        metavar="URL",
        rich_help_panel=MAIL,
        help="Public https:// address for the mails' links.",
    ),
]

_PORTS: Final = {"starttls": 587, "ssl": 465, "none": 25}


def _refuse(message: str) -> typer.Exit:
    typer.echo(f"blink serve: {message}", err=True)
    return typer.Exit(2)


def mail_settings(
    host: str | None,
    port: int | None,
    security: str,
    user: str | None,
    sender: str | None,
    base_url: str | None,
) -> MailSettings | None:
    """The server's :class:`~blink.server.settings.MailSettings` from the options (``None``
    without ``--smtp-host``); a missing or wrong one exits 2 with a sentence."""
    if not host:
        return None
    security = security.lower()
    if security not in SECURITIES:
        raise _refuse(f"--smtp-security is one of {', '.join(SECURITIES)}, not {security!r}")
    if not sender or "@" not in sender:
        raise _refuse("--smtp-host needs --smtp-from, the mails' From address (name@domain)")
    if not base_url or not base_url.startswith(("https://", "http://")):
        raise _refuse(
            "--smtp-host needs --public-url, the server's address for the mails' links "
            "(https://blink.example)"
        )
    password = os.environ.get(PASSWORD_ENV)
    if user and not password:
        raise _refuse(f"--smtp-user needs its password in the environment variable {PASSWORD_ENV}")
    from blink.server.settings import MailSettings

    return MailSettings(
        host=host,
        port=port or _PORTS[security],
        security=security,
        user=user or None,
        password=password if user else None,
        sender=sender,
        base_url=base_url,
    )
