"""The terminal's player profile: the id, name and secret a server gave, kept in a JSON file.

A profile belongs to one server, so there is one file per server (``host:port``):
``$BLINK_HOME/profile-<host>_<port>.json``, or the user's settings folder
(``$XDG_CONFIG_HOME/blink/...`` when absolute, or ``~/.config/blink/...``). The secret is the
only credential (there are no passwords), so the file is written atomically
(:func:`blink.files.write_atomic`) with mode 0600.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from blink.files import user_config_folder, write_atomic

__all__ = [
    "ProfileStoreError",
    "StoredProfile",
    "forget",
    "load",
    "profile_home",
    "profile_path",
    "save",
    "server_key",
]

FORMAT = "blink-profile"


class ProfileStoreError(Exception):
    """A profile file that cannot be read or written: ``code`` and a sentence."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class StoredProfile:
    """A profile on one server: its id, name and secret (the secret is the credential)."""

    server: str
    id: str
    name: str
    secret: str

    def to_dict(self) -> dict[str, str]:
        """The file's JSON object."""
        return {
            "format": FORMAT,
            "server": self.server,
            "id": self.id,
            "name": self.name,
            "secret": self.secret,
        }


def server_key(server: str) -> str:
    """``host:port`` of a server address (the default port filled in), lower case."""
    raw = server.strip()
    if "://" not in raw:
        raw = "http://" + raw
    parts = urlsplit(raw)
    host = (parts.hostname or "").lower()
    if not host:
        raise ProfileStoreError("bad_server", f"{server!r} is not a server address")
    try:
        port = parts.port
    except ValueError:
        raise ProfileStoreError("bad_server", f"{server!r} has a bad port") from None
    if port is None:
        port = 443 if parts.scheme == "https" else 80
    if ":" in host:
        host = f"[{host}]"
    return f"{host}:{port}"


def profile_home() -> Path:
    """The folder of the profile files: ``$BLINK_HOME``, else the user's settings folder
    (:func:`blink.files.user_config_folder`: ``$XDG_CONFIG_HOME/blink`` when that is an
    absolute path, else ``~/.config/blink`` on Linux)."""
    home = os.environ.get("BLINK_HOME")
    if home:
        return Path(home)
    return user_config_folder()


def profile_path(server: str, home: Path | None = None) -> Path:
    """The profile file for ``server`` (``profile-127.0.0.1_8000.json``)."""
    safe = re.sub(r"[^A-Za-z0-9.-]", "_", server_key(server).replace("[", "").replace("]", ""))
    return (home or profile_home()) / f"profile-{safe}.json"


def load(server: str, home: Path | None = None) -> StoredProfile | None:
    """The stored profile for ``server``, or ``None`` when there is none."""
    path = profile_path(server, home)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise ProfileStoreError("unreadable", f"cannot read {path} ({exc.strerror})") from None
    try:
        data = json.loads(text)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise ValueError("not a profile file")
        return StoredProfile(
            server=str(data["server"]),
            id=str(data["id"]),
            name=str(data["name"]),
            secret=str(data["secret"]),
        )
    except (ValueError, KeyError) as exc:
        raise ProfileStoreError("bad_file", f"{path} is not a blink profile file ({exc})") from None


def save(profile: StoredProfile, home: Path | None = None) -> Path:
    """Write the profile file for its server atomically, readable by its owner only."""
    path = profile_path(profile.server, home)
    text = json.dumps(profile.to_dict(), indent=2) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write_atomic(path, text, mode=0o600)
    except OSError as exc:
        raise ProfileStoreError("unwritable", f"cannot write {path} ({exc.strerror})") from None
    return path


def forget(server: str, home: Path | None = None) -> bool:
    """Delete the stored profile for ``server``; ``True`` if there was one."""
    path = profile_path(server, home)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True
