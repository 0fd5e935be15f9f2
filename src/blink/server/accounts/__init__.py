"""Accounts: a name and a password over a profile, usable from any device.

A guest plays at once, as before; a browser's profile (a name and a secret that browser
keeps) may become an account, keeping its games and rating (the account owns the profile's
name), or an account is made with a new profile. The package holds:

- :mod:`~blink.server.accounts.passwords`: Argon2id password hashes, and the keys and sealed
  boxes that keep the profile's secret readable by the account's holder only;
- :mod:`~blink.server.accounts.store`: the tables (migration ``0010_accounts``) and their
  queries;
- :mod:`~blink.server.accounts.logins`: how many login attempts an address and an account may
  make;
- :mod:`~blink.server.accounts.service`: signing up, logging in, sessions, recovery codes,
  export and deletion.

The endpoints are :mod:`blink.server.routes.accounts`; see docs/security.md, "Accounts".
"""
