"""ASGI middleware: security headers on every response, the browser's CSRF cookie, language."""

from __future__ import annotations

import hashlib
import hmac
import secrets

from starlette.datastructures import MutableHeaders
from starlette.requests import cookie_parser
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app import i18n

CSRF_COOKIE = "penta_csrf"
LANGUAGE_COOKIE = "penta_lang"
CSRF_HEADER = "x-csrf-token"
CSRF_FIELD = "csrf_token"
API_PREFIX = "/api/"
_CSRF_COOKIE = CSRF_COOKIE + "={browser}; Path=/; HttpOnly; SameSite=Lax"

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'self'",
        "script-src 'self'",
        "style-src 'self'",
        "img-src 'self' data:",
        "font-src 'self'",
        "connect-src 'self'",
        "object-src 'none'",
        "base-uri 'none'",
        "form-action 'self'",
        "frame-ancestors 'none'",
    )
)
SECURITY_HEADERS = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "referrer-policy": "same-origin",
    "x-frame-options": "DENY",
    "cross-origin-opener-policy": "same-origin",
}
_RAW_SECURITY_HEADERS = tuple(
    (name.encode("latin-1"), value.encode("latin-1")) for name, value in SECURITY_HEADERS.items()
)
_NO_STORE = (b"cache-control", b"no-store")
"""For every answer but the static files' (unless it says otherwise): a game's page holds its
seat's private link and the API's answers a seat's token; neither may stay in a cache, a
shared computer's or a proxy's."""
STATIC_PREFIX = "/static/"


def csrf_token(secret_key: str, browser: str) -> str:
    """The CSRF token of a browser: its random cookie signed with the server's key."""
    return hmac.new(secret_key.encode(), f"csrf:{browser}".encode(), hashlib.sha256).hexdigest()


class BrowserMiddleware:
    """Adds the security headers, gives each browser a CSRF cookie and picks the language.

    ``scope["state"]`` receives ``csrf_token`` and ``language`` for the routes and templates
    (the API's ``csrf_token`` is empty: it has no forms).
    Every cookie the app sets is marked ``Secure`` when the request came over HTTPS (as
    uvicorn sees it, after the headers of a trusted proxy) or ``secure_cookies`` is set.
    """

    def __init__(self, app: ASGIApp, *, secret_key: str, secure_cookies: bool) -> None:
        self.app = app
        self.secret_key = secret_key
        self.secure_cookies = secure_cookies

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        cookies = _cookies(scope)
        state = scope.setdefault("state", {})
        state["language"] = _language(cookies.get(LANGUAGE_COOKIE), scope)
        browser = cookies.get(CSRF_COOKIE)
        new_browser = False
        if scope["path"].startswith(API_PREFIX):
            # Bots hold their seats by bearer tokens and post no forms: no CSRF cookie.
            state["csrf_token"] = ""
        else:
            new_browser = not browser or len(browser) > 64
            if new_browser:
                browser = secrets.token_urlsafe(32)
            assert browser is not None
            state["csrf_token"] = csrf_token(self.secret_key, browser)

        secure = self.secure_cookies or scope.get("scheme") == "https"
        static = scope["path"].startswith(STATIC_PREFIX)

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                _add_security_headers(message, private=not static)
                if new_browser or secure:
                    headers = MutableHeaders(scope=message)
                    if new_browser:
                        headers.append("set-cookie", _CSRF_COOKIE.format(browser=browser))
                    if secure:
                        _mark_cookies_secure(headers)
            await send(message)

        with i18n.language(state["language"]):
            await self.app(scope, receive, send_with_headers)


def _add_security_headers(message: Message, *, private: bool) -> None:
    """Add each of the security headers that the response does not set itself (and, for a
    ``private`` one, ``Cache-Control: no-store``)."""
    headers = message.setdefault("headers", [])
    present = {name.lower() for name, _value in headers}
    wanted = (*_RAW_SECURITY_HEADERS, _NO_STORE) if private else _RAW_SECURITY_HEADERS
    missing = [header for header in wanted if header[0] not in present]
    if missing:
        message["headers"] = [*headers, *missing]


def _mark_cookies_secure(headers: MutableHeaders) -> None:
    cookies = headers.getlist("set-cookie")
    if cookies:
        del headers["set-cookie"]
        for cookie in cookies:
            secure = "secure" in (part.strip().lower() for part in cookie.split(";"))
            headers.append("set-cookie", cookie if secure else f"{cookie}; Secure")


def _cookies(scope: Scope) -> dict[str, str]:
    for name, value in scope.get("headers", ()):
        if name == b"cookie":
            return cookie_parser(value.decode("latin-1"))
    return {}


def _language(chosen: str | None, scope: Scope) -> str:
    if chosen in i18n.LANGUAGES:
        return chosen
    for name, value in scope.get("headers", ()):
        if name == b"accept-language":
            negotiated = i18n.negotiate(value.decode("latin-1"))
            if negotiated:
                return negotiated
    return i18n.DEFAULT_LANGUAGE
