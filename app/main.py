"""The ASGI app for ``uvicorn app.main:app``, configured from ``PENTA_*`` environment variables."""

from app.web.factory import create_app

app = create_app()
