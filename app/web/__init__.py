"""The web layer: HTML pages with htmx fragments, the JSON bot API, live events."""
