"""The routes: pages, htmx actions and the bot API; no route module imports another."""
