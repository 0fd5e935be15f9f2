"""Password reset mails: composed with :mod:`email`, sent with :mod:`smtplib` in a worker
thread, each step bounded by :attr:`~blink.server.settings.MailSettings.timeout`.

The mail is in English and Spanish (the server does not know which the reader reads), and
holds the one link that opens the browser's reset page with the token.
"""

from __future__ import annotations

import asyncio
import logging
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formataddr, make_msgid

from blink.server.settings import MailSettings

__all__ = ["reset_link", "reset_message", "send", "send_in_thread"]

log = logging.getLogger(__name__)


def reset_link(mail: MailSettings, token: str) -> str:
    """The address the mail's link opens: the browser's reset page with the token."""
    return f"{mail.base_url.rstrip('/')}/#reset={token}"


def reset_message(mail: MailSettings, to: str, name: str, token: str, minutes: int) -> EmailMessage:
    """The reset mail for the account ``name`` to ``to``."""
    link = reset_link(mail, token)
    msg = EmailMessage()
    msg["Subject"] = "Blink: reset your password / restablece tu contraseña"
    msg["From"] = formataddr(("Blink", mail.sender))
    msg["To"] = to
    msg["Message-ID"] = make_msgid(domain=mail.sender.rpartition("@")[2] or None)
    msg.set_content(
        f"Someone asked to reset the password of the Blink account {name}.\n"
        f"To choose a new one, open this link within {minutes} minutes (it works once):\n\n"
        f"{link}\n\n"
        "Every browser logged in to the account will be logged out. If you did not ask, "
        "ignore this mail: the password stays as it is.\n\n"
        "--\n\n"
        f"Alguien pidió restablecer la contraseña de la cuenta de Blink {name}.\n"
        f"Para elegir otra, abre este enlace antes de {minutes} minutos (sirve una vez):\n\n"
        f"{link}\n\n"
        "Se cerrará la sesión en todos los navegadores de la cuenta. Si no lo pediste, "
        "ignora este correo: la contraseña no cambia.\n"
    )
    return msg


def send(mail: MailSettings, msg: EmailMessage) -> None:
    """Send ``msg`` through the SMTP server (blocking; :class:`OSError` or
    :class:`smtplib.SMTPException` when it cannot)."""
    smtp: smtplib.SMTP
    if mail.security == "ssl":
        smtp = smtplib.SMTP_SSL(
            mail.host, mail.port, timeout=mail.timeout, context=ssl.create_default_context()
        )
    else:
        smtp = smtplib.SMTP(mail.host, mail.port, timeout=mail.timeout)
    with smtp:
        if mail.security == "starttls":
            smtp.starttls(context=ssl.create_default_context())
        if mail.user:
            smtp.login(mail.user, mail.password or "")
        smtp.send_message(msg)


async def send_in_thread(mail: MailSettings, msg: EmailMessage) -> bool:
    """Send ``msg`` in a worker thread; ``False`` (and a log line) when it could not be."""
    try:
        await asyncio.to_thread(send, mail, msg)
    except (OSError, smtplib.SMTPException) as exc:
        log.warning("a password reset mail could not be sent: %s", exc)
        return False
    return True
