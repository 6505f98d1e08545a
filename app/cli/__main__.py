"""``python -m app.cli``: the same as the ``penta`` console script."""

from app.cli import main

main()
