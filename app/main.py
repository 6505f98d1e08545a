"""The ASGI app for ``uvicorn app.main:app``, configured from ``PENTA_*`` environment variables."""

from app.store.database import keep_files_private
from app.web.factory import create_app

# The server's process (not the tests that make apps of their own): every file it creates,
# the database first, which holds the seeds of the dice to come, is its owner's only.
keep_files_private()
app = create_app()
