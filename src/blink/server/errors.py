"""REST errors and the handlers that answer them.

Every refused request is answered as ``{"error": {"code": ..., "message": ...}}`` with its HTTP
status (docs/protocol.md): :class:`ApiError` and :class:`ProfileError` raised by the endpoints,
request validation (``400 bad_options``) and Starlette's own (``404 not_found``,
``405 method_not_allowed``). :func:`install` adds the handlers to an app.
"""

from __future__ import annotations

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

__all__ = ["ApiError", "ProfileError", "install"]


class ApiError(Exception):
    """A REST error: HTTP status, stable code and a sentence."""

    def __init__(
        self, status: int, code: str, message: str, headers: dict[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers


class ProfileError(Exception):
    """A refused profile request: HTTP status, stable code and a sentence."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message


async def _api_error(_req: Request, exc: ApiError) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": exc.code, "message": exc.message}},
        status_code=exc.status,
        headers=exc.headers,
    )


async def _validation(_req: Request, exc: RequestValidationError) -> JSONResponse:
    errs = exc.errors()
    if errs:
        e = errs[0]
        where = ".".join(str(x) for x in e.get("loc", ()) if x != "body")
        msg = f"{where}: {e.get('msg')}" if where else str(e.get("msg"))
    else:
        msg = "invalid request"
    return JSONResponse({"error": {"code": "bad_options", "message": msg}}, status_code=400)


async def _http(_req: Request, exc: StarletteHTTPException) -> JSONResponse:
    code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
    return JSONResponse(
        {"error": {"code": code, "message": str(exc.detail)}}, status_code=exc.status_code
    )


async def _profile_error(_req: Request, exc: ProfileError) -> JSONResponse:
    return JSONResponse(
        {"error": {"code": exc.code, "message": exc.message}}, status_code=exc.status
    )


def install(app: FastAPI) -> None:
    """Answer every error of ``app`` in the server's error format."""
    app.exception_handler(ApiError)(_api_error)
    app.exception_handler(RequestValidationError)(_validation)
    app.exception_handler(StarletteHTTPException)(_http)
    app.exception_handler(ProfileError)(_profile_error)
